package dev.ortho.modules.io.parameters.internal;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;

/**
 * The queue operations of one {@code load}, {@code gather} or {@code scatter} call, chained on
 * one private timeline semaphore (IREE's {@code iree_io_parameter_op_batch_t} with a concurrency
 * of one): the first operation waits on the caller's wait list, each later one on its
 * predecessor, and {@link #finish()} joins the chain (or, with no operation at all, the wait
 * list) to the caller's signal list with a barrier. If recording fails, {@link #fail} fails the
 * caller's signal list with the status, as IREE does, so nobody waits forever.
 *
 * <p>The timeline semaphore is created on first use and released by {@link #close()}; the device
 * retains it for operations still in flight. Not thread-safe (one call's recording).
 */
final class Batch implements AutoCloseable {
    /** One queue operation given its wait and signal lists. */
    interface Op {
        void submit(SemaphoreList waits, SemaphoreList signals);
    }

    final Device device;
    final long affinity;
    private final SemaphoreList waits;
    private final SemaphoreList signals;
    private Semaphore timeline;
    private long value;

    Batch(Device device, long affinity, SemaphoreList waits, SemaphoreList signals) {
        this.device = device;
        this.affinity = affinity;
        this.waits = waits;
        this.signals = signals;
    }

    /** Submits {@code op} after everything submitted before it. */
    void step(Op op) {
        if (timeline == null) {
            timeline = device.createSemaphore(0);
        }
        SemaphoreList stepWaits = value == 0 ? waits : SemaphoreList.of(timeline, value);
        op.submit(stepWaits, SemaphoreList.of(timeline, value + 1));
        value++;
    }

    /** Number of operations submitted. */
    long steps() {
        return value;
    }

    /** Signals the caller's signal list once every operation (or the caller's waits) completed. */
    void finish() {
        device.queueBarrier(affinity, value == 0 ? waits : SemaphoreList.of(timeline, value), signals, 0);
    }

    /** Fails the caller's signal list with {@code status} (recording failed) and returns it. */
    StatusException fail(StatusException status) {
        signals.fail(status);
        return status;
    }

    @Override
    public void close() {
        if (timeline != null) {
            timeline.release();
            timeline = null;
        }
    }
}
