package dev.ortho.hal.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class RefCountTest {
    @Test
    void onlyTheLastReleaseReportsTheLastReference() {
        RefCount count = new RefCount();
        count.retain();
        count.retain();
        assertEquals(3, count.count());
        assertFalse(count.release("r"));
        assertFalse(count.release("r"));
        assertTrue(count.release("r"));
        assertEquals(0, count.count());
    }

    @Test
    void overReleaseIsFailedPreconditionNamingTheResourceAndLeavesTheCountAtZero() {
        RefCount count = new RefCount();
        assertTrue(count.release("buffer 7"));
        StatusException e = assertThrows(StatusException.class, () -> count.release("buffer 7"));
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("buffer 7 released more times than retained"), e.getMessage());
        assertEquals(0, count.count());
        assertThrows(StatusException.class, () -> count.release("buffer 7"), "still detected the second time");
    }

    @Test
    void concurrentRetainReleasePairsLeaveOneReference() throws InterruptedException {
        RefCount count = new RefCount();
        Thread[] threads = new Thread[4];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 100_000; i++) {
                    count.retain();
                    count.release("r");
                }
            });
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(1, count.count());
    }
}
