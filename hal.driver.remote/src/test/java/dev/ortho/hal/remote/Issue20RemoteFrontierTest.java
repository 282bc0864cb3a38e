package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 §3/§4: frontiers across two {@code serve-device} servers. Each server announces its
 * machine index and its devices' queue axes carry it; a three-stage pipeline A → B → A is
 * submitted whole before stage 1 may start, and the client's I/O path relays each server's
 * signal report (with the frontier the server's queue attached) to the other server, whose queue
 * imports it.
 */
class Issue20RemoteFrontierTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));
    private static final int MACHINE_A = 11;
    private static final int MACHINE_B = 22;

    @Test
    void threeStagesAcrossTwoServersCarryBothMachinesQueueAxes() {
        try (Loopback serverA = Loopback.startLocalTask(MACHINE_A, o -> o);
                Loopback serverB = Loopback.startLocalTask(MACHINE_B, o -> o);
                Device a = serverA.connect(); Device b = serverB.connect();
                Semaphore s1 = a.createSemaphore(0); Semaphore s2 = b.createSemaphore(0);
                Semaphore s3 = a.createSemaphore(0);
                Buffer onA = a.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                Buffer copyA = a.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                Buffer onB = b.allocator().allocateBuffer(BufferParams.hostLocal(), 16)) {
            assertEquals(MACHINE_A, dev.ortho.hal.remote.internal.client.ClientProbe.machine(a));
            assertEquals(MACHINE_B, dev.ortho.hal.remote.internal.client.ClientProbe.machine(b));
            TimelineSemaphore host = new TimelineSemaphore("host", 0);
            // stage 3 first, then 2, then 1 (held by the host): nothing has run when all are submitted
            a.queueCopy(ANY, SemaphoreList.of(s2, 1), SemaphoreList.of(s3, 1), onA, 0, copyA, 0, 16, 0);
            b.queueFill(ANY, SemaphoreList.of(s1, 1), SemaphoreList.of(s2, 1), onB, 0, 16, 22, 4, 0);
            a.queueFill(ANY, SemaphoreList.of(host, 1), SemaphoreList.of(s1, 1), onA, 0, 16, 11, 4, 0);
            assertEquals(0, s3.query());
            host.signal(1);
            s3.await(1, GUARD);
            assertArrayEquals(new int[] {22, 22, 22, 22}, ints(onB));
            assertArrayEquals(new int[] {11, 11, 11, 11}, ints(copyA));
            Frontier atB = new Frontier(8);
            assertTrue(s2.frontierAt(1, atB), "B's signal carries a frontier");
            List<Integer> machines = machines(atB);
            assertTrue(machines.contains(MACHINE_A), "B's queue imported A's axis: " + atB);
            assertTrue(machines.contains(MACHINE_B), "B's own axis: " + atB);
            Frontier atA = new Frontier(8);
            assertTrue(s3.frontierAt(1, atA));
            assertTrue(atA.dominates(atB), "stage 3 knows all of stage 2's past: " + atA + " vs " + atB);
            host.release();
        }
    }

    private static List<Integer> machines(Frontier frontier) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < frontier.size(); i++) {
            out.add(Axis.machine(frontier.axisAt(i)));
        }
        return out;
    }

    private static int[] ints(Buffer buffer) {
        MemorySegment bytes = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, bytes);
        return bytes.toArray(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN));
    }
}
