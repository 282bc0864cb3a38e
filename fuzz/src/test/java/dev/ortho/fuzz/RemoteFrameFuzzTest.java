package dev.ortho.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.server.ServerSession;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The remote HAL server's frame decoder ({@code ServerSession.onFrame}, what every
 * {@code serve-device} connection feeds): an authenticated session over a fresh
 * {@code local-sync} device, then the input as a sequence of frame bodies, each preceded by a
 * 2-byte little-endian length. A {@link StatusException} from {@code onFrame} closes that
 * connection (accepted, ends the input); anything else is a finding. Work runs inline
 * ({@code Runnable::run}), so the input is replayed deterministically. Memory and handle quotas
 * are small so that a frame cannot make the server hold much.
 */
class RemoteFrameFuzzTest {
    static final byte[] TOKEN = "fuzz".getBytes(StandardCharsets.UTF_8);
    private static final DriverRegistry REGISTRY = new DriverRegistry();

    static {
        REGISTRY.register(CpuDrivers.builder().localSyncFactory());
    }

    /** Drops whatever the session sends, keeping the last frame (the HELLO reply's nonce). */
    private static final class NullTransport implements Transport {
        volatile StatusException closed;
        volatile ByteBuffer last;

        @Override
        public void send(ByteBuffer frame) {
            last = frame;
        }

        /** The nonce of the HELLO reply (protocol 3: the token never travels, its HMAC does). */
        byte[] lastNonce() {
            ByteBuffer frame = last.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
            frame.position(Protocol.LENGTH_BYTES);
            FrameReader reply = new FrameReader(frame.slice().order(java.nio.ByteOrder.LITTLE_ENDIAN));
            reply.i32("status");
            ByteBuffer nonce = reply.bytes("nonce");
            byte[] bytes = new byte[nonce.remaining()];
            nonce.get(bytes);
            return bytes;
        }

        @Override
        public void close(StatusException reason) {
            closed = reason;
        }

        @Override
        public void closeAfterFlush(StatusException reason) {
            closed = reason;
        }

        @Override
        public boolean isOpen() {
            return closed == null;
        }

        @Override
        public long queuedBytes() {
            return 0;
        }

        @Override
        public long lastReceiveNanos() {
            return System.nanoTime();
        }

        @Override
        public long peerSinceNanos() {
            return System.nanoTime();
        }
    }

    static ByteBuffer body(FrameWriter writer) {
        ByteBuffer frame = writer.finish();
        return frame.position(Protocol.LENGTH_BYTES).slice();
    }

    @FuzzTest(maxDuration = "3m")
    void frames(byte[] data) throws Exception {
        if (data.length > Contract.MAX_INPUT_BYTES) {
            return;
        }
        NullTransport transport = new NullTransport();
        ServerOptions options = ServerOptions.defaults(TOKEN).withQuotas(1 << 20, 64, 8);
        ServerSession session = new ServerSession(transport, options, () -> REGISTRY.createDevice("local-sync"),
                Runnable::run, s -> { });
        try {
            session.onFrame(body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC)
                    .putI32(Protocol.VERSION)));
            byte[] proof = Challenge.prove(TOKEN, transport.lastNonce());
            session.onFrame(body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
            ByteBuffer in = ByteBuffer.wrap(data).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            while (in.remaining() >= 2 && transport.isOpen()) {
                int length = Math.min(in.getShort() & 0xFFFF, in.remaining());
                ByteBuffer frame = in.slice(in.position(), length);
                in.position(in.position() + length);
                try {
                    session.onFrame(frame);
                } catch (StatusException e) {
                    Contract.onlyStatus(() -> {
                        throw e;
                    });
                    break;  // the server closes this connection
                }
            }
        } finally {
            session.close(new StatusException(StatusCode.CANCELLED, "fuzz input done"));
        }
    }
}
