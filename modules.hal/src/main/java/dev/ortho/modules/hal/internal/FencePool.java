package dev.ortho.modules.hal.internal;

import dev.ortho.hal.Device;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Resource;
import dev.ortho.hal.Semaphore;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The fences {@code hal.fence.create} hands out for one device of a module state, kept for reuse.
 * IREE's {@code fence.create} makes a fence on a new semaphore at 0, reached at 1; an IREE-compiled
 * program calls it once or twice per invocation and drops the fence when the invocation ends. A
 * fence whose last VM ref is released comes back here if it can be moved on unobserved
 * ({@link Fence#renew}: nobody else holds it or its semaphore, nothing is pending, it was
 * reached and not failed) and is handed out again at its semaphore's next value: a program cannot
 * tell it from a new one, and the call makes no fence, semaphore or lock objects. Anything else is
 * released as before.
 *
 * <p>At most {@value #SLOTS} idle fences are kept; {@link #free()} releases them (the state's
 * end). Thread-safe and lock-free (concurrent invocations of one context share the pool).
 */
final class FencePool {
    /** Most idle fences kept per device. */
    static final int SLOTS = 8;

    private final Device device;
    private final AtomicReferenceArray<Lease> idle = new AtomicReferenceArray<>(SLOTS);
    private volatile boolean freed;

    FencePool(Device device) {
        this.device = device;
    }

    /**
     * The owner of a pooled fence inside its VM ref ({@link HalRef}'s owner): the ref's last
     * release releases the lease, which gives the fence back to its pool or releases it.
     * {@link #retain()} and {@link #release()} forward to the fence, so a lease can be retained
     * like any owner; only the release that leaves the fence with one reference (this lease's)
     * can pool it.
     */
    final class Lease implements Resource {
        private final Fence fence;

        private Lease(Fence fence) {
            this.fence = fence;
        }

        /** The pooled fence (borrowed: valid while the lease is held). */
        Fence fence() {
            return fence;
        }

        @Override
        public void retain() {
            fence.retain();
        }

        @Override
        public void release() {
            if (!fence.renew() || !offer(this)) {
                fence.release();
            }
        }
    }

    /**
     * A fence on a semaphore of the device, not yet reached: an idle one moved on, or a new one at
     * 0 with timepoint 1. The caller owns the lease's reference (adopt it as a ref's owner).
     *
     * @throws dev.ortho.base.StatusException what {@link Device#createSemaphore} throws
     */
    Lease take() {
        for (int i = 0; i < SLOTS; i++) {
            Lease lease = idle.get(i);
            if (lease != null && idle.compareAndSet(i, lease, null)) { // CAS: pairs with offer's, hands it over whole
                return lease;
            }
        }
        Fence fence;
        try (Semaphore semaphore = device.createSemaphore(0)) {
            fence = Fence.at(semaphore, 1);
        }
        return new Lease(fence);
    }

    /** Keeps {@code lease}'s renewed fence idle; false if the pool is full or freed (the caller releases it). */
    private boolean offer(Lease lease) {
        if (freed) {
            return false;
        }
        for (int i = 0; i < SLOTS; i++) {
            if (idle.get(i) == null && idle.compareAndSet(i, null, lease)) { // CAS: publishes the renewed fence
                if (freed) { // raced free(): take it back out if it is still there
                    return !idle.compareAndSet(i, lease, null);
                }
                return true;
            }
        }
        return false;
    }

    /** Releases the idle fences and keeps no more (the module state is being freed). */
    void free() {
        freed = true;
        for (int i = 0; i < SLOTS; i++) {
            Lease lease = idle.getAndSet(i, null);
            if (lease != null) {
                lease.fence.release();
            }
        }
    }
}
