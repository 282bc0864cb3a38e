package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import dev.ortho.hal.frontier.Frontier;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Failures around provisional (cross-queue) wait elision on FIFO queues: a semaphore that fails
 * while its elision is being confirmed, and a failure that must not wait for the operation's other
 * waits. Both failed on the first version of the elision.
 */
class FifoElisionRaceTest {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final long Q0 = 1L;
    private static final long Q1 = 2L;

    /**
     * Forwards to a real semaphore; the first time the confirming queue reads its failure (null),
     * the semaphore fails right after: the interleaving "failure() == null, then another thread
     * fails it, then query() throws" inside TaskQueue.confirmProvisionalElisions.
     */
    static final class FailsDuringConfirm implements Semaphore {
        final Semaphore delegate;
        volatile boolean armed;

        FailsDuringConfirm(Semaphore delegate) {
            this.delegate = delegate;
        }

        @Override public long query() { return delegate.query(); }

        @Override public StatusException failure() {
            StatusException f = delegate.failure();
            if (f == null && armed && StackWalker.getInstance().walk(s -> s.anyMatch(
                    frame -> frame.getMethodName().equals("confirmProvisionalElisions")))) {
                armed = false;
                delegate.fail(new StatusException(StatusCode.DATA_LOSS, "failed while the elision was confirmed"));
            }
            return f;
        }

        @Override public void signal(long value) { delegate.signal(value); }
        @Override public void signal(long value, Frontier frontier) { delegate.signal(value, frontier); }
        @Override public boolean frontierAt(long value, Frontier out) { return delegate.frontierAt(value, out); }
        @Override public void fail(StatusException status) { delegate.fail(status); }
        @Override public void await(long value, Timeout timeout) { delegate.await(value, timeout); }

        @Override public Timepoint addTimepoint(long value, TimepointCallback callback) {
            return delegate.addTimepoint(value, (inner, reached, failure) -> callback.onTimepoint(this, reached, failure));
        }

        @Override public void retain() { delegate.retain(); }
        @Override public void release() { delegate.release(); }
    }

    @Test
    void aProvisionallyElidedWaitWhoseSemaphoreFailsWhileConfirmedFailsItsOperation() {
        LocalTaskDevice device = FifoQueueTest.twoQueues("fifo");
        try (device; Semaphore gate = device.createSemaphore(0); Semaphore t = device.createSemaphore(0);
                Semaphore done = device.createSemaphore(0);
                FailsDuringConfirm s = new FailsDuringConfirm(device.createSemaphore(0))) {
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(s, 1), 0); // epoch 1 signals s=1
            device.queueBarrier(Q0, NONE, SemaphoreList.of(t, 1), 0);                       // epoch 2 signals t=1
            device.queueBarrier(Q1, SemaphoreList.of(t, 1), NONE, 0);                       // predicts q0 >= 2
            device.queueBarrier(Q1, SemaphoreList.of(s, 1), SemaphoreList.of(done, 1), 0);  // s elided provisionally
            s.armed = true;
            t.signal(1); // another party: queue 1's first operation runs; queue 0 is still held by gate
            // s never reaches 1; it fails while queue 1 confirms the elision: the operation must fail.
            StatusException e = assertThrows(StatusException.class,
                    () -> done.await(1, Timeout.of(Duration.ofSeconds(5))),
                    "queue 1 ran an operation whose wait on s (never reached, failed) was dropped");
            assertEquals(StatusCode.DATA_LOSS, e.code(), e.getMessage());
        }
    }

    /**
     * Queue 1's second operation waits on s (queue 0 signals it; elided provisionally) and on u (host). s
     * fails: the operation must fail at once, as with a real wait (an unordered queue), not only once
     * u is reached too — so with a real wait left, nothing is elided provisionally.
     */
    @Test
    void aFailedProvisionallyElidedWaitFailsItsOperationWithoutWaitingForItsOtherWaits() {
        LocalTaskDevice device = FifoQueueTest.twoQueues("fifo");
        try (device; Semaphore gate = device.createSemaphore(0); Semaphore t = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0); Semaphore u = device.createSemaphore(0);
                Semaphore done = device.createSemaphore(0)) {
            device.queueBarrier(Q0, SemaphoreList.of(gate, 1), SemaphoreList.of(s, 1), 0);
            device.queueBarrier(Q0, NONE, SemaphoreList.of(t, 1), 0);
            device.queueBarrier(Q1, SemaphoreList.of(t, 1), NONE, 0);
            device.queueBarrier(Q1, SemaphoreList.of(new Semaphore[] {s, u}, new long[] {1, 1}), SemaphoreList.of(done, 1), 0);
            gate.fail(new StatusException(StatusCode.DATA_LOSS, "gate lost"));
            StatusException e = assertThrows(StatusException.class,
                    () -> done.await(1, Timeout.of(Duration.ofSeconds(2))));
            assertEquals(StatusCode.DATA_LOSS, e.code(), e.getMessage());
            u.signal(1);
        }
    }
}
