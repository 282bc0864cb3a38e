package dev.ortho.hal.frontier;

/**
 * The causal relationship of frontier {@code a} to frontier {@code b}, as answered by
 * {@link Frontier#compare}. Constants and their {@link #value()}s are IREE's
 * {@code iree_async_frontier_comparison_t}. Axes missing from a frontier count as epoch 0.
 *
 * <p>For untainted frontiers the answer is exact. When either side is {@linkplain
 * Frontier#isTainted() tainted} the answer only claims a direction of dominance it can prove:
 * {@link #EQUAL} and {@link #AFTER} imply {@code a.dominates(b)}, {@link #EQUAL} and
 * {@link #BEFORE} imply {@code b.dominates(a)}, and {@link #CONCURRENT} then also means "unknown".
 */
public enum FrontierComparison {
    /** Same causal position: each dominates the other. */
    EQUAL,
    /** {@code a} happens-before {@code b}: {@code b} dominates {@code a} and not the reverse. */
    BEFORE,
    /** {@code b} happens-before {@code a}: {@code a} dominates {@code b} and not the reverse. */
    AFTER,
    /** Neither dominates: each is ahead on some axis (or, with taint, dominance is unproven). */
    CONCURRENT;

    /** IREE's numeric value: EQUAL=0, BEFORE=1, AFTER=2, CONCURRENT=3. */
    public int value() {
        return ordinal();
    }
}
