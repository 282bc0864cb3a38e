package dev.ortho.hal.remote.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Found while measuring issue 18: a client whose handshake took longer than a quarter of its
 * liveness deadline (a cold JVM on a loaded machine) sent a PING before HELLO or between HELLO
 * and AUTH, and the server closed the connection ("the first frame must be HELLO, got opcode
 * 2"). The client pings only once authenticated.
 */
class Issue18PingBeforeAuthTest {
    private static final long DEADLINE = 1_000_000_000L;

    /** Records the opcodes sent; the peer was last heard at {@code heard}. */
    private static final class Recorder implements Transport {
        final List<Integer> opcodes = new ArrayList<>();
        final long heard = System.nanoTime();

        @Override
        public void send(ByteBuffer frame) {
            opcodes.add(frame.getInt(Protocol.LENGTH_BYTES));
        }

        @Override
        public void close(StatusException reason) {
        }

        @Override
        public void closeAfterFlush(StatusException reason) {
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public long queuedBytes() {
            return 0;
        }

        @Override
        public long lastReceiveNanos() {
            return heard;
        }

        @Override
        public long peerSinceNanos() {
            return heard;
        }
    }

    @Test
    void aQuietPeerIsPingedOnlyAfterTheHandshake() {
        RemoteConnection connection = new RemoteConnection("test peer", DEADLINE);
        Recorder transport = new Recorder();
        connection.attach(transport);
        long late = transport.heard + DEADLINE / 2; // past the ping interval, within the deadline
        connection.tick(late);
        assertEquals(List.of(), transport.opcodes);
        connection.authenticated();
        connection.tick(late);
        assertEquals(List.of(Protocol.PING), transport.opcodes);
    }
}
