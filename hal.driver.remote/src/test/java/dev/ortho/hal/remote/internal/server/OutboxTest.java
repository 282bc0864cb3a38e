package dev.ortho.hal.remote.internal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.RecordingTransport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** Issue 18: signal reports made inside a burst wait, coalesce per semaphore, and never move earlier. */
class OutboxTest {
    /** What was sent, as "reached:handle@value[+epoch]", "failed:handle:code" or "frame:id". */
    private static List<String> sent(RecordingTransport transport) {
        List<String> sent = new ArrayList<>();
        for (ByteBuffer frame : transport.frames) {
            FrameReader in = new FrameReader(frame.duplicate().position(Protocol.LENGTH_BYTES));
            switch (in.opcode()) {
                case Protocol.SEMAPHORE_REACHED -> {
                    long handle = in.i64("handle");
                    long value = in.i64("value");
                    Frontier frontier = in.frontier("frontier");
                    sent.add("reached:" + handle + "@" + value + (frontier == null ? "" : "+" + frontier.epochAt(0)));
                }
                case Protocol.SEMAPHORE_FAILED -> sent.add("failed:" + in.i64("handle") + ":" + in.status("s").code());
                default -> sent.add("frame:" + in.requestId());
            }
        }
        return sent;
    }

    private static Frontier frontier(long epoch) {
        Frontier frontier = new Frontier(1);
        frontier.insertOrRaise(dev.ortho.hal.frontier.Axis.host(1, 1, 7), epoch);
        return frontier;
    }

    @Test
    void reportsInsideABurstWaitForItsEndAndCoalescePerSemaphore() {
        RecordingTransport transport = new RecordingTransport();
        AtomicBoolean burst = new AtomicBoolean(true);
        Outbox outbox = new Outbox(transport, burst::get);
        outbox.reached(1, 1, frontier(10));
        outbox.reached(2, 5, null);
        outbox.failed(3, new StatusException(StatusCode.DATA_LOSS, "lost"));
        outbox.reached(1, 2, frontier(20));
        outbox.reached(1, 3, frontier(30));
        assertEquals(List.of(), sent(transport));
        assertEquals(3, outbox.waiting());
        outbox.flush();
        // semaphore 1's report moved behind the others it followed: later, never earlier
        assertEquals(List.of("reached:2@5", "failed:3:DATA_LOSS", "reached:1@3+30"), sent(transport));
        assertEquals(1, transport.writes);
        assertEquals(0, outbox.waiting());
    }

    @Test
    void aBurstThatNeverEndsStillSendsItsReportsFromTheTransportsThread() {
        RecordingTransport transport = new RecordingTransport();
        Outbox outbox = new Outbox(transport, () -> true); // e.g. a long operation queued behind
        outbox.reached(1, 1, null);
        outbox.reached(2, 1, null);
        assertEquals(List.of(), sent(transport));
        assertEquals(1, transport.later.size()); // asked once per burst, not per report
        transport.later.get(0).run();
        assertEquals(List.of("reached:1@1", "reached:2@1"), sent(transport));
    }

    @Test
    void aLowerValueReportedLateDoesNotLowerAWaitingOne() {
        RecordingTransport transport = new RecordingTransport();
        Outbox outbox = new Outbox(transport, () -> true);
        outbox.reached(4, 9, frontier(9));
        outbox.reached(4, 6, frontier(6));
        outbox.flush();
        assertEquals(List.of("reached:4@9+9"), sent(transport));
    }

    @Test
    void anyOtherFrameAndAReportOutsideABurstSendWhatWaitsFirst() {
        RecordingTransport transport = new RecordingTransport();
        AtomicBoolean burst = new AtomicBoolean(true);
        Outbox outbox = new Outbox(transport, burst::get);
        outbox.reached(1, 1, null);
        outbox.send(FrameWriter.frame(Protocol.REPLY, 77).putI32(0).finish());
        assertEquals(List.of("reached:1@1", "frame:77"), sent(transport));
        outbox.reached(2, 1, null);
        burst.set(false);
        outbox.reached(1, 2, null);
        assertEquals(List.of("reached:1@1", "frame:77", "reached:2@1", "reached:1@2"), sent(transport));
        assertEquals(2, transport.writes);
        outbox.flush(); // nothing waits: nothing sent
        assertEquals(2, transport.writes);
    }
}
