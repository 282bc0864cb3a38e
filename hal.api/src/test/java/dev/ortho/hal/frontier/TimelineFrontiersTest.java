package dev.ortho.hal.frontier;

import static dev.ortho.hal.frontier.AxisTest.assertStatus;
import static dev.ortho.hal.frontier.FrontierTest.A;
import static dev.ortho.hal.frontier.FrontierTest.B;
import static dev.ortho.hal.frontier.FrontierTest.C;
import static dev.ortho.hal.frontier.FrontierTest.f;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TimelineFrontiersTest {

    private static Frontier at(TimelineFrontiers timeline, long value) {
        Frontier out = new Frontier(16);
        assertTrue(timeline.frontierAt(value, out), "value " + value + " should be reached");
        return out;
    }

    /** Seed 002, "Transitivity": Q_C learns of Q_A's work through S_2 without touching S_1. */
    @Test
    void threeQueueChainPropagatesKnowledgeTransitively() {
        TimelineFrontiers s1 = new TimelineFrontiers(0, 4, 16);
        TimelineFrontiers s2 = new TimelineFrontiers(0, 4, 16);
        Frontier queueA = new Frontier(16);
        Frontier queueB = new Frontier(16);
        Frontier queueC = new Frontier(16);
        Frontier imported = new Frontier(16);

        queueA.insertOrRaise(A, 5);
        s1.signal(1, queueA);
        assertEquals(f("{q0.0:5}"), at(s1, 1));

        assertTrue(s1.frontierAt(1, imported));
        queueB.merge(imported);
        queueB.insertOrRaise(B, 3);
        s2.signal(1, queueB);
        assertEquals(f("{q0.0:5, q0.1:3}"), at(s2, 1));

        assertTrue(s2.frontierAt(1, imported));
        queueC.merge(imported);
        queueC.insertOrRaise(C, 1);
        assertEquals(f("{q0.0:5, q0.1:3, q0.2:1}"), queueC);
        assertTrue(queueC.dominates(f("{q0.0:5}")), "Q_C knows Q_A's epoch 5 transitively");
        assertEquals(FrontierComparison.AFTER, Frontier.compare(queueC, at(s1, 1)));
    }

    /** Seed 002, "Scheduling vs. Causality": a waiter for S >= 2 imports value 2's frontier. */
    @Test
    void waiterImportsTheFrontierOfTheValueItWaitedForNotTheCurrentOne() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 8, 16);
        Frontier queue = new Frontier(16);
        for (long value = 1; value <= 5; value++) {
            queue.insertOrRaise(A, 10 * value);
            semaphore.signal(value, queue);
        }
        assertEquals(5, semaphore.currentValue());
        assertEquals(f("{q0.0:20}"), at(semaphore, 2));
        assertEquals(f("{q0.0:50}"), at(semaphore, 5));
    }

    @Test
    void waiterBetweenSignalledValuesImportsTheNextSignalledValue() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 8, 16);
        semaphore.signal(2, f("{q0.0:2}"));
        semaphore.signal(5, f("{q0.1:5}"));
        assertEquals(f("{q0.0:2}"), at(semaphore, 1));
        assertEquals(f("{q0.1:5}"), at(semaphore, 3));
        assertEquals(f("{q0.1:5}"), at(semaphore, 5));
    }

    @Test
    void unreachedValueReportsFalseAndLeavesTheOutputAlone() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 8, 16);
        semaphore.signal(1, f("{q0.0:1}"));
        Frontier out = f("{q0.2:9}");
        assertFalse(semaphore.frontierAt(2, out));
        assertEquals(f("{q0.2:9}"), out);
    }

    @Test
    void valuesUpToTheInitialValueHaveNoCausalHistory() {
        TimelineFrontiers semaphore = new TimelineFrontiers(10, 4, 16);
        assertEquals(10, semaphore.currentValue());
        assertEquals(10, semaphore.untaintedWatermark());
        assertEquals(f("{}"), at(semaphore, 0));
        assertEquals(f("{}"), at(semaphore, 10));
        assertFalse(semaphore.frontierAt(11, new Frontier(1)));
        assertStatus(StatusCode.INVALID_ARGUMENT, "signal to 10 does not advance the current value 10",
                () -> semaphore.signal(10, null));
    }

    @Test
    void prunedValuesAnswerAnEmptyTaintedFrontier() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 3, 16);
        for (long value = 1; value <= 5; value++) {
            semaphore.signal(value, Frontier.parse("{q0.0:" + value + "}", 4));
        }
        Frontier pruned = at(semaphore, 2);
        assertEquals("{...}", pruned.toString());
        assertFalse(f("{q0.0:99, q0.1:99}").dominates(pruned), "a pruned requirement is never proven");
        assertEquals(f("{q0.0:3}"), at(semaphore, 3));
        assertEquals(f("{q0.0:5}"), at(semaphore, 5));
        assertFalse(semaphore.isValueTainted(2), "the watermark still proves value 2 was reached");
    }

    @Test
    void externalSignalsAreTaintedAndHoldTheWatermarkUntilAWitnessedSignal() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 8, 16);
        semaphore.signal(1, f("{q0.0:1}"));
        semaphore.signalExternal(2, null);
        semaphore.signalExternal(3, f("{q0.1:4}"));
        assertEquals(1, semaphore.untaintedWatermark());
        assertFalse(semaphore.isValueTainted(1));
        assertTrue(semaphore.isValueTainted(2));
        assertEquals("{...}", at(semaphore, 2).toString());
        assertEquals("{q0.1:4, ...}", at(semaphore, 3).toString());
        assertFalse(f("{q0.0:9, q0.1:9}").dominates(at(semaphore, 3)), "waits on external values are never elided");

        semaphore.signal(4, f("{q0.0:4}"));
        assertEquals(4, semaphore.untaintedWatermark());
        assertFalse(semaphore.isValueTainted(3), "as in IREE, a witnessed signal past the range recovers");
        assertTrue(at(semaphore, 3).isTainted(), "but the frontier recorded at value 3 stays incomplete");
        assertEquals(f("{q0.0:4}"), at(semaphore, 4));
    }

    @Test
    void overflowingOrTaintedSignalFrontiersAreRecordedTaintedAndHoldTheWatermark() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 8, 1);
        semaphore.signal(1, f("{q0.0:1}"));
        semaphore.signal(2, f("{q0.0:1, q0.1:2}"));
        assertEquals(1, semaphore.untaintedWatermark());
        assertEquals("{q0.1:2, ...}", at(semaphore, 2).toString());
        semaphore.signal(3, f("{q0.0:3, ...}"));
        assertEquals(1, semaphore.untaintedWatermark());
        semaphore.signal(4, null);
        assertEquals(4, semaphore.untaintedWatermark());
        assertEquals(f("{}"), at(semaphore, 4));
    }

    @Test
    void signalledFrontiersAreCopiedNotRetained() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 8, 16);
        Frontier queue = f("{q0.0:1}");
        semaphore.signal(1, queue);
        queue.insertOrRaise(A, 7);
        assertEquals(f("{q0.0:1}"), at(semaphore, 1));
        Frontier small = new Frontier(1);
        semaphore.signal(2, f("{q0.0:2, q0.1:3}"));
        assertTrue(semaphore.frontierAt(2, small));
        assertEquals("{q0.1:3, ...}", small.toString(), "an output too small evicts and taints");
    }

    @Test
    void signalsMustMoveForwardUnsigned() {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 8, 16);
        semaphore.signal(3, null);
        assertStatus(StatusCode.INVALID_ARGUMENT, "signal to 3 does not advance the current value 3",
                () -> semaphore.signal(3, null));
        assertStatus(StatusCode.INVALID_ARGUMENT, "signal to 2 does not advance",
                () -> semaphore.signalExternal(2, null));
        semaphore.signal(-1L, null);
        assertEquals(-1L, semaphore.currentValue());
        assertStatus(StatusCode.INVALID_ARGUMENT, "current value 18446744073709551615",
                () -> semaphore.signal(4, null));
        assertEquals(f("{}"), at(semaphore, 1L << 63));
    }

    @Test
    void badCapacitiesFailWithTheirCodes() {
        assertStatus(StatusCode.INVALID_ARGUMENT, "value capacity 0", () -> new TimelineFrontiers(0, 0, 4));
        assertStatus(StatusCode.OUT_OF_RANGE, "value capacity 65537", () -> new TimelineFrontiers(0, 65537, 4));
        assertStatus(StatusCode.INVALID_ARGUMENT, "frontier capacity 0", () -> new TimelineFrontiers(0, 4, 0));
        assertStatus(StatusCode.OUT_OF_RANGE, "frontier capacity 300", () -> new TimelineFrontiers(0, 4, 300));
    }

    @Test
    void concurrentReadersSeeTheFrontierOfTheSatisfyingValueOrAPrunedOne() throws Exception {
        TimelineFrontiers semaphore = new TimelineFrontiers(0, 64, 4);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            Random random = new Random(6);
            Frontier out = new Frontier(4);
            try {
                long current;
                do {
                    current = semaphore.currentValue();
                    long wanted = Math.max(1, current - random.nextInt(32));
                    if (current > 0) {
                        assertTrue(semaphore.frontierAt(wanted, out));
                        long expected = wanted % 2 == 0 ? wanted : wanted + 1;
                        assertTrue(out.epochOf(A) == expected || out.toString().equals("{...}"),
                                "value " + wanted + " gave " + out);
                    }
                } while (current < 20_000);
            } catch (Throwable t) {
                failure.set(t);
            }
        }, "timeline-reader");
        reader.start();
        Frontier queue = new Frontier(4);
        for (long value = 2; value <= 20_000; value += 2) {
            queue.insertOrRaise(A, value);
            semaphore.signal(value, queue);
        }
        reader.join(10_000);
        assertFalse(reader.isAlive());
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
    }

    /** Bytes the current thread allocates running {@code work}. */
    static long allocatedBy(Runnable work) {
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    /** Every call's fences create a timeline: it used to allocate all its frontiers up front (1.7 kB at 8x8). */
    @Test
    void aNewTimelineAllocatesOneFrontierAndTheOthersWhenFirstRecorded() {
        TimelineFrontiers[] keep = new TimelineFrontiers[1000];
        Runnable create = () -> {
            for (int k = 0; k < keep.length; k++) {
                keep[k] = new TimelineFrontiers(0, 8, 8);
            }
        };
        create.run();
        long perTimeline = allocatedBy(create) / keep.length;
        assertTrue(perTimeline < 700, "a new 8x8 timeline allocates " + perTimeline + " bytes");
        TimelineFrontiers t = keep[0];
        for (int v = 1; v <= 10; v++) {
            Frontier q = new Frontier(8);
            q.insertOrRaise(A, v);
            t.signal(v, q);
        }
        for (int v = 3; v <= 10; v++) {
            assertEquals(f("{q0.0:" + v + "}"), at(t, v), "value " + v + " after the ring wrapped");
        }
        assertStatus(StatusCode.INVALID_ARGUMENT, "frontier capacity 0", () -> new TimelineFrontiers(0, 8, 0));
    }

    /**
     * A fence's semaphore on a synchronous device is created and signalled once without a
     * frontier on every call: that records the empty untainted frontier as an empty slot, with no
     * frontier object (it allocated one per timeline, ~180 bytes at capacity 8, before issue 16's
     * {@code zoo3} work).
     */
    @Test
    void aSignalWithoutAFrontierAllocatesNoFrontierAndReadsEmptyAndUntainted() {
        TimelineFrontiers[] keep = new TimelineFrontiers[1000];
        Runnable createAndSignal = () -> {
            for (int k = 0; k < keep.length; k++) {
                keep[k] = new TimelineFrontiers(0, 8, 8);
                keep[k].signal(1, null);
            }
        };
        createAndSignal.run();
        long perTimeline = allocatedBy(createAndSignal) / keep.length;
        assertTrue(perTimeline < 300, "a new 8x8 timeline signalled once without a frontier allocates "
                + perTimeline + " bytes");
        TimelineFrontiers t = keep[0];
        assertEquals(f("{}"), at(t, 1));
        assertFalse(at(t, 1).isTainted());
        assertEquals(1, t.untaintedWatermark());
    }

    /** Slots alternate between frontiers and none as the ring wraps: each value reads what it recorded. */
    @Test
    void slotsReusedWithAndWithoutFrontiersReadWhatEachValueRecorded() {
        TimelineFrontiers t = new TimelineFrontiers(0, 3, 8);
        for (int v = 1; v <= 12; v++) {
            Frontier q = null;
            if (v % 2 == 0) {
                q = new Frontier(8);
                q.insertOrRaise(A, v);
            }
            t.signal(v, q);
            for (int w = Math.max(1, v - 2); w <= v; w++) {
                assertEquals(w % 2 == 0 ? f("{q0.0:" + w + "}") : f("{}"), at(t, w), "value " + w + " after " + v);
                assertFalse(at(t, w).isTainted(), "value " + w + " after " + v);
            }
        }
        t.signalExternal(13, null);
        assertTrue(at(t, 13).isTainted());
        assertEquals(12, t.untaintedWatermark());
        t.signal(14, null);
        assertEquals(f("{}"), at(t, 14));
        assertFalse(at(t, 14).isTainted());
        assertEquals(14, t.untaintedWatermark());
    }
}
