package dev.ortho.hal.remote;

import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** A hand-driven protocol peer on a blocking socket, for sending what a real client never would. */
final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    RawClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(30_000); // hang guard only
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    void send(ByteBuffer frame) throws IOException {
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        out.write(bytes);
        out.flush();
    }

    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Sends HELLO and AUTH proving {@code token}; returns the status code of the last reply. */
    int hello(String token) throws IOException {
        send(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION).finish());
        FrameReader challenge = read();
        int status = challenge.i32("status");
        if (status != 0) {
            return status;
        }
        ByteBuffer nonce = challenge.bytes("nonce");
        byte[] n = new byte[nonce.remaining()];
        nonce.get(n);
        byte[] proof = Challenge.prove(token.getBytes(StandardCharsets.UTF_8), n);
        send(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length).finish());
        return read().i32("status");
    }

    /** Reads one frame; skips PONGs and notifications. */
    FrameReader read() throws IOException {
        int length = Integer.reverseBytes(in.readInt());
        byte[] body = new byte[length];
        in.readFully(body);
        return new FrameReader(ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN));
    }

    /** Whether the server closed the connection (reads until EOF; false on the hang guard). */
    boolean closedByServer() throws IOException {
        InputStream stream = socket.getInputStream();
        byte[] sink = new byte[4096];
        try {
            while (stream.read(sink) >= 0) {
                // drain whatever the server sent before closing
            }
            return true;
        } catch (EOFException | java.net.SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
