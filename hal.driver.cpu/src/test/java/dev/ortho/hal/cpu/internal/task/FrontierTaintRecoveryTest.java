package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 §1 and §3 on local-task: taint from an incomplete import never sticks to a queue and
 * never reaches the queue's next signal (seed 002: "Taint is not permanent"), for each trigger
 * seen in the issue, and queue axes are never handed out twice.
 */
class FrontierTaintRecoveryTest {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private final ExecutableLoaders libraries = TestLoaders.standard();

    private LocalTaskDevice device(String uri, QueueAxes axes) {
        try (LocalTaskDriver driver = new LocalTaskDriver(libraries, LocalTaskOptions.DEFAULTS, axes)) {
            return (LocalTaskDevice) driver.createDevice(DeviceUri.parse(uri));
        }
    }

    private LocalTaskDevice device(String uri) {
        return device(uri, QueueAxes.process());
    }

    private static Frontier frontierAt(Semaphore s, long value) {
        Frontier out = new Frontier(Frontier.MAX_CAPACITY);
        assertTrue(s.frontierAt(value, out), "value " + value + " reached");
        return out;
    }

    @Test
    void anExternalSignalTaintsItsValueButNotTheQueueThatWaitedOnIt() {
        try (LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=1");
                Semaphore external = device.createSemaphore(0); Semaphore s = device.createSemaphore(0)) {
            ((TimelineSemaphore) external).signalExternal(1, null);
            assertTrue(frontierAt(external, 1).isTainted(), "the external value itself is tainted");
            device.queueBarrier(1L, SemaphoreList.of(external, 1), SemaphoreList.of(s, 1), 0);
            s.await(1, Timeout.infinite());
            assertFalse(device.queueFrontier(0).isTainted(), device.queueFrontier(0).toString());
            Frontier recorded = frontierAt(s, 1);
            assertFalse(recorded.isTainted(), "queue 0's signal after the taint is complete: " + recorded);
            assertTrue(recorded.isAnchored());
            assertEquals(device.queueAxis(0), recorded.anchorAxis());
            assertFalse(((TimelineSemaphore) s).isValueTainted(1), "the untainted watermark moved to 1");
            // Recovery shows as elision: queue 1 imports s@1 once, then dominates it.
            device.queueBarrier(2L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), 0);
            s.await(2, Timeout.infinite());
            device.queueBarrier(2L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 3), 0);
            s.await(3, Timeout.infinite());
            assertEquals(1, device.skippedImports(1), "the second wait on s@1 was dominated");
        }
    }

    @Test
    void aQueueWaitingOnItsOwnQueueLocalSemaphoreStaysUntaintedAndReusesPoolMemoryWithoutAWait() {
        try (LocalTaskDevice device = device("local-task://?queue_count=1&task_topology_group_count=1");
                Semaphore local = device.createSemaphore(0, SemaphoreScope.QUEUE_LOCAL);
                Semaphore s = device.createSemaphore(0)) {
            device.queueBarrier(1L, NONE, SemaphoreList.of(local, 1), 0);
            device.queueBarrier(1L, SemaphoreList.of(local, 1), SemaphoreList.of(s, 1), 0);
            s.await(1, Timeout.infinite());
            assertFalse(device.queueFrontier(0).isTainted(), device.queueFrontier(0).toString());
            assertFalse(frontierAt(s, 1).isTainted());
            Buffer a = device.queueAlloca(1L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2),
                    BufferParams.deviceLocal(), 4096, 0);
            device.queueDealloca(1L, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), a, 0);
            Buffer b = device.queueAlloca(1L, SemaphoreList.of(s, 3), SemaphoreList.of(s, 4),
                    BufferParams.deviceLocal(), 4096, 0);
            s.await(4, Timeout.infinite());
            long[] counters = device.poolCounters();
            assertEquals(1, counters[3], "same-queue reuse was dominated by the queue's frontier");
            assertEquals(0, counters[4], "no import was needed");
            a.release();
            b.release();
        }
    }

    @Test
    void aLateWaitOnAPrunedValueDoesNotTaintTheWaitersLaterSignals() {
        try (LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=1");
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0)) {
            int values = TimelineSemaphore.DEFAULT_FRONTIER_VALUES * 3;
            for (int v = 1; v <= values; v++) {
                device.queueBarrier(1L, NONE, SemaphoreList.of(s, v), 0);
                s.await(v, Timeout.infinite());
            }
            assertTrue(frontierAt(s, 1).isTainted(), "value 1 was pruned from the ring");
            device.queueBarrier(2L, SemaphoreList.of(s, 1), SemaphoreList.of(t, 1), 0);
            t.await(1, Timeout.infinite());
            assertFalse(device.queueFrontier(1).isTainted(), device.queueFrontier(1).toString());
            assertFalse(frontierAt(t, 1).isTainted());
            assertFalse(((TimelineSemaphore) t).isValueTainted(1));
        }
    }

    @Test
    void aChainThroughMoreQueuesThanASemaphoreFrontierHoldsKeepsEverySignalComplete() {
        int queues = 12; // semaphore frontiers hold 8 axes, queue frontiers 16
        try (LocalTaskDevice device = device("local-task://?queue_count=" + queues + "&task_topology_group_count=1")) {
            Semaphore[] links = new Semaphore[queues + 1];
            try {
                for (int i = 0; i <= queues; i++) {
                    links[i] = device.createSemaphore(0);
                }
                links[0].signal(1);
                for (int round = 1; round <= 2; round++) {
                    for (int q = 0; q < queues; q++) {
                        device.queueBarrier(1L << q, SemaphoreList.of(links[q], round),
                                SemaphoreList.of(links[q + 1], round), 0);
                    }
                    links[queues].await(round, Timeout.infinite());
                    if (round == 1) {
                        links[0].signal(2);
                    }
                }
                for (int i = 1; i <= queues; i++) {
                    Frontier f = frontierAt(links[i], 2);
                    assertFalse(f.isTainted(), "link " + i + ": " + f);
                    assertTrue(f.size() <= TimelineSemaphore.DEFAULT_FRONTIER_AXES, f.toString());
                    assertEquals(2, f.epochOf(device.queueAxis(i - 1)), "link " + i + " keeps its signaller: " + f);
                    assertFalse(((TimelineSemaphore) links[i]).isValueTainted(2), "link " + i);
                }
                Frontier last = device.queueFrontier(queues - 1);
                assertFalse(last.isTainted(), last.toString());
                assertEquals(2, last.epochOf(device.queueAxis(queues - 2)), last.toString());
            } finally {
                for (Semaphore s : links) {
                    if (s != null) {
                        s.release();
                    }
                }
            }
        }
    }

    @Test
    void queueAxesAreUniqueAcrossDriversAndFactories() {
        Set<Long> seen = new HashSet<>();
        for (int d = 0; d < 4; d++) {
            LocalTaskDriverFactory factory = new LocalTaskDriverFactory(libraries, LocalTaskOptions.DEFAULTS);
            try (LocalTaskDriver driver = (LocalTaskDriver) factory.createDriver(LocalTaskDriver.NAME);
                    LocalTaskDevice device = (LocalTaskDevice) driver.createDevice(
                            DeviceUri.parse("local-task://?queue_count=2&task_topology_group_count=1"))) {
                for (int q = 0; q < 2; q++) {
                    assertTrue(seen.add(device.queueAxis(q)), "axis " + Axis.toString(device.queueAxis(q)) + " reused");
                }
            } finally {
                factory.close();
            }
        }
    }

    @Test
    void aDeviceCreatedAfterTheAxesRanOutWorksAndItsSignalsAreTainted() {
        QueueAxes one = new QueueAxes(0, 0, 1);
        try (LocalTaskDevice first = device("local-task://?task_topology_group_count=1", one);
                LocalTaskDevice second = device("local-task://?task_topology_group_count=1", one);
                Semaphore s = second.createSemaphore(0); Semaphore t = first.createSemaphore(0)) {
            assertTrue(Axis.isValid(first.queueAxis(0)));
            assertFalse(Axis.isValid(second.queueAxis(0)), "no axis was left for the second device");
            assertNotEquals(first.queueAxis(0), second.queueAxis(0));
            second.queueBarrier(1L, NONE, SemaphoreList.of(s, 1), 0);
            s.await(1, Timeout.infinite());
            assertTrue(frontierAt(s, 1).isTainted(), "a queue without an axis cannot vouch for its signal");
            assertTrue(((TimelineSemaphore) s).isValueTainted(1));
            first.queueBarrier(1L, SemaphoreList.of(s, 1), SemaphoreList.of(t, 1), 0);
            t.await(1, Timeout.infinite());
            assertFalse(frontierAt(t, 1).isTainted(), "the first device's next signal is complete again");
        }
    }
}
