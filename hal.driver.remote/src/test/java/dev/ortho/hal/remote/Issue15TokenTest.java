package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 section 1: the token crossed the wire in plaintext, and a client without a token was
 * told its token "does not match". Now the server sends a nonce and the client answers with
 * HMAC-SHA256(token, nonce); a client with no token is told it presented none.
 */
class Issue15TokenTest {

    @Test
    void aClientWithoutATokenIsToldItPresentedNone() {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            StatusException e = assertThrows(StatusException.class, () -> driver.createDevice(DeviceUri.parse(
                    "remote://127.0.0.1:" + Loopback.shared().server.address().getPort())));
            assertEquals(StatusCode.UNAUTHENTICATED, e.code(), e.toString());
            assertTrue(e.getMessage().contains("presented no token"), e.getMessage());
        }
    }

    /**
     * A fake server records every byte the client sends during the handshake: the token is not
     * among them, and the proof is the HMAC of the server's nonce.
     */
    @Test
    void theTokenNeverCrossesTheWire() throws Exception {
        byte[] token = Loopback.TOKEN.getBytes(StandardCharsets.UTF_8);
        byte[] nonce = Challenge.nonce();
        ByteArrayOutputStream sent = new ByteArrayOutputStream();
        CompletableFuture<byte[]> proof = new CompletableFuture<>();
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> {
                try (Socket socket = fake.accept()) {
                    socket.setSoTimeout(30_000); // hang guard
                    DataInputStream in = new DataInputStream(socket.getInputStream());
                    OutputStream out = socket.getOutputStream();
                    FrameReader hello = read(in, sent);
                    ByteBuffer challenge = FrameWriter.frame(Protocol.REPLY, hello.requestId()).putI32(0)
                            .putBytes(nonce, 0, nonce.length).finish();
                    out.write(challenge.array(), 0, challenge.limit());
                    out.flush();
                    FrameReader auth = read(in, sent);
                    assertEquals(Protocol.AUTH, auth.opcode());
                    assertEquals(1, auth.u8("presented"));
                    ByteBuffer bytes = auth.bytes("proof");
                    byte[] p = new byte[bytes.remaining()];
                    bytes.get(p);
                    proof.complete(p);
                    // refuse, so the client gives up at once
                    ByteBuffer refusal = FrameWriter.frame(Protocol.REPLY, auth.requestId()).putStatus(
                            new StatusException(StatusCode.UNAUTHENTICATED, "test server")).finish();
                    out.write(refusal.array(), 0, refusal.limit());
                    out.flush();
                } catch (Throwable e) {
                    proof.completeExceptionally(e);
                }
            });
            try (RemoteDriver driver = new RemoteDriver(name -> Loopback.TOKEN)) {
                StatusException e = assertThrows(StatusException.class, () -> driver.createDevice(DeviceUri.parse(
                        "remote://127.0.0.1:" + fake.getLocalPort())));
                assertEquals(StatusCode.UNAUTHENTICATED, e.code(), e.toString());
            }
            assertArrayEquals(Challenge.prove(token, nonce), proof.get(30, TimeUnit.SECONDS));
        }
        String wire = HexFormat.of().formatHex(sent.toByteArray());
        assertTrue(!wire.contains(HexFormat.of().formatHex(token)), "the token was sent: " + wire);
    }

    private static FrameReader read(DataInputStream in, ByteArrayOutputStream sent) throws java.io.IOException {
        int length = Integer.reverseBytes(in.readInt());
        byte[] body = new byte[length];
        in.readFully(body);
        sent.write(body);
        return new FrameReader(ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN));
    }

    @Test
    void aProofForAnotherNonceOrTokenIsRejected() {
        byte[] token = "secret".getBytes(StandardCharsets.UTF_8);
        byte[] nonce = Challenge.nonce();
        assertTrue(Challenge.verify(token, nonce, Challenge.prove(token, nonce)));
        assertTrue(!Challenge.verify(token, Challenge.nonce(), Challenge.prove(token, nonce)));
        assertTrue(!Challenge.verify(token, nonce, Challenge.prove("secreT".getBytes(StandardCharsets.UTF_8), nonce)));
        assertTrue(!Challenge.verify(token, nonce, new byte[0]));
    }
}
