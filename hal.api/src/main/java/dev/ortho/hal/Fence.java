package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.spi.RefCount;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A set of semaphore timepoints treated as one ("all of these reached"): IREE's
 * {@code iree_hal_fence_t}. Each semaphore appears once; inserting it again keeps the larger
 * value (max-merge), so joining fences never weakens a wait.
 *
 * <p>Ownership: the fence retains each semaphore on first insertion and releases them all on its
 * last {@link #release()}. Thread-safe: insertions and reads may race; a read sees a consistent
 * snapshot.
 */
public final class Fence implements Resource {
    private static final Semaphore[] NO_SEMAPHORES = {};
    private static final long[] NO_VALUES = {};
    private final Object lock = new Object();
    private final RefCount references = new RefCount();
    private Semaphore[] semaphores = new Semaphore[2]; // guarded by lock
    private long[] values = new long[2]; // guarded by lock
    private int count; // guarded by lock
    private boolean destroyed; // guarded by lock
    /**
     * The timepoints as a list, made by the first {@link #toSemaphoreList} after a change and
     * shared by the later ones (a fence is read far more often than changed: every queue
     * operation it is passed to reads it); null when stale. Guarded by lock.
     */
    private SemaphoreList snapshot;

    /** An empty fence; it is reached at once. */
    public Fence() {}

    /** A fence with the single timepoint {@code semaphore >= value}. */
    public static Fence at(Semaphore semaphore, long value) {
        Fence fence = new Fence();
        fence.insert(semaphore, value);
        return fence;
    }

    /** A new fence that is reached when every one of {@code fences} is (a wait-all join). */
    public static Fence join(Fence... fences) {
        Fence joined = new Fence();
        for (Fence fence : fences) {
            joined.extend(fence);
        }
        return joined;
    }

    /**
     * Adds {@code semaphore >= value}; if the semaphore is present already, keeps the larger value.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code semaphore} is null, OUT_OF_RANGE if
     *     {@code value} is outside {@code [0, Semaphore.MAX_VALUE]}, FAILED_PRECONDITION if the
     *     fence was destroyed
     */
    public void insert(Semaphore semaphore, long value) {
        if (semaphore == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot insert a null semaphore into a fence");
        }
        if (value < 0 || value > Semaphore.MAX_VALUE) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "fence timepoint value " + value
                    + " is outside [0, " + Semaphore.MAX_VALUE + "]");
        }
        synchronized (lock) {
            if (destroyed) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "fence was released");
            }
            for (int i = 0; i < count; i++) {
                if (semaphores[i] == semaphore) {
                    if (value > values[i]) {
                        values[i] = value;
                        snapshot = null;
                    }
                    return;
                }
            }
            if (count == semaphores.length) {
                semaphores = Arrays.copyOf(semaphores, count * 2);
                values = Arrays.copyOf(values, count * 2);
            }
            semaphore.retain();
            semaphores[count] = semaphore;
            values[count] = value;
            count++;
            snapshot = null;
        }
    }

    /** Inserts every timepoint of {@code other} (IREE's {@code iree_hal_fence_extend}). */
    public void extend(Fence other) {
        SemaphoreList timepoints = other.toSemaphoreList();
        for (int i = 0; i < timepoints.size(); i++) {
            insert(timepoints.semaphore(i), timepoints.value(i));
        }
    }

    /**
     * Moves a reached fence on for reuse by its only holder: if the caller holds the only reference
     * to this fence, the fence has one timepoint, its semaphore is a {@link TimelineSemaphore}
     * that only this fence references, idle ({@link TimelineSemaphore#isIdleSoleReference}) and
     * reached, the timepoint becomes the semaphore's current value plus one (unreached) and this
     * returns true. Nobody else can tell the fence from a new one on a new semaphore (what IREE's
     * {@code hal.fence.create} makes), so a pool of such fences may hand it out again. Otherwise
     * nothing changes and this returns false (the caller releases the fence as usual).
     *
     * @since 2.3
     */
    public boolean renew() {
        if (references.count() != 1) {
            return false;
        }
        synchronized (lock) {
            if (destroyed || count != 1 || !(semaphores[0] instanceof TimelineSemaphore semaphore)
                    || !semaphore.isIdleSoleReference()) {
                return false;
            }
            long reached = semaphore.query(); // not failed: checked just above, and nobody else holds it
            if (reached < values[0] || reached >= Semaphore.MAX_VALUE) {
                return false;
            }
            values[0] = reached + 1; // the snapshot (if any) holds copies: dropped below
            snapshot = null;
            return true;
        }
    }

    /** How many distinct semaphores the fence holds. */
    public int timepointCount() {
        synchronized (lock) {
            return count;
        }
    }

    /**
     * A snapshot of the fence's timepoints, valid while the fence (or the caller) retains them.
     * Allocation-free while the fence is unchanged (the snapshot is kept until the next insertion).
     */
    public SemaphoreList toSemaphoreList() {
        synchronized (lock) {
            SemaphoreList list = snapshot;
            if (list == null) {
                list = count == 0 ? SemaphoreList.empty()
                        : SemaphoreList.adopt(Arrays.copyOf(semaphores, count), Arrays.copyOf(values, count));
                snapshot = list;
            }
            return list;
        }
    }

    /**
     * Whether every timepoint has been reached. Never blocks.
     *
     * @throws StatusException the failure of a failed semaphore (whenever in the timeline it
     *     failed, as IREE reports it)
     */
    public boolean query() {
        SemaphoreList timepoints = toSemaphoreList();
        boolean reached = true;
        for (int i = 0; i < timepoints.size(); i++) {
            if (timepoints.semaphore(i).query() < timepoints.value(i)) { // throws if failed
                reached = false;
            }
        }
        return reached;
    }

    /** Signals each semaphore to its value. See {@link SemaphoreList#signal()}. */
    public void signal() {
        toSemaphoreList().signal();
    }

    /** Fails every semaphore with {@code status}. */
    public void fail(StatusException status) {
        toSemaphoreList().fail(status);
    }

    /** Blocks until the fence is reached; see {@link SemaphoreList#awaitAll(Timeout)}. */
    public void await(Timeout timeout) {
        toSemaphoreList().awaitAll(timeout);
    }

    /**
     * A future completed when the fence is reached, or completed exceptionally with the first
     * failure. Completion runs on the thread that signals the last semaphore (or inline if the
     * fence is already reached); chain with the {@code …Async} methods to move work elsewhere.
     */
    public CompletableFuture<Void> toCompletableFuture() {
        SemaphoreList timepoints = toSemaphoreList();
        CompletableFuture<Void> future = new CompletableFuture<>();
        if (timepoints.isEmpty()) {
            future.complete(null);
            return future;
        }
        AtomicInteger remaining = new AtomicInteger(timepoints.size());
        for (int i = 0; i < timepoints.size(); i++) {
            timepoints.semaphore(i).addTimepoint(timepoints.value(i), (semaphore, value, failure) -> {
                if (failure != null) {
                    future.completeExceptionally(
                            new StatusException(failure.code(), failure.getMessage(), failure));
                } else if (remaining.decrementAndGet() == 0) {
                    future.complete(null);
                }
            });
        }
        return future;
    }

    @Override
    public void retain() {
        references.retain();
    }

    /** Drops a reference; the last one releases every semaphore the fence retained. */
    @Override
    public void release() {
        if (!references.release("fence")) {
            return;
        }
        Semaphore[] held;
        int heldCount;
        synchronized (lock) {
            destroyed = true;
            held = semaphores;
            heldCount = count;
            semaphores = NO_SEMAPHORES;
            values = NO_VALUES;
            count = 0;
            snapshot = null;
        }
        for (int i = 0; i < heldCount; i++) {
            held[i].release();
        }
    }

    @Override
    public String toString() {
        return "fence" + toSemaphoreList();
    }
}
