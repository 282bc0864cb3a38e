package dev.ortho.hal.frontier;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * A frontier: a sparse vector clock of (axis, epoch) entries sorted by ascending axis (unsigned,
 * as IREE's {@code iree_async_frontier_t}). It asserts "everything on each axis up to its epoch
 * is in my causal past"; axes that are absent count as epoch 0. Epochs are unsigned 64-bit.
 *
 * <p><b>Capacity and taint.</b> A frontier holds at most {@link #capacity()} entries, fixed at
 * construction (1 to {@value #MAX_CAPACITY}, IREE's {@code uint8_t} entry count). When an
 * operation would need more, the entries with the smallest epochs are evicted (ties: the smaller
 * axis goes first) until the result fits, and the frontier becomes <em>tainted</em>: its entries
 * are then a lower bound of the exact clock. Taint is sticky until {@link #reset()} or
 * {@link #copyFrom}, and spreads through {@link #merge}. A tainted frontier stays sound:
 * <ul>
 *   <li>as <em>knowledge</em> ({@code this} in {@code this.dominates(other)}) it may miss axes,
 *       so it proves less, never more;
 *   <li>as a <em>requirement</em> ({@code other} in {@code this.dominates(other)}) it may miss
 *       prerequisites, so nothing is considered to dominate it (except itself).
 * </ul>
 * IREE's C merge ({@code iree_async_frontier_merge}) instead refuses an overflowing merge and
 * leaves the target unchanged, and its semaphores record the loss by holding back their
 * untainted watermark. Ortho follows the design document (seed 002): evict the smallest epoch,
 * mark the frontier tainted. Both keep a lower bound; eviction keeps the most recent knowledge.
 *
 * <p><b>Knowledge and requirements.</b> A frontier plays two roles. As <em>knowledge</em> (what a
 * queue has observed) it is always a lower bound of what happened, so losing entries never makes
 * it unsound: {@link #learn} merges without adopting or producing taint, and a queue's knowledge
 * therefore never stays tainted because of one incomplete import. As a <em>requirement</em> (the
 * causal past a signal attaches to a value) missing entries matter, which is what taint records.
 *
 * <p><b>Anchors.</b> A requirement built by a queue at the moment its operation at
 * {@code (axis, epoch)} completes is {@linkplain #anchor anchored} at that entry: whoever knows
 * the axis reached that epoch knows the operation completed, and with it every entry of its causal
 * past, listed or evicted. An anchored frontier is therefore never tainted; eviction (on overflow
 * or when {@linkplain #copyFrom copied} into a smaller frontier) never removes the anchor entry
 * and taints nothing. {@link #copyFrom} and {@link #copy} keep the anchor; {@link #merge},
 * {@link #learn} and {@link #reset} drop it (the result then describes more than the anchor's
 * past), {@link #insertOrRaise} keeps it (an entry only ever proves itself). This is how taint
 * recovers (seed 002, "Taint is not permanent"): the first signal a queue makes after an
 * incomplete import is complete again. Anchors are not part of the text form or of
 * {@link #equals}.
 *
 * <p><b>Cost.</b> {@link #insertOrRaise}, {@link #merge}, {@link #copyFrom}, {@link #compare},
 * {@link #dominates} and {@link #epochOf} never allocate; merge and compare are a single
 * merge-scan, O(n + m), plus O(capacity) per evicted entry on overflow.
 *
 * <p><b>Thread-safety.</b> Not thread-safe: a frontier is a mutable value owned by one thread
 * at a time (a queue, a semaphore under its lock). Concurrent reads without a writer are safe
 * once the frontier has been safely published. Arguments are only read during the call; no
 * method keeps a reference to another frontier.
 */
public final class Frontier {

    /** The largest capacity: IREE counts entries in a {@code uint8_t}. */
    public static final int MAX_CAPACITY = 255;

    private final long[] axes;
    private final long[] epochs;
    private int size;
    private boolean tainted;
    private boolean anchored;
    private long anchorAxis;

    /**
     * Creates an empty, untainted frontier holding up to {@code capacity} entries.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code capacity <= 0}, OUT_OF_RANGE if it
     *     exceeds {@value #MAX_CAPACITY}; both name the capacity
     */
    public Frontier(int capacity) {
        checkCapacity(capacity);
        axes = new long[capacity];
        epochs = new long[capacity];
    }

    /** The checks of {@link #Frontier(int)}, for holders that create their frontiers later. */
    static void checkCapacity(int capacity) {
        if (capacity <= 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "frontier capacity " + capacity + " must be at least 1");
        }
        if (capacity > MAX_CAPACITY) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "frontier capacity " + capacity + " exceeds " + MAX_CAPACITY);
        }
    }

    /** The fixed maximum number of entries. */
    public int capacity() {
        return axes.length;
    }

    /** The number of entries. */
    public int size() {
        return size;
    }

    /** Whether the frontier has no entries (it may still be tainted). */
    public boolean isEmpty() {
        return size == 0;
    }

    /**
     * Whether entries were lost (overflow, a tainted merge source, {@link #markTainted()}): the
     * entries are a lower bound of the exact clock, and no other frontier dominates this one.
     */
    public boolean isTainted() {
        return tainted;
    }

    /** Whether the frontier is {@linkplain #anchor anchored} (then it is never tainted). */
    public boolean isAnchored() {
        return anchored;
    }

    /**
     * The anchor's axis.
     *
     * @throws StatusException FAILED_PRECONDITION if the frontier is not anchored
     */
    public long anchorAxis() {
        if (!anchored) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "frontier " + this + " has no anchor");
        }
        return anchorAxis;
    }

    /**
     * The axis of entry {@code index}; entries are sorted by ascending unsigned axis.
     *
     * @throws StatusException OUT_OF_RANGE naming the index if it is not in [0, size)
     */
    public long axisAt(int index) {
        return axes[checkIndex(index)];
    }

    /**
     * The epoch of entry {@code index} (unsigned, never 0).
     *
     * @throws StatusException OUT_OF_RANGE naming the index if it is not in [0, size)
     */
    public long epochAt(int index) {
        return epochs[checkIndex(index)];
    }

    /** The epoch recorded for {@code axis}, or 0 if the frontier has no entry for it. */
    public long epochOf(long axis) {
        int index = indexOf(axis);
        return index >= 0 ? epochs[index] : 0;
    }

    /**
     * Raises {@code axis} to {@code epoch} (unsigned): adds the entry if absent, keeps the
     * larger epoch if present. Epoch 0 is a no-op (it is every axis's implicit epoch). A new
     * entry on a full frontier evicts the smallest epoch, possibly the new entry itself, and
     * taints the frontier.
     *
     * @throws StatusException INVALID_ARGUMENT naming the axis if it is not {@linkplain
     *     Axis#isValid valid}
     */
    public void insertOrRaise(long axis, long epoch) {
        Axis.validate(axis);
        if (epoch == 0) {
            return;
        }
        int index = indexOf(axis);
        if (index >= 0) {
            if (Long.compareUnsigned(epoch, epochs[index]) > 0) {
                epochs[index] = epoch;
            }
        } else {
            offerNew(axis, epoch, -index - 1);
        }
    }

    /**
     * Joins {@code source} into this frontier: each axis takes the larger epoch, axes only in
     * {@code source} are added (the lattice join, IREE's {@code iree_async_frontier_merge}). If
     * the exact join does not fit, the smallest epochs are evicted and this frontier is tainted;
     * if {@code source} is tainted, so is this frontier afterwards.
     */
    public void merge(Frontier source) {
        if (source == this) {
            return;
        }
        anchored = false;
        tainted |= source.tainted;
        int n = size;
        int m = source.size;
        if (m == 0) {
            return;
        }
        long[] sourceAxes = source.axes;
        int i = 0;
        int j = 0;
        int count = 0;
        while (i < n && j < m) {
            int order = Long.compareUnsigned(axes[i], sourceAxes[j]);
            if (order <= 0) {
                i++;
            }
            if (order >= 0) {
                j++;
            }
            count++;
        }
        count += (n - i) + (m - j);
        if (count <= axes.length) {
            mergeInPlace(source, count);
        } else {
            mergeOverflowSlowPath(source);
        }
    }

    /**
     * Joins {@code source} into this frontier as <em>knowledge</em>: entries as {@link #merge},
     * but neither {@code source}'s taint nor an overflow taints this frontier, since knowledge is
     * only ever claimed as a lower bound of what happened (see the class comment). Use it for a
     * queue's view of the world, never for a requirement. Drops the anchor; keeps this frontier's
     * own taint flag as it was.
     */
    public void learn(Frontier source) {
        if (source == this) {
            return;
        }
        boolean keep = tainted;
        merge(source);
        tainted = keep;
    }

    /**
     * Makes this frontier a copy of {@code source}, including its taint and anchor. If
     * {@code source} has more entries than this frontier's capacity, the smallest epochs are
     * evicted: an unanchored copy is then tainted, an anchored one keeps the anchor entry and
     * stays untainted.
     */
    public void copyFrom(Frontier source) {
        if (source == this) {
            return;
        }
        reset();
        if (!source.anchored) {
            merge(source);
            return;
        }
        anchored = true;
        anchorAxis = source.anchorAxis;
        if (source.size <= axes.length) {
            System.arraycopy(source.axes, 0, axes, 0, source.size);
            System.arraycopy(source.epochs, 0, epochs, 0, source.size);
            size = source.size;
            return;
        }
        int anchorIndex = source.indexOf(anchorAxis);
        insertAt(0, anchorAxis, source.epochs[anchorIndex]);
        for (int k = 0; k < source.size; k++) {
            if (k != anchorIndex) {
                offerNew(source.axes[k], source.epochs[k], -indexOf(source.axes[k]) - 1);
            }
        }
    }

    /**
     * Declares this frontier the causal past of the operation that completes at
     * {@code (axis, epoch)}: raises that entry (as {@link #insertOrRaise}), pins it against
     * eviction (on a full frontier the smallest other entry makes room) and clears the taint,
     * because knowing the axis reached {@code epoch} implies every entry that was or will be
     * evicted. Call it only where that is true: on a copy of a queue's knowledge taken when the
     * queue's operation at {@code epoch} retires.
     *
     * @throws StatusException INVALID_ARGUMENT naming the axis if it is not {@linkplain
     *     Axis#isValid valid}, or if {@code epoch} is 0 (no operation completes at epoch 0)
     */
    public void anchor(long axis, long epoch) {
        Axis.validate(axis);
        if (epoch == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "cannot anchor frontier at " + Axis.toString(axis) + ":0; epoch 0 names no operation");
        }
        int index = indexOf(axis);
        if (index >= 0) {
            if (Long.compareUnsigned(epoch, epochs[index]) > 0) {
                epochs[index] = epoch;
            }
        } else {
            if (size == axes.length) {
                int smallest = smallestEpochIndex(-1);
                removeAt(smallest);
                index = indexOf(axis);
            }
            insertAt(-index - 1, axis, epoch);
        }
        anchored = true;
        anchorAxis = axis;
        tainted = false;
    }

    /** Removes every entry, the taint and the anchor. */
    public void reset() {
        size = 0;
        tainted = false;
        anchored = false;
    }

    /**
     * Marks this frontier tainted: its entries are declared incomplete (for example a frontier
     * received from a peer that truncated it, or the causal context of an external signal).
     */
    public void markTainted() {
        tainted = true;
    }

    /**
     * Whether this frontier's knowledge subsumes {@code other}: every entry of {@code other} is
     * matched by an entry here with an equal or larger epoch. Never optimistic: returns
     * {@code false} if {@code other} is tainted (unless it is this very frontier), since its
     * evicted entries might not be dominated. A tainted {@code this} is a lower bound, so a
     * {@code true} answer stays sound.
     */
    public boolean dominates(Frontier other) {
        if (other == this) {
            return true;
        }
        if (other.tainted) {
            return false;
        }
        int n = size;
        int i = 0;
        for (int j = 0; j < other.size; j++) {
            long axis = other.axes[j];
            while (i < n && Long.compareUnsigned(axes[i], axis) < 0) {
                i++;
            }
            if (i == n || axes[i] != axis || Long.compareUnsigned(epochs[i], other.epochs[j]) < 0) {
                return false;
            }
            i++;
        }
        return true;
    }

    /**
     * The causal relationship of {@code a} to {@code b} (IREE's {@code iree_async_frontier_compare}:
     * BEFORE means {@code a} happens-before {@code b}). Exact for untainted frontiers; with taint,
     * only dominance that {@link #dominates} would confirm is claimed (see
     * {@link FrontierComparison}). Consistent with {@code dominates}: the answer is EQUAL or
     * AFTER exactly when {@code a.dominates(b)}, EQUAL or BEFORE exactly when
     * {@code b.dominates(a)}.
     */
    public static FrontierComparison compare(Frontier a, Frontier b) {
        boolean hasLess = false;
        boolean hasGreater = false;
        int i = 0;
        int j = 0;
        while (i < a.size && j < b.size) {
            int order = Long.compareUnsigned(a.axes[i], b.axes[j]);
            if (order == 0) {
                int epochOrder = Long.compareUnsigned(a.epochs[i], b.epochs[j]);
                hasLess |= epochOrder < 0;
                hasGreater |= epochOrder > 0;
                i++;
                j++;
            } else if (order < 0) {
                hasGreater = true;
                i++;
            } else {
                hasLess = true;
                j++;
            }
        }
        hasGreater |= i < a.size;
        hasLess |= j < b.size;
        boolean same = a == b;
        boolean aDominates = !hasLess && (same || !b.tainted);
        boolean bDominates = !hasGreater && (same || !a.tainted);
        if (aDominates) {
            return bDominates ? FrontierComparison.EQUAL : FrontierComparison.AFTER;
        }
        return bDominates ? FrontierComparison.BEFORE : FrontierComparison.CONCURRENT;
    }

    /** A new frontier with the same capacity, entries, taint and anchor. */
    public Frontier copy() {
        Frontier copy = new Frontier(axes.length);
        copy.copyFrom(this);
        return copy;
    }

    /**
     * Equal when both have the same entries and the same taint (capacity is not compared).
     * Frontiers are mutable: do not use them as hash keys while they change.
     */
    @Override
    public boolean equals(Object object) {
        if (!(object instanceof Frontier other) || other.size != size || other.tainted != tainted) {
            return false;
        }
        for (int k = 0; k < size; k++) {
            if (axes[k] != other.axes[k] || epochs[k] != other.epochs[k]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        long hash = tainted ? 1 : 0;
        for (int k = 0; k < size; k++) {
            hash = hash * 31 + axes[k];
            hash = hash * 31 + epochs[k];
        }
        return Long.hashCode(hash);
    }

    /**
     * The text form: entries in axis order as {@code axis:epoch} with {@link Axis#toString(long)}
     * axes and unsigned decimal epochs, a trailing {@code ...} when tainted:
     * {@code {q0.1:5, q0.2:7}}, {@code {s1.m3.c42:9, ...}}, {@code {}}. {@link #parse} reads it
     * back.
     */
    @Override
    public String toString() {
        return FrontierText.format(this);
    }

    /**
     * Parses the {@link #toString()} form into a new frontier of {@code capacity} entries.
     * Whitespace around tokens is ignored; entries may come in any order; a final {@code ...}
     * marks the frontier tainted.
     *
     * @throws StatusException INVALID_ARGUMENT naming the text and the offending token if it is
     *     malformed, repeats an axis or has epoch 0 (IREE's {@code iree_async_frontier_validate}
     *     rejects zero epochs); OUT_OF_RANGE if it has more entries than {@code capacity} or an
     *     axis component exceeds its bits; capacity errors as {@link #Frontier(int)}
     */
    public static Frontier parse(String text, int capacity) {
        return FrontierText.parse(text, capacity);
    }

    private int checkIndex(int index) {
        if (index < 0 || index >= size) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "frontier entry index " + index + " is not in [0, " + size + ")");
        }
        return index;
    }

    /** Binary search by unsigned axis: the index, or {@code -(insertion point) - 1}. */
    private int indexOf(long axis) {
        int low = 0;
        int high = size - 1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            int order = Long.compareUnsigned(axes[mid], axis);
            if (order < 0) {
                low = mid + 1;
            } else if (order > 0) {
                high = mid - 1;
            } else {
                return mid;
            }
        }
        return -low - 1;
    }

    /** Right-to-left in-place join when {@code count}, the exact joined size, fits. */
    private void mergeInPlace(Frontier source, int count) {
        long[] sourceAxes = source.axes;
        long[] sourceEpochs = source.epochs;
        int ti = size - 1;
        int si = source.size - 1;
        int wi = count - 1;
        // wi >= ti throughout, so no target entry is overwritten before it has been read.
        while (ti >= 0 && si >= 0) {
            int order = Long.compareUnsigned(axes[ti], sourceAxes[si]);
            if (order > 0) {
                axes[wi] = axes[ti];
                epochs[wi] = epochs[ti--];
            } else if (order < 0) {
                axes[wi] = sourceAxes[si];
                epochs[wi] = sourceEpochs[si--];
            } else {
                axes[wi] = axes[ti];
                epochs[wi] = maxUnsigned(epochs[ti--], sourceEpochs[si--]);
            }
            wi--;
        }
        while (si >= 0) {
            axes[wi] = sourceAxes[si];
            epochs[wi--] = sourceEpochs[si--];
        }
        size = count;
    }

    /**
     * The exact join does not fit: raise the shared axes in place, then offer each axis only in
     * {@code source}; each offer on a full frontier evicts the smallest (epoch, axis). The
     * survivors are the {@code capacity} largest entries of the exact join.
     */
    private void mergeOverflowSlowPath(Frontier source) {
        int i = 0;
        int j = 0;
        while (i < size && j < source.size) {
            int order = Long.compareUnsigned(axes[i], source.axes[j]);
            if (order == 0) {
                epochs[i] = maxUnsigned(epochs[i], source.epochs[j]);
            }
            if (order <= 0) {
                i++;
            }
            if (order >= 0) {
                j++;
            }
        }
        for (j = 0; j < source.size; j++) {
            int index = indexOf(source.axes[j]);
            if (index < 0) {
                offerNew(source.axes[j], source.epochs[j], -index - 1);
            }
        }
    }

    /**
     * Adds an absent axis at {@code insertAt}; when full, the smallest (epoch, axis) is evicted,
     * never the anchor entry. Eviction taints an unanchored frontier (an anchored one loses only
     * entries its anchor implies).
     */
    private void offerNew(long axis, long epoch, int insertAt) {
        if (size < axes.length) {
            insertAt(insertAt, axis, epoch);
            return;
        }
        if (!anchored) {
            tainted = true;
        }
        int smallest = smallestEpochIndex(anchored ? indexOf(anchorAxis) : -1);
        if (smallest < 0) {
            return; // capacity 1 holding the anchor: nothing else fits
        }
        int order = Long.compareUnsigned(epoch, epochs[smallest]);
        if (order < 0 || (order == 0 && Long.compareUnsigned(axis, axes[smallest]) < 0)) {
            return;
        }
        removeAt(smallest);
        insertAt(insertAt > smallest ? insertAt - 1 : insertAt, axis, epoch);
    }

    /** The index of the smallest epoch (ties: the first, i.e. the smaller axis), skipping {@code skip}; -1 if none. */
    private int smallestEpochIndex(int skip) {
        int smallest = -1;
        for (int k = 0; k < size; k++) {
            if (k != skip && (smallest < 0 || Long.compareUnsigned(epochs[k], epochs[smallest]) < 0)) {
                smallest = k;
            }
        }
        return smallest;
    }

    private void removeAt(int index) {
        System.arraycopy(axes, index + 1, axes, index, size - index - 1);
        System.arraycopy(epochs, index + 1, epochs, index, size - index - 1);
        size--;
    }

    private void insertAt(int index, long axis, long epoch) {
        System.arraycopy(axes, index, axes, index + 1, size - index);
        System.arraycopy(epochs, index, epochs, index + 1, size - index);
        axes[index] = axis;
        epochs[index] = epoch;
        size++;
    }

    private static long maxUnsigned(long x, long y) {
        return Long.compareUnsigned(x, y) >= 0 ? x : y;
    }
}
