package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: queue operations submitted back to back travel as one burst (client) and their
 * signal reports coalesce (server). Order, every signal's value and failures must survive it,
 * and a server that goes away in the middle of a burst must fail the waiters, not strand them.
 */
class Issue18BatchingTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));
    private static final int BURST = 64;

    private static int read(Buffer buffer) {
        MemorySegment out = MemorySegment.ofArray(new int[1]);
        buffer.read(0, out);
        return out.get(ValueLayout.JAVA_INT_UNALIGNED, 0);
    }

    @Test
    void aBurstRunsInSubmissionOrderAndReachesEverySignal() {
        try (Device device = Loopback.shared().connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4);
                Semaphore chain = device.createSemaphore(0);
                Semaphore unchained = device.createSemaphore(0)) {
            for (int i = 0; i < BURST; i++) {
                // chained ops run on the server's executor one after another (reports deferred);
                // every op writes its index: the last write must be the last op's
                device.queueFill(ANY, SemaphoreList.of(chain, i), SemaphoreList.of(chain, i + 1), buffer, 0, 4, i,
                        4, 0);
            }
            for (int i = 0; i < BURST; i++) {
                device.queueBarrier(ANY, SemaphoreList.of(chain, BURST), SemaphoreList.of(unchained, i + 1), 0);
            }
            unchained.await(BURST, GUARD);
            assertEquals(BURST, chain.query());
            assertEquals(BURST, unchained.query());
            assertEquals(BURST - 1, read(buffer));
        }
    }

    @Test
    void aFailureInsideABurstFailsItsSignalsAndLeavesEarlierReportsIntact() {
        try (Device device = Loopback.shared().connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4);
                Semaphore chain = device.createSemaphore(0);
                Semaphore before = device.createSemaphore(0)) {
            TimelineSemaphore host = new TimelineSemaphore("host", 0);
            for (int i = 0; i < 32; i++) {
                SemaphoreList waits = i == 16 ? SemaphoreList.of(new Semaphore[] {chain, host}, new long[] {i, 1})
                        : SemaphoreList.of(chain, i);
                SemaphoreList signals = i == 10 ? SemaphoreList.of(new Semaphore[] {chain, before}, new long[] {i + 1, 1})
                        : SemaphoreList.of(chain, i + 1);
                device.queueFill(ANY, waits, signals, buffer, 0, 4, i, 4, 0);
            }
            chain.await(16, GUARD); // everything before the op held by the host semaphore
            assertEquals(1, before.query());
            host.fail(new StatusException(StatusCode.DATA_LOSS, "host stage broke"));
            StatusException failure = assertThrows(StatusException.class, () -> chain.await(32, GUARD));
            assertEquals(StatusCode.DATA_LOSS, failure.code(), failure.getMessage());
            assertEquals(15, read(buffer)); // nothing after the failed op ran
            assertEquals(1, before.query());
            host.release();
        }
    }

    @Test
    void aServerClosingInsideABurstFailsTheWaitersWithUnavailable() {
        try (Loopback server = Loopback.start(); Device device = server.connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4);
                Semaphore chain = device.createSemaphore(0)) {
            TimelineSemaphore host = new TimelineSemaphore("host", 0);
            device.queueFill(ANY, SemaphoreList.of(host, 1), SemaphoreList.of(chain, 1), buffer, 0, 4, 1, 4, 0);
            for (int i = 1; i < BURST; i++) { // deferred behind the first: still queued or in flight
                device.queueFill(ANY, SemaphoreList.of(chain, i), SemaphoreList.of(chain, i + 1), buffer, 0, 4, i,
                        4, 0);
            }
            server.server.close();
            StatusException failure = assertThrows(StatusException.class, () -> chain.await(BURST, GUARD));
            assertTrue(failure.code() == StatusCode.UNAVAILABLE || failure.code() == StatusCode.CANCELLED,
                    failure.toString());
            StatusException later = assertThrows(StatusException.class,
                    () -> device.queueBarrier(ANY, SemaphoreList.empty(), SemaphoreList.of(chain, BURST + 1), 0));
            assertEquals(StatusCode.UNAVAILABLE, later.code(), later.getMessage());
            host.release();
        }
    }
}
