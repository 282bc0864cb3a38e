package dev.ortho.hal.remote.internal.shm;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.Timeout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A dead worker is replaced even when the thread that retires it is interrupted. With futex
 * bells the client's pump notices a killed child only at its next tick, so the process-exit
 * callback (a common-pool thread, which may carry an interrupt) usually closes the transport and
 * retires the worker; its new mailbox file then failed to open (ClosedByInterruptException,
 * "could not replace retired …") and the pool was left with no worker ("all 0 shared-memory
 * workers are busy", seen in {@code ShmTest.aKilledChildFailsOwedSemaphoresWithUnavailableAndIsReplaced}).
 */
class Issue18ShmRetireTest {
    private static final long GUARD = TimeUnit.SECONDS.toNanos(60);

    @Test
    void aDeadWorkerRetiredOnAnInterruptedThreadIsStillReplaced() throws Exception {
        try (WorkerPool pool = new WorkerPool(WorkerPool.Mode.PROCESS, 1, "dev.ortho.hal.remote.LocalSyncSupplier",
                1 << 16)) {
            WorkerPool.Worker worker = pool.pickIdle(Timeout.ofNanos(GUARD), Timeout.ofNanos(GUARD));
            worker.process().destroyForcibly();
            worker.process().onExit().get(60, TimeUnit.SECONDS);
            CompletableFuture<Boolean> keptInterrupt = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                Thread.currentThread().interrupt(); // as a callback's pool thread may be
                pool.release(worker);
                keptInterrupt.complete(Thread.currentThread().isInterrupted());
            });
            assertTrue(keptInterrupt.get(60, TimeUnit.SECONDS), "the retiring thread's interrupt status is kept");
            WorkerPool.Worker fresh = pool.pickIdle(Timeout.ofNanos(GUARD), Timeout.ofNanos(GUARD));
            assertNotSame(worker, fresh, "a fresh child took the dead one's place");
            pool.release(fresh);
        }
    }
}
