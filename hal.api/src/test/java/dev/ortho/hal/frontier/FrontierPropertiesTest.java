package dev.ortho.hal.frontier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Property tests over thousands of seeded random frontiers. Axes and epochs come from small
 * ranges so that shared axes, equal epochs and dominance happen often; a few axes and epochs use
 * the top bit to exercise unsigned ordering. Reference model: an unbounded TreeMap.
 */
class FrontierPropertiesTest {

    private static final long[] AXES = {
        Axis.queue(0, 0, 0, 0), Axis.queue(0, 0, 0, 1), Axis.queue(0, 0, 1, 0), Axis.queue(0, 0, 1, 1),
        Axis.queue(0, 1, 0, 0), Axis.collective(0, 0, 1), Axis.collective(0, 0, 2), Axis.host(0, 0, 3),
        Axis.queue(1, 0, 0, 0), Axis.queue(200, 0, 0, 0), Axis.host(255, 255, 9),
    };
    private static final long[] EPOCHS = {1, 2, 3, 4, 5, Long.MAX_VALUE, Long.MIN_VALUE, -1L};

    private static final int ROUNDS = 5_000;

    /** Exact vector clock: axis to epoch, unsigned order, no capacity. */
    private static final class Exact {
        final TreeMap<Long, Long> entries = new TreeMap<>(Comparator.comparing(x -> x, Long::compareUnsigned));

        void raise(long axis, long epoch) {
            entries.merge(axis, epoch, (x, y) -> Long.compareUnsigned(x, y) >= 0 ? x : y);
        }

        void merge(Exact other) {
            new ArrayList<>(other.entries.entrySet()).forEach(e -> raise(e.getKey(), e.getValue()));
        }

        boolean dominates(Exact other) {
            for (Map.Entry<Long, Long> e : other.entries.entrySet()) {
                if (Long.compareUnsigned(entries.getOrDefault(e.getKey(), 0L), e.getValue()) < 0) {
                    return false;
                }
            }
            return true;
        }

        /** Whether the bounded frontier's entries are pointwise at most this clock's. */
        boolean boundsFromAbove(Frontier frontier) {
            for (int k = 0; k < frontier.size(); k++) {
                long exact = entries.getOrDefault(frontier.axisAt(k), 0L);
                if (Long.compareUnsigned(frontier.epochAt(k), exact) > 0) {
                    return false;
                }
            }
            return true;
        }

        boolean sameAs(Frontier frontier) {
            if (frontier.size() != entries.size()) {
                return false;
            }
            int k = 0;
            for (Map.Entry<Long, Long> e : entries.entrySet()) {
                if (frontier.axisAt(k) != e.getKey() || frontier.epochAt(k++) != e.getValue()) {
                    return false;
                }
            }
            return true;
        }
    }

    private static long axis(Random random) {
        return AXES[random.nextInt(AXES.length)];
    }

    private static long epoch(Random random) {
        return random.nextInt(10) == 0 ? EPOCHS[random.nextInt(EPOCHS.length)] : 1 + random.nextInt(4);
    }

    /** A random frontier with room for every axis, so it never overflows. */
    private static Frontier roomy(Random random) {
        Frontier frontier = new Frontier(AXES.length);
        int entries = random.nextInt(6);
        for (int k = 0; k < entries; k++) {
            frontier.insertOrRaise(axis(random), epoch(random));
        }
        return frontier;
    }

    private static Exact exactOf(Frontier frontier) {
        Exact exact = new Exact();
        for (int k = 0; k < frontier.size(); k++) {
            exact.raise(frontier.axisAt(k), frontier.epochAt(k));
        }
        return exact;
    }

    private static Frontier join(Frontier a, Frontier b) {
        Frontier result = a.copy();
        result.merge(b);
        return result;
    }

