package dev.ortho.hal.cpu.internal.task;

import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.Frontier;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Submission-time bookkeeping of a {@code local-task} device whose queues run in submission order
 * ({@code queue_order=fifo}): which values operations not yet finished will signal, by which queue
 * at which epoch, and what each queue will know by the time its next operation starts. From it
 * {@link #sequence} decides, before anything waits, which waits of a new operation queue order
 * already implies (seed 002's wait elision):
 *
 * <ul>
 *   <li><b>Same queue</b>: an earlier operation of the same queue signals the value. It finishes
 *       before the new one starts, so the wait is elided outright.
 *   <li><b>Another queue of this device</b>: queue A's operation at epoch {@code e} signals the
 *       value, and an earlier operation of the new one's queue waits (really) on a value A
 *       signals at an epoch {@code >= e}. A's operations finish in order, so once that earlier
 *       operation started, A's epoch {@code e} had passed: the wait is elided <em>provisionally</em>.
 *       The prediction assumes each waited value is reached by the operation scheduled to signal
 *       it; a timeline another party advances first, or an earlier operation that failed, breaks
 *       it. So the queue confirms the elision when the operation becomes ready (its frontier must
 *       hold A at {@code >= e}, and the value must be reached), and otherwise registers the wait
 *       then ({@link TaskQueue#onReady}): never unsound, at worst a late wait. Only an operation
 *       whose every wait is elided elides provisionally: the failure of a provisionally elided
 *       wait is seen when the operation becomes ready, and that must not wait for another of its
 *       waits (a real wait fails the operation at once); its predecessor still holds it, as it
 *       holds a same-queue elision's failure.
 * </ul>
 *
 * <p>Epochs: an operation's epoch is its submission ordinal on its queue, which on a FIFO queue is
 * also the order in which operations retire, so the epoch a queue signals with at retirement is
 * the one recorded here at submission. Knowledge is not transitive beyond one hop (a queue learns
 * A's epoch from a wait on A's signal, not what A itself had learnt): conservative, never wrong.
 *
 * <p>Thread-safety: every method holds this ledger's monitor, once per submission and once per
 * retirement, never per tile. One ledger per device.
 */
final class FifoLedger {
    /** Axes a queue's submission-time knowledge holds before it forgets the smallest epochs. */
    private static final int KNOWLEDGE_CAPACITY = 16;

    /** One queue's submission state; guarded by the ledger. */
    static final class Lane {
        final long axis;
        /** The operation submitted last (its successor links behind it). */
        private QueueOp tail;
        /** Operations submitted so far: the epoch of the last one. */
        private long submitted;
        /** What the queue will know once every operation submitted so far has started. */
        private final Frontier predicted = new Frontier(KNOWLEDGE_CAPACITY);

        private Lane(long axis) {
            this.axis = axis;
        }
    }

    /** The highest pending signal of one semaphore; reused while the semaphore has one. */
    private static final class Pending {
        long value;
        Lane lane;
        long epoch;
        QueueOp op;
    }

    private final Map<Semaphore, Pending> scheduled = new IdentityHashMap<>();
    // Scratch for the epochs one submission learns (applied after its own waits are decided).
    private final long[] learnAxes = new long[64];
    private final long[] learnEpochs = new long[64];

    /** A lane for a queue with frontier axis {@code axis} ({@link TaskQueue#NO_AXIS} if it has none). */
    Lane newLane(long axis) {
        return new Lane(axis);
    }

    /**
     * Decides {@code op}'s elided waits ({@link QueueOp#elided}, the provisional ones also in
     * {@link QueueOp#crossElided} with what must be confirmed), gives it its epoch, links it
     * behind the queue's previous operation and records the values it will signal. Host calls'
     * signals are not recorded: a deferred call signals after it retires.
     *
     * @return whether {@code op} was linked behind a predecessor that has not finished
     */
    synchronized boolean sequence(Lane lane, QueueOp op) {
        SemaphoreList waits = op.waits;
        int n = Math.min(waits.size(), 64);
        long elided = 0;
        long provisional = 0;
        int learned = 0;
        for (int i = 0; i < n; i++) {
            Pending pending = scheduled.get(waits.semaphore(i));
            if (pending == null || pending.value < waits.value(i)) {
                continue;
            }
            if (pending.lane == lane) {
                elided |= 1L << i;
            } else if (pending.lane.axis != TaskQueue.NO_AXIS) {
                if (Long.compareUnsigned(lane.predicted.epochOf(pending.lane.axis), pending.epoch) >= 0) {
                    elided |= 1L << i;
                    provisional |= 1L << i;
                    op.expect(i, n, pending.lane.axis, pending.epoch);
                } else if (pending.value == waits.value(i)) {
                    // Only an exact value names its signaller: a lower one may be reached earlier.
                    learnAxes[learned] = pending.lane.axis;
                    learnEpochs[learned++] = pending.epoch;
                }
            }
        }
        if (provisional != 0 && Long.bitCount(elided) < waits.size()) {
            // A real wait left: a provisional wait's failure would be seen only once that one is
            // reached, later than a real wait would fail the operation. Wait for real instead.
            elided &= ~provisional;
            provisional = 0;
        }
        for (int i = 0; i < learned; i++) {
            lane.predicted.insertOrRaise(learnAxes[i], learnEpochs[i]);
        }
        op.elided = elided;
        op.crossElided = provisional;
        op.epoch = ++lane.submitted;
        QueueOp predecessor = lane.tail;
        lane.tail = op;
        boolean linked = predecessor != null && predecessor.link(op);
        if (op.kind != QueueOp.Kind.HOST_CALL && !op.isRetired()) {
            SemaphoreList signals = op.signals;
            for (int i = 0; i < signals.size(); i++) {
                Semaphore semaphore = signals.semaphore(i);
                Pending pending = scheduled.get(semaphore);
                if (pending == null) {
                    pending = new Pending();
                    scheduled.put(semaphore, pending);
                } else if (pending.value > signals.value(i)) {
                    continue; // an earlier operation signals it higher (an invalid program's business)
                }
                pending.value = signals.value(i);
                pending.lane = lane;
                pending.epoch = op.epoch;
                pending.op = op;
            }
        }
        return linked;
    }

    /** Forgets the signals {@code op} scheduled that no later operation took over (it finished signalling). */
    synchronized void retired(QueueOp op) {
        SemaphoreList signals = op.signals;
        for (int i = 0; i < signals.size(); i++) {
            Semaphore semaphore = signals.semaphore(i);
            Pending pending = scheduled.get(semaphore);
            if (pending != null && pending.op == op) {
                scheduled.remove(semaphore);
            }
        }
    }

    /** Semaphores with a pending signal now (for tests: the ledger must not grow without bound). */
    synchronized int pendingSemaphores() {
        return scheduled.size();
    }
}
