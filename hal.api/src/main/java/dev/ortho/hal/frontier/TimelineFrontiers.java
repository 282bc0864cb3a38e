package dev.ortho.hal.frontier;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * The frontier side of one timeline semaphore: the frontier recorded at each signalled value,
 * the current value and the untainted watermark. A semaphore implementation owns one and calls
 * {@link #signal} / {@link #signalExternal} from its signal path.
 *
 * <p><b>Per-value frontiers.</b> A waiter for {@code S >= v} imports the frontier recorded at
 * the <em>smallest signalled value {@code >= v}</em> — the signal that actually satisfied it —
 * not the current one: if S went 1, 2, ..., 5 and a waiter wants {@code S >= 2}, it depends on
 * value 2's causal past only (seed 002, "Scheduling vs. Causality"). IREE's
 * {@code iree_async_semaphore_t} instead accumulates one frontier over all signals; Ortho keeps
 * one per value as the design document and issue 4 require, so frontiers stay tight.
 *
 * <p><b>Bounded memory.</b> The last {@code valueCapacity} signalled values are kept in a ring
 * of preallocated frontiers; older values are pruned. A waiter whose satisfying value was
 * pruned receives an <em>empty, tainted</em> frontier: as knowledge it teaches nothing, and as a
 * requirement nothing dominates it, so no wait is ever elided on the strength of a pruned value.
 *
 * <p><b>Taint.</b> {@link #signalExternal} records a value reached by work the scheduler did not
 * witness (an imported event, another process): its frontier is tainted. The untainted
 * watermark follows IREE's {@code last_untainted_value}: it starts at the initial value,
 * advances to {@code v} on each {@link #signal} whose recorded frontier is complete, and holds
 * still on external signals and on signals whose frontier overflowed (IREE holds it when its
 * merge overflows). A value {@code <= watermark} is proven reached by witnessed work: the
 * untainted signal that set the watermark reached at least that value. A queue's signal carries a
 * frontier {@linkplain Frontier#anchor anchored} at its own (axis, epoch), which stays untainted
 * however many entries this timeline's capacity evicts, so the watermark recovers at the first
 * queue signal after an external one (seed 002: "Taint is not permanent").
 *
 * <p><b>Thread-safety.</b> Thread-safe. Mutations and {@link #frontierAt} run under an internal
 * lock held for O(frontier capacity) work, never while calling out; {@link #currentValue()} and
 * {@link #untaintedWatermark()} are lock-free volatile reads. A ring slot's frontier is
 * allocated when the slot first records a non-empty (or tainted) frontier: a signal without a
 * frontier ({@code null}, what a synchronous device passes) records the empty untainted frontier
 * as an empty slot and allocates nothing; once every slot holds a frontier nothing allocates. Frontiers passed in are only read during the call (copied, never retained);
 * they must not be mutated concurrently by their owner during it. Nothing to close: the
 * storage is plain heap memory owned by this object.
 */
public final class TimelineFrontiers {

    /** The largest number of values a timeline may keep. */
    public static final int MAX_VALUE_CAPACITY = 1 << 16;

    private final Object lock = new Object();
    private final long initialValue;
    /** Ring of recorded values, ascending (unsigned) from {@code head}; guarded by lock. */
    private final long[] values;
    /**
     * The frontier recorded at {@code values[k]}: null, or a frontier whose {@code empty[k]} is set,
     * stands for the empty untainted frontier (a signal without one); guarded by lock.
     */
    private final Frontier[] frontiers;
    /** Whether slot {@code k} recorded the empty untainted frontier (its frontier object, if any, is stale). */
    private final boolean[] empty;
    private final int frontierCapacity;
    private int head;
    private int count;
    /** Whether any value was pruned, and the largest pruned value; guarded by lock. */
    private boolean pruned;
    private long prunedThrough;
    /** Written under lock, read lock-free: volatile store/load pair (release/acquire). */
    private volatile long currentValue;
    /** Written under lock, read lock-free: volatile store/load pair (release/acquire). */
    private volatile long untaintedWatermark;

    /**
     * Creates the frontier side of a semaphore whose timeline starts at {@code initialValue}
     * (unsigned) with no causal history: waiters for values {@code <= initialValue} import an
     * empty, untainted frontier.
     *
     * @param valueCapacity how many signalled values keep their frontier (1 to
     *     {@value #MAX_VALUE_CAPACITY})
     * @param frontierCapacity the capacity of each recorded frontier (see {@link Frontier})
     * @throws StatusException INVALID_ARGUMENT if a capacity is {@code <= 0}, OUT_OF_RANGE if it
     *     exceeds its maximum; the message names the capacity
     */
    public TimelineFrontiers(long initialValue, int valueCapacity, int frontierCapacity) {
        checkCapacities(valueCapacity, frontierCapacity);
        this.initialValue = initialValue;
        this.values = new long[valueCapacity];
        this.frontiers = new Frontier[valueCapacity];
        this.empty = new boolean[valueCapacity];
        // Frontiers are made when a slot first records one (a fence's semaphore is signalled once,
        // without a frontier on a synchronous device, and creating one is on the path of every call).
        this.frontierCapacity = frontierCapacity;
        currentValue = initialValue;
        untaintedWatermark = initialValue;
    }

    /**
     * Checks the capacities {@link #TimelineFrontiers} takes, for owners that create the table only
     * when first needed.
     *
     * @throws StatusException as {@link #TimelineFrontiers}
     * @since 1.2
     */
    public static void checkCapacities(int valueCapacity, int frontierCapacity) {
        if (valueCapacity <= 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "timeline value capacity " + valueCapacity + " must be at least 1");
        }
        if (valueCapacity > MAX_VALUE_CAPACITY) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "timeline value capacity " + valueCapacity + " exceeds " + MAX_VALUE_CAPACITY);
        }
        Frontier.checkCapacity(frontierCapacity);
    }

    /** The latest signalled value (the initial value before any signal). Lock-free. */
    public long currentValue() {
        return currentValue; // acquire: pairs with the release in record()
    }

    /** The untainted watermark: values at or below it were reached by witnessed work. Lock-free. */
    public long untaintedWatermark() {
        return untaintedWatermark; // acquire: pairs with the release in record()
    }

    /**
     * Whether {@code value} lies above the untainted watermark, so that reaching it may rest on
     * work the scheduler did not witness (IREE's {@code iree_async_semaphore_is_value_tainted}).
     * Lock-free.
     */
    public boolean isValueTainted(long value) {
        return Long.compareUnsigned(value, untaintedWatermark()) > 0;
    }

    /**
     * Records a signal by witnessed work: the timeline reaches {@code value} and {@code frontier}
     * (the signaller's causal past, including its own axis; {@code null} for none) is copied as
     * value's frontier. The watermark advances to {@code value} unless the recorded frontier is
     * tainted ({@code frontier} was tainted or did not fit the capacity).
     *
     * @throws StatusException INVALID_ARGUMENT naming both values if {@code value} is not
     *     greater (unsigned) than the current value
     */
    public void signal(long value, Frontier frontier) {
        record(value, frontier, false);
    }

    /**
     * Records a signal by work the scheduler did not witness (an imported event, a signal from
     * another process): the timeline reaches {@code value} and value's frontier is
     * {@code partial} (what is known, {@code null} for nothing) marked tainted. The watermark
     * does not move.
     *
     * @throws StatusException INVALID_ARGUMENT naming both values if {@code value} is not
     *     greater (unsigned) than the current value
     */
    public void signalExternal(long value, Frontier partial) {
        record(value, partial, true);
    }

    /**
     * Copies into {@code out} (owned by the caller) the frontier a waiter for
     * {@code S >= value} imports: the one recorded at the smallest signalled value
     * {@code >= value}; an empty untainted frontier if {@code value <= } the initial value; an
     * empty tainted frontier if that signal was pruned. If {@code out} is too small the
     * smallest epochs are evicted and it is tainted (see {@link Frontier#copyFrom}).
     * Allocation-free.
     *
     * @return {@code false}, leaving {@code out} unchanged, if the timeline has not reached
     *     {@code value} yet (the wait is not satisfied); {@code true} otherwise
     */
    public boolean frontierAt(long value, Frontier out) {
        synchronized (lock) {
            if (Long.compareUnsigned(value, currentValue) > 0) {
                return false;
            }
            if (Long.compareUnsigned(value, initialValue) <= 0) {
                out.reset();
            } else if (pruned && Long.compareUnsigned(value, prunedThrough) <= 0) {
                out.reset();
                out.markTainted();
            } else {
                int slot = slotOfSmallestAtLeast(value);
                if (empty[slot]) {
                    out.reset();
                } else {
                    out.copyFrom(frontiers[slot]);
                }
            }
            return true;
        }
    }

    private void record(long value, Frontier frontier, boolean external) {
        synchronized (lock) {
            long current = currentValue;
            if (Long.compareUnsigned(value, current) <= 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "semaphore signal to " + Long.toUnsignedString(value)
                                + " does not advance the current value " + Long.toUnsignedString(current)
                                + "; timeline values only move forward");
            }
            int slot;
            if (count == values.length) {
                slot = head;
                pruned = true;
                prunedThrough = values[head];
                head = (head + 1) % values.length;
            } else {
                slot = (head + count++) % values.length;
            }
            boolean tainted;
            if (frontier == null && !external) {
                empty[slot] = true; // the empty untainted frontier: nothing to copy, nothing to allocate
                tainted = false;
            } else {
                Frontier recorded = frontiers[slot];
                if (recorded == null) {
                    recorded = new Frontier(frontierCapacity);
                    frontiers[slot] = recorded;
                }
                if (frontier == null) {
                    recorded.reset();
                } else {
                    recorded.copyFrom(frontier);
                }
                if (external) {
                    recorded.markTainted();
                }
                empty[slot] = false;
                tainted = recorded.isTainted();
            }
            values[slot] = value;
            currentValue = value; // release: pairs with the acquire in currentValue()
            if (!tainted) {
                untaintedWatermark = value; // release: pairs with the acquire in untaintedWatermark()
            }
        }
    }

    /** The ring slot of the smallest recorded value {@code >= value}; one must exist. */
    private int slotOfSmallestAtLeast(long value) {
        int low = 0;
        int high = count - 1;
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (Long.compareUnsigned(values[(head + mid) % values.length], value) < 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return (head + low) % values.length;
    }
}