    @Test
    void mergeIsTheExactComponentwiseMaximum() {
        Random random = new Random(1);
        for (int round = 0; round < ROUNDS; round++) {
            Frontier a = roomy(random);
            Frontier b = roomy(random);
            Exact expected = exactOf(a);
            expected.merge(exactOf(b));
            Frontier result = join(a, b);
            assertTrue(expected.sameAs(result), () -> a + " merge " + b + " = " + result);
            assertFalse(result.isTainted());
        }
    }

    @Test
    void mergeIsCommutativeAssociativeAndIdempotent() {
        Random random = new Random(2);
        for (int round = 0; round < ROUNDS; round++) {
            Frontier a = roomy(random);
            Frontier b = roomy(random);
            Frontier c = roomy(random);
            assertEquals(join(a, b), join(b, a), () -> a + " / " + b);
            assertEquals(join(join(a, b), c), join(a, join(b, c)), () -> a + " / " + b + " / " + c);
            assertEquals(a, join(a, a.copy()), a::toString);
            Frontier self = a.copy();
            self.merge(self);
            assertEquals(a, self);
        }
    }

    @Test
    void dominanceIsAPartialOrderConsistentWithMergeAndCompare() {
        Random random = new Random(3);
        int antisymmetricCases = 0;
        int transitiveCases = 0;
        for (int round = 0; round < ROUNDS; round++) {
            // Build chains c <= b <= a half of the time so that the order's laws are exercised.
            Frontier c = roomy(random);
            Frontier b = random.nextBoolean() ? join(c, roomy(random)) : roomy(random);
            Frontier a = random.nextBoolean() ? join(b, roomy(random)) : roomy(random);
            for (Frontier x : List.of(a, b, c)) {
                assertTrue(x.dominates(x.copy()), x::toString);
                assertEquals(FrontierComparison.EQUAL, Frontier.compare(x, x.copy()));
            }
            if (a.dominates(b) && b.dominates(a)) {
                antisymmetricCases++;
                assertEquals(a, b);
            }
            if (a.dominates(b) && b.dominates(c)) {
                transitiveCases++;
                assertTrue(a.dominates(c), () -> a + " >= " + b + " >= " + c);
            }
            Frontier ab = join(a, b);
            assertTrue(ab.dominates(a) && ab.dominates(b), () -> a + " v " + b + " = " + ab);
            assertEquals(a.dominates(b), ab.equals(a), () -> a + " / " + b);
            assertEquals(exactOf(a).dominates(exactOf(b)), a.dominates(b), () -> a + " / " + b);
            FrontierComparison ordering = Frontier.compare(a, b);
            FrontierComparison expected = a.dominates(b)
                    ? (b.dominates(a) ? FrontierComparison.EQUAL : FrontierComparison.AFTER)
                    : (b.dominates(a) ? FrontierComparison.BEFORE : FrontierComparison.CONCURRENT);
            assertEquals(expected, ordering, () -> a + " / " + b);
            FrontierComparison reverse = Frontier.compare(b, a);
            assertEquals(switch (ordering) {
                case BEFORE -> FrontierComparison.AFTER;
                case AFTER -> FrontierComparison.BEFORE;
                default -> ordering;
            }, reverse);
        }
        assertTrue(antisymmetricCases > 100, "antisymmetry exercised " + antisymmetricCases + " times");
        assertTrue(transitiveCases > 500, "transitivity exercised " + transitiveCases + " times");
    }

