package dev.ortho.hal.remote.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A transport listener for the caller-receive tests: keeps the frames, the thread each was
 * delivered on and the close reason, and checks that frames are delivered one at a time.
 */
public final class ThreadRecordingInbox implements Transport.Listener {
    public final BlockingQueue<ByteBuffer> frames = new LinkedBlockingQueue<>();
    public final List<Thread> threads = new CopyOnWriteArrayList<>();
    public final CompletableFuture<StatusException> closed = new CompletableFuture<>();
    private volatile int delivering; // > 1 would be two threads delivering at once

    @Override
    public void onFrame(ByteBuffer body) {
        delivering++;
        try {
            assertEquals(1, delivering, "one frame at a time");
            threads.add(Thread.currentThread());
            frames.add(body);
        } finally {
            delivering--;
        }
    }

    @Override
    public void onClosed(StatusException reason) {
        closed.complete(reason);
    }

    /** The next frame (a hang guard of 60 s). */
    public ByteBuffer next() throws InterruptedException {
        ByteBuffer frame = frames.poll(60, TimeUnit.SECONDS);
        assertTrue(frame != null, "no frame within 60 s (hang guard)");
        return frame;
    }

    /** A small frame (length prefix included) that carries {@code seed} as its request id. */
    public static ByteBuffer frame(int seed) {
        return FrameWriter.frame(1000 + seed, seed, 4).putI32(seed).finish();
    }

    /** The seed of a received {@link #frame} body. */
    public static int seed(ByteBuffer body) {
        return (int) body.order(ByteOrder.LITTLE_ENDIAN).getLong(4);
    }
}
