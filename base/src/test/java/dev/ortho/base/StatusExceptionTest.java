package dev.ortho.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class StatusExceptionTest {

    @Test
    void toStringIsCodeThenMessageAsIreeFormatsIt() {
        StatusException e = new StatusException(StatusCode.OUT_OF_RANGE,
                "binding 2 range [64, 4160) exceeds buffer length 4096");
        assertEquals("OUT_OF_RANGE; binding 2 range [64, 4160) exceeds buffer length 4096",
                e.toString());
        assertEquals(StatusCode.OUT_OF_RANGE, e.code());
    }

    @Test
    void emptyMessagePrintsJustTheCode() {
        assertEquals("CANCELLED", new StatusException(StatusCode.CANCELLED, null).toString());
        assertEquals("CANCELLED", new StatusException(StatusCode.CANCELLED, "").toString());
    }

    @Test
    void annotationsAppendInOrderAndKeepTheOriginalCode() {
        StatusException e = new StatusException(StatusCode.NOT_FOUND, "function 'main' not exported");
        StatusException same = e.annotate("while resolving imports of module 'app'")
                .annotate("while creating context");
        assertSame(e, same);
        assertEquals(StatusCode.NOT_FOUND, same.code());
        assertEquals("function 'main' not exported", e.baseMessage());
        assertEquals(List.of("while resolving imports of module 'app'", "while creating context"),
                e.annotations());
        assertEquals("NOT_FOUND; function 'main' not exported; while resolving imports of module"
                + " 'app'; while creating context", e.toString());
    }

    @Test
    void annotationOnEmptyMessageHasNoLeadingSeparator() {
        StatusException e = new StatusException(StatusCode.ABORTED, "").annotate("in task 7");
        assertEquals("ABORTED; in task 7", e.toString());
    }

    @Test
    void causeIsKept() {
        IOException io = new IOException("connection reset");
        StatusException e = new StatusException(StatusCode.UNAVAILABLE, "remote peer 127.0.0.1:7640", io);
        assertSame(io, e.getCause());
    }

    @Test
    void okIsNotAnError() {
        assertThrows(IllegalArgumentException.class, () -> new StatusException(StatusCode.OK, "fine"));
        assertThrows(NullPointerException.class, () -> new StatusException(null, "x"));
    }

    @Test
    void concurrentAnnotationsAreAllKept() throws InterruptedException {
        StatusException e = new StatusException(StatusCode.INTERNAL, "shared failure");
        int threads = 4;
        int perThread = 500;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException ignored) {
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    e.annotate("a");
                    e.toString();
                }
            });
            workers[t].start();
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        assertEquals(threads * perThread, e.annotations().size());
    }
}
