package dev.ortho.hal.frontier;

import static dev.ortho.hal.frontier.AxisTest.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class FrontierTest {

    // Queue axes A, B, C (device 0, queues 0..2) print as q0.0, q0.1, q0.2 and sort in that order.
    static final long A = Axis.queue(0, 0, 0, 0);
    static final long B = Axis.queue(0, 0, 0, 1);
    static final long C = Axis.queue(0, 0, 0, 2);

    static Frontier f(String text) {
        return Frontier.parse(text, 16);
    }

    static Frontier merged(Frontier a, Frontier b) {
        Frontier result = a.copy();
        result.merge(b);
        return result;
    }

    @Test
    void seedMergeExample() {
        assertEquals(f("{q0.0:5, q0.1:7, q0.2:4}"), merged(f("{q0.0:5, q0.1:3}"), f("{q0.0:2, q0.1:7, q0.2:4}")));
    }

    @Test
    void seedDominanceExamples() {
        assertTrue(f("{q0.0:5, q0.1:7, q0.2:4}").dominates(f("{q0.0:3, q0.1:7}")));
        assertFalse(f("{q0.0:5, q0.1:7}").dominates(f("{q0.0:3, q0.2:4}")));
        assertTrue(f("{q0.0:1}").dominates(f("{}")));
        assertFalse(f("{}").dominates(f("{q0.0:1}")));
    }

    @Test
    void seedInsertOrRaiseExamples() {
        Frontier frontier = f("{q0.0:5, q0.1:3}");
        frontier.insertOrRaise(C, 4);
        assertEquals(f("{q0.0:5, q0.1:3, q0.2:4}"), frontier);
        frontier = f("{q0.0:5, q0.1:3}");
        frontier.insertOrRaise(A, 8);
        assertEquals(f("{q0.0:8, q0.1:3}"), frontier);
        frontier.insertOrRaise(A, 2);
        assertEquals(8, frontier.epochOf(A));
        frontier.insertOrRaise(C, 0);
        assertEquals(2, frontier.size(), "epoch 0 is every axis's implicit epoch: nothing to insert");
    }

    @Test
    void compareFollowsIreesExamplesAndValues() {
        Frontier f1 = f("{q0.0:3, q0.1:5}");
        assertEquals(FrontierComparison.BEFORE, Frontier.compare(f1, f("{q0.0:4, q0.1:7}")));
        assertEquals(FrontierComparison.CONCURRENT, Frontier.compare(f1, f("{q0.0:5, q0.1:3}")));
        assertEquals(FrontierComparison.BEFORE, Frontier.compare(f1, f("{q0.0:3, q0.1:7}")));
        assertEquals(FrontierComparison.AFTER, Frontier.compare(f("{q0.0:3, q0.1:7}"), f1));
        assertEquals(FrontierComparison.EQUAL, Frontier.compare(f1, f("{q0.1:5, q0.0:3}")));
        assertEquals(FrontierComparison.AFTER, Frontier.compare(f("{q0.0:1, q0.1:5}"), f("{q0.1:5}")),
                "a frontier that mentions an extra axis is after one that does not");
        assertEquals(FrontierComparison.CONCURRENT, Frontier.compare(f("{q0.0:1}"), f("{q0.1:1}")));
        assertEquals(FrontierComparison.EQUAL, Frontier.compare(f("{}"), f("{}")));
        assertEquals(0, FrontierComparison.EQUAL.value());
        assertEquals(1, FrontierComparison.BEFORE.value());
        assertEquals(2, FrontierComparison.AFTER.value());
        assertEquals(3, FrontierComparison.CONCURRENT.value());
    }

    @Test
    void epochsAndAxesCompareUnsigned() {
        Frontier huge = f("{q0.0:18446744073709551615}");
        assertEquals(-1L, huge.epochOf(A));
        assertTrue(huge.dominates(f("{q0.0:5}")));
        assertEquals(FrontierComparison.AFTER, Frontier.compare(huge, f("{q0.0:9223372036854775808}")));
        assertEquals(-1L, merged(f("{q0.0:5}"), huge).epochOf(A));
        long high = Axis.queue(200, 0, 0, 0); // bit 63 set: sorts after session-0 axes
        Frontier frontier = new Frontier(4);
        frontier.insertOrRaise(high, 1);
        frontier.insertOrRaise(A, 1);
        assertEquals(A, frontier.axisAt(0));
        assertEquals(high, frontier.axisAt(1));
        assertEquals("{q0.0:1, s200.q0.0:1}", frontier.toString());
    }

    @Test
    void overflowEvictsTheSmallestEpochAndTaints() {
        Frontier frontier = Frontier.parse("{q0.0:5, q0.1:3}", 2);
        assertFalse(frontier.isTainted());
        frontier.insertOrRaise(C, 4);
        assertEquals("{q0.0:5, q0.2:4, ...}", frontier.toString());
        assertTrue(frontier.isTainted());
    }

    @Test
    void overflowDropsTheNewcomerWhenItIsTheSmallest() {
        Frontier frontier = Frontier.parse("{q0.0:5, q0.1:3}", 2);
        frontier.insertOrRaise(C, 2);
        assertEquals("{q0.0:5, q0.1:3, ...}", frontier.toString());
    }

    @Test
    void overflowTiesEvictTheSmallerAxis() {
        Frontier frontier = Frontier.parse("{q0.1:3, q0.2:3}", 2);
        frontier.insertOrRaise(A, 3);
        assertEquals("{q0.1:3, q0.2:3, ...}", frontier.toString());
        frontier = Frontier.parse("{q0.0:3, q0.2:3}", 2);
        frontier.insertOrRaise(B, 3);
        assertEquals("{q0.1:3, q0.2:3, ...}", frontier.toString());
    }

    @Test
    void overflowingMergeKeepsTheLargestEpochsOfTheExactJoin() {
        Frontier target = Frontier.parse("{q0.0:1, q0.1:9, q0.3:2}", 3);
        target.merge(f("{q0.0:8, q0.2:7, q0.4:3}"));
        assertEquals("{q0.0:8, q0.1:9, q0.2:7, ...}", target.toString());
    }

    @Test
    void learningKeepsTheEntriesButNeitherTheSourcesTaintNorAnOverflowTaints() {
        Frontier knowledge = new Frontier(2);
        knowledge.insertOrRaise(Axis.parse("q0.1"), 5);
        Frontier tainted = f("{q0.2:3, ...}");
        knowledge.learn(tainted);
        assertEquals(f("{q0.1:5, q0.2:3}"), knowledge);
        knowledge.learn(f("{q0.3:9}"));
        assertEquals(f("{q0.1:5, q0.3:9}"), knowledge, "the overflow evicted the smallest epoch");
        assertFalse(knowledge.isTainted());
    }

    @Test
    void anAnchoredFrontierIsNeverTaintedAndKeepsItsAnchorWhenCopiedSmaller() {
        Frontier queue = f("{q0.1:1, q0.2:2, q0.3:3, ...}");
        queue.anchor(Axis.parse("q0.4"), 1);
        assertFalse(queue.isTainted(), "the anchor implies every missing entry");
        assertTrue(queue.isAnchored());
        Frontier small = new Frontier(2);
        small.copyFrom(queue);
        assertEquals(f("{q0.3:3, q0.4:1}"), small, "the anchor survives although its epoch is the smallest");
        assertFalse(small.isTainted());
        assertEquals(Axis.parse("q0.4"), small.anchorAxis());
        assertTrue(f("{q0.3:3, q0.4:1}").dominates(small));
        Frontier unanchored = new Frontier(2);
        unanchored.copyFrom(f("{q0.1:1, q0.2:2, q0.3:3}"));
        assertTrue(unanchored.isTainted(), "an unanchored copy that lost entries is tainted");
    }

    @Test
    void anAnchorMakesRoomOnAFullFrontierAndMergingDropsIt() {
        Frontier full = f("{q0.1:4, q0.2:2}");
        Frontier capacityTwo = new Frontier(2);
        capacityTwo.copyFrom(full);
        capacityTwo.anchor(Axis.parse("q0.3"), 1);
        assertEquals(f("{q0.1:4, q0.3:1}"), capacityTwo);
        capacityTwo.insertOrRaise(Axis.parse("q0.5"), 9);
        assertEquals(f("{q0.3:1, q0.5:9}"), capacityTwo, "insertion evicts around the anchor");
        assertTrue(capacityTwo.isAnchored());
        capacityTwo.merge(f("{q0.6:7, ...}"));
        assertFalse(capacityTwo.isAnchored(), "a merged frontier describes more than the anchor's past");
        assertTrue(capacityTwo.isTainted());
        assertStatus(StatusCode.INVALID_ARGUMENT, "epoch 0", () -> new Frontier(1).anchor(Axis.parse("q0.1"), 0));
        assertStatus(StatusCode.FAILED_PRECONDITION, "no anchor", () -> new Frontier(1).anchorAxis());
    }

    @Test
    void mergeFromATaintedSourceTaintsTheTarget() {
        Frontier target = f("{q0.0:1}");
        target.merge(f("{q0.1:2, ...}"));
        assertEquals("{q0.0:1, q0.1:2, ...}", target.toString());
        target.merge(f("{}"));
        assertTrue(target.isTainted());
    }

    @Test
    void nothingDominatesATaintedRequirementButATaintedKnowledgeStillProves() {
        Frontier tainted = f("{q0.0:1, ...}");
        assertFalse(f("{q0.0:9, q0.1:9}").dominates(tainted));
        assertTrue(tainted.dominates(tainted), "a frontier is the same clock as itself");
        assertTrue(tainted.dominates(f("{q0.0:1}")));
        assertFalse(tainted.dominates(f("{q0.0:2}")));
        assertEquals(FrontierComparison.AFTER, Frontier.compare(tainted, f("{q0.0:1}")));
        assertEquals(FrontierComparison.BEFORE, Frontier.compare(f("{q0.0:1}"), tainted));
        assertEquals(FrontierComparison.CONCURRENT, Frontier.compare(tainted, f("{q0.0:1, ...}")));
        assertEquals(FrontierComparison.EQUAL, Frontier.compare(tainted, tainted));
    }

    @Test
    void copyResetAndMarkTainted() {
        Frontier source = f("{q0.0:5, q0.1:3, q0.2:4}");
        Frontier small = new Frontier(2);
        small.copyFrom(source);
        assertEquals("{q0.0:5, q0.2:4, ...}", small.toString());
        small.reset();
        assertEquals("{}", small.toString());
        assertTrue(small.isEmpty());
        small.copyFrom(f("{q0.1:1}"));
        assertEquals(f("{q0.1:1}"), small);
        small.markTainted();
        assertEquals("{q0.1:1, ...}", small.toString());
        Frontier copy = source.copy();
        assertEquals(source, copy);
        assertEquals(source.capacity(), copy.capacity());
        copy.insertOrRaise(A, 6);
        assertEquals(5, source.epochOf(A), "a copy is independent");
    }

    @Test
    void equalsAndHashCodeCoverEntriesAndTaintNotCapacity() {
        assertEquals(Frontier.parse("{q0.0:1}", 1), Frontier.parse("{q0.0:1}", 8));
        assertEquals(Frontier.parse("{q0.0:1}", 1).hashCode(), Frontier.parse("{q0.0:1}", 8).hashCode());
        assertNotEquals(f("{q0.0:1}"), f("{q0.0:1, ...}"));
        assertNotEquals(f("{q0.0:1}"), f("{q0.0:2}"));
        assertNotEquals(f("{q0.0:1}"), f("{q0.1:1}"));
        assertNotEquals(f("{q0.0:1}"), "{q0.0:1}");
    }

    @Test
    void textFormRoundTrips() {
        for (String text : new String[] {"{}", "{...}", "{q0.1:5, q0.2:7}", "{q0.0:1, h7:18446744073709551615, s1.m3.c42:9, ...}"}) {
            assertEquals(text, f(text).toString());
        }
        assertEquals(f("{q0.1:5, q0.2:7}"), f("  { q0.2 : 7 ,q0.1:5 }  "));
    }

    @Test
    void malformedTextFailsWithInvalidArgumentNamingTheText() {
        for (String text : new String[] {"", "{", "q0.1:5", "{q0.1}", "{q0.1:}", "{q0.1:x}", "{q0.1:-1}", "{q0.1:0}",
            "{q0.1:1, q0.1:2}", "{..., q0.1:1}", "{q0.1:1,}", "{,}", "{zz:1}"}) {
            assertStatus(StatusCode.INVALID_ARGUMENT, "'", () -> f(text));
        }
        assertStatus(StatusCode.INVALID_ARGUMENT, "epoch 0 is meaningless", () -> f("{q0.1:0}"));
        assertStatus(StatusCode.INVALID_ARGUMENT, "axis q0.1 appears twice", () -> f("{q0.1:1, q0.1:2}"));
        assertStatus(StatusCode.OUT_OF_RANGE, "18446744073709551616", () -> f("{q0.1:18446744073709551616}"));
        assertStatus(StatusCode.OUT_OF_RANGE, "more than 1 entries", () -> Frontier.parse("{q0.0:1, q0.1:1}", 1));
        assertStatus(StatusCode.INVALID_ARGUMENT, "null", () -> f(null));
    }

    @Test
    void badCapacityAndIndexAndAxisFailWithTheirCodes() {
        assertStatus(StatusCode.INVALID_ARGUMENT, "capacity 0", () -> new Frontier(0));
        assertStatus(StatusCode.INVALID_ARGUMENT, "capacity -3", () -> new Frontier(-3));
        assertStatus(StatusCode.OUT_OF_RANGE, "capacity 256 exceeds 255", () -> new Frontier(256));
        assertEquals(255, new Frontier(255).capacity());
        Frontier frontier = f("{q0.0:1}");
        assertStatus(StatusCode.OUT_OF_RANGE, "index 1 is not in [0, 1)", () -> frontier.axisAt(1));
        assertStatus(StatusCode.OUT_OF_RANGE, "index -1", () -> frontier.epochAt(-1));
        assertStatus(StatusCode.INVALID_ARGUMENT, "axis 0x0000000000000001", () -> frontier.insertOrRaise(1L, 1));
    }

    @Test
    void mergeCompareDominatesAndInsertDoNotAllocate() {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Frontier queue = new Frontier(8);
        Frontier other = f("{q0.0:3, q0.2:5, s1.c4:2}");
        Frontier full = Frontier.parse("{q0.0:1, q0.1:1}", 2);
        long[] sink = new long[1];
        Runnable work = () -> {
            for (int k = 1; k <= 20_000; k++) {
                queue.reset();
                queue.insertOrRaise(B, k);
                queue.merge(other);
                full.insertOrRaise(C, k);
                full.merge(other);
                sink[0] += Frontier.compare(queue, other).value() + (queue.dominates(other) ? 1 : 0)
                        + queue.epochOf(A);
            }
        };
        work.run();
        long before = threads.getCurrentThreadAllocatedBytes();
        work.run();
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 1024, "allocated " + allocated + " bytes for 100k operations");
        assertTrue(sink[0] > 0);
    }
}
