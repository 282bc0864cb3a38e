package dev.ortho.hal.remote.internal.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.RecordingTransport;
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

    @Test
    void aQuietPeerIsPingedOnlyAfterTheHandshake() {
        RemoteConnection connection = new RemoteConnection("test peer", DEADLINE);
        RecordingTransport transport = new RecordingTransport();
        connection.attach(transport);
        long late = transport.heard + DEADLINE / 2; // past the ping interval, within the deadline
        connection.tick(late);
        assertEquals(List.of(), transport.frames);
        connection.authenticated();
        connection.tick(late);
        assertEquals(1, transport.frames.size());
        assertEquals(Protocol.PING, transport.frames.get(0).getInt(Protocol.LENGTH_BYTES));
    }
}
