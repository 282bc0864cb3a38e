package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Executor;
import dev.ortho.task.Process;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18: a short-lived process is cheap to build. The dispatch-chain benchmark's building
 * thread spent most of its time allocating and zeroing ~370-byte processes (two 128-byte pads)
 * plus a four-slot dependents array per edge. Allocation is counted per thread by the JVM, so
 * this is a size check, not a timing one.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ProcessFootprintTest {
    private static final StatusException RETIRE = new StatusException(StatusCode.CANCELLED, "retired by the test");
    /** Process plus builder (when not scalar-replaced) plus one dependent edge; was ≥ 450 bytes. */
    static final long MAX_BYTES_PER_LINK = 256;

    @Test
    void buildingALinkedProcessAllocatesLittle() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Executor ex = Executor.builder().workerCount(1).build();
        try {
            int links = 100;
            Process[] chain = new Process[links];
            long perLink = Long.MAX_VALUE;
            for (int round = 0; round < 200; round++) {  // the smallest round: past JIT warm-up and GC noise
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < links; i++) {
                    chain[i] = ex.newProcess("link", (p, w, r) -> r.complete()).build();
                    if (i > 0) {
                        chain[i - 1].addDependent(chain[i]);
                    }
                }
                long bytes = threads.getCurrentThreadAllocatedBytes() - before;
                perLink = Math.min(perLink, bytes / links);
                for (int i = links - 1; i >= 0; i--) {
                    chain[i].fail(RETIRE);  // suspended: completes inline, never runs
                }
            }
            assertTrue(perLink <= MAX_BYTES_PER_LINK, "bytes allocated per built and linked process: " + perLink);
            assertEquals(0, ex.stats().liveProcesses(), "every retired process left the live count");
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }
    /**
     * Issue 18: a reusable chain runs again with no allocation at all: {@code rearm} resets the
     * process in place and keeps its edges (before: a builder and a process per link and run).
     */
    @Test
    void rearmingALinkedChainAllocatesNothing() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Executor ex = Executor.builder().workerCount(1).build();
        try {
            int links = 100;
            java.util.concurrent.atomic.AtomicInteger released = new java.util.concurrent.atomic.AtomicInteger();
            Process[] chain = new Process[links];
            for (int i = 0; i < links; i++) {
                chain[i] = ex.newProcess("link", (p, w, r) -> r.complete()).reusable()
                        .onRelease(p -> released.incrementAndGet()).build();
                if (i > 0) {
                    chain[i - 1].addDependent(chain[i]);
                }
            }
            long least = Long.MAX_VALUE;
            for (int round = 0; round < 300; round++) {
                if (round > 0) {
                    long before = threads.getCurrentThreadAllocatedBytes();
                    for (Process p : chain) {
                        p.rearm();
                    }
                    least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
                }
                released.set(0);
                chain[0].schedule();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (released.get() < links) {
                    assertTrue(System.nanoTime() < deadline, "chain never finished");
                    Thread.onSpinWait();
                }
            }
            assertEquals(0, least, "bytes allocated re-arming a chain of " + links);
            assertEquals(0, ex.stats().liveProcesses());
        } finally {
            assertTrue(ex.shutdown(Duration.ofSeconds(5)));
        }
    }
}
