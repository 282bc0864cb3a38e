package dev.ortho.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression for a finding of jcstress {@code ProcessStress.SignalVsCancel} (issue 15 §4):
 * {@code cancel()} or {@code fail()} of a process that had already completed successfully
 * recorded their status as the process's error, so {@link Process#error()} said CANCELLED
 * although the completion callback had been told "success" and the contract says cancel is a
 * no-op on a terminal process. Deterministic here: complete first, then cancel.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class Issue15CancelAfterCompletionTest {
    private final Executor executor = Executor.builder().workerCount(1).spinNanos(0).build();

    @AfterEach
    void shutDown() {
        executor.close();
    }

    private Process completedProcess(AtomicReference<StatusException> told) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        Process p = executor.newProcess("done", (process, worker, result) -> result.complete())
                .onComplete((process, error) -> {
                    told.set(error);
                    done.countDown();
                }).build();
        p.schedule();
        assertTrue(done.await(5, TimeUnit.SECONDS));
        return p;
    }

    @Test
    void cancelAfterSuccessfulCompletionLeavesNoError() throws InterruptedException {
        AtomicReference<StatusException> told = new AtomicReference<>();
        Process p = completedProcess(told);
        p.cancel();
        assertNull(told.get());
        assertNull(p.error(), "cancel() of a completed process must be a no-op");
        assertEquals(Process.State.COMPLETED, p.state());
    }

    @Test
    void failAfterSuccessfulCompletionLeavesNoError() throws InterruptedException {
        Process p = completedProcess(new AtomicReference<>());
        p.fail(new StatusException(StatusCode.ABORTED, "too late"));
        assertNull(p.error());
    }

    @Test
    void cancelBeforeCompletionIsStillReported() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        AtomicReference<StatusException> told = new AtomicReference<>();
        Process p = executor.newProcess("suspended", (process, worker, result) -> result.complete())
                .suspendCount(1).onComplete((process, error) -> {
                    told.set(error);
                    done.countDown();
                }).build();
        p.cancel();
        assertTrue(done.await(5, TimeUnit.SECONDS));
        assertEquals(StatusCode.CANCELLED, told.get().code());
        assertSame(told.get(), p.error());
    }
}
