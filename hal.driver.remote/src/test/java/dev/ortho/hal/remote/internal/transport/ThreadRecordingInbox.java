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
public class ThreadRecordingInbox implements Transport.Listener {
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

    /** Sends {@code frames} frames to the transport under test (seeds 1 to {@code frames}). */
    @FunctionalInterface
    public interface Sender {
        void send(int frames) throws Exception;
    }

    /**
     * Two callers receive on {@code transport} at once (each retrying while the other holds the
     * role) until {@code frames} more frames than now arrived, which {@code sender} makes the peer
     * send; then checks that every frame arrived once, in order, one at a time.
     */
    public void twoCallersReceive(Transport transport, int frames, Sender sender) throws Exception {
        int target = threads.size() + frames;
        long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
        Runnable waiter = () -> {
            try {
                go.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            while (threads.size() < target && System.nanoTime() < guard) {
                if (!transport.receiveWhile(() -> threads.size() < target, guard)) {
                    Thread.onSpinWait(); // the other caller (or the transport's thread) receives: try again
                }
            }
        };
        Thread a = Thread.ofPlatform().start(waiter);
        Thread b = Thread.ofPlatform().start(waiter);
        go.countDown();
        sender.send(frames);
        a.join(60_000);
        b.join(60_000);
        assertTrue(!a.isAlive() && !b.isAlive(), "hang guard");
        for (int i = 1; i <= frames; i++) {
            assertEquals(i, seed(next()), "in order, each once");
        }
        assertTrue(this.frames.isEmpty());
    }
}