    @Test
    void overflowingMergeKeepsTheLargestEpochsOfTheExactJoin() {
        Random random = new Random(4);
        int overflows = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int capacity = 1 + random.nextInt(4);
            Frontier a = new Frontier(capacity);
            a.copyFrom(roomy(random));
            if (a.isTainted()) {
                continue;
            }
            Frontier b = roomy(random);
            Exact exact = exactOf(a);
            exact.merge(exactOf(b));
            a.merge(b);
            if (exact.entries.size() <= capacity) {
                assertTrue(exact.sameAs(a) && !a.isTainted(), a::toString);
                continue;
            }
            overflows++;
            assertTrue(a.isTainted());
            assertEquals(capacity, a.size());
            // Keep the capacity largest (epoch, axis) pairs of the exact join.
            List<Map.Entry<Long, Long>> ranked = new ArrayList<>(exact.entries.entrySet());
            ranked.sort((x, y) -> {
                int order = Long.compareUnsigned(y.getValue(), x.getValue());
                return order != 0 ? order : Long.compareUnsigned(y.getKey(), x.getKey());
            });
            Exact kept = new Exact();
            ranked.subList(0, capacity).forEach(e -> kept.raise(e.getKey(), e.getValue()));
            assertTrue(kept.sameAs(a), () -> "kept " + kept.entries + " but frontier is " + a);
        }
        assertTrue(overflows > 1000, "overflow exercised " + overflows + " times");
    }

    /**
     * Random operations on a pool of small frontiers that overflow constantly, each shadowed by
     * its exact clock. A tainted frontier must stay a lower bound of its exact clock, and every
     * dominance claimed by dominates or compare must hold for the exact clocks.
     */
    @Test
    void taintNeverLies() {
        Random random = new Random(5);
        int pool = 6;
        Frontier[] bounded = new Frontier[pool];
        Exact[] exact = new Exact[pool];
        for (int k = 0; k < pool; k++) {
            bounded[k] = new Frontier(1 + random.nextInt(3));
            exact[k] = new Exact();
        }
        int taintedClaims = 0;
        int checks = 0;
        for (int step = 0; step < 40 * ROUNDS; step++) {
            int target = random.nextInt(pool);
            int source = random.nextInt(pool);
            switch (random.nextInt(10)) {
                case 0 -> {
                    bounded[target].reset();
                    exact[target] = new Exact();
                }
                case 1 -> {
                    bounded[target].copyFrom(bounded[source]);
                    Exact copy = new Exact();
                    copy.merge(exact[source]);
                    exact[target] = copy;
                }
                case 2, 3, 4, 5 -> {
                    long axis = axis(random);
                    long epoch = epoch(random);
                    bounded[target].insertOrRaise(axis, epoch);
                    exact[target].raise(axis, epoch);
                }
                default -> {
                    bounded[target].merge(bounded[source]);
                    exact[target].merge(exact[source]);
                }
            }
            Frontier changed = bounded[target];
            if (changed.isTainted()) {
                assertTrue(exact[target].boundsFromAbove(changed), () -> changed + " above " + exact[target].entries);
            } else {
                assertTrue(exact[target].sameAs(changed), () -> changed + " vs " + exact[target].entries);
            }
            for (int other = 0; other < pool; other++) {
                Frontier a = bounded[target];
                Frontier b = bounded[other];
                boolean claimsAtLeast = a.dominates(b);
                boolean claimsAtMost = b.dominates(a);
                FrontierComparison ordering = Frontier.compare(a, b);
                assertEquals(claimsAtLeast,
                        ordering == FrontierComparison.EQUAL || ordering == FrontierComparison.AFTER);
                assertEquals(claimsAtMost,
                        ordering == FrontierComparison.EQUAL || ordering == FrontierComparison.BEFORE);
                if (claimsAtLeast && !exact[target].dominates(exact[other])) {
                    fail(a + " claims to dominate " + b + " but exactly " + exact[target].entries
                            + " does not dominate " + exact[other].entries);
                }
                if (claimsAtMost && !exact[other].dominates(exact[target])) {
                    fail(b + " claims to dominate " + a + " but exactly it does not");
                }
                if ((claimsAtLeast || claimsAtMost) && (a.isTainted() || b.isTainted()) && a != b) {
                    taintedClaims++;
                }
                checks++;
            }
        }
        assertTrue(taintedClaims > 1000, "dominance claimed with taint " + taintedClaims + " of " + checks);
    }
}
