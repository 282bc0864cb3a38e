package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Transport} for unit tests that keeps what is sent ({@link #frames}, {@link #writes}
 * counts send calls, a {@code sendAll} being one) and the {@link #executeLater} tasks
 * ({@link #later}, run by the test); the peer was last heard when it was created.
 */
public class RecordingTransport implements Transport {
    public final List<ByteBuffer> frames = new ArrayList<>();
    public final List<Runnable> later = new ArrayList<>();
    public final long heard = System.nanoTime();
    public int writes;

    @Override
    public void send(ByteBuffer frame) {
        writes++;
        frames.add(frame);
    }

    @Override
    public void sendAll(List<ByteBuffer> all) {
        writes++;
        frames.addAll(all);
    }

    @Override
    public void executeLater(Runnable task, long delayNanos) {
        later.add(task);
    }

    @Override
    public void close(StatusException reason) {
    }

    @Override
    public void closeAfterFlush(StatusException reason) {
    }

    @Override
    public boolean isOpen() {
        return true;
    }

    @Override
    public long queuedBytes() {
        return 0;
    }

    @Override
    public long lastReceiveNanos() {
        return heard;
    }

    @Override
    public long peerSinceNanos() {
        return heard;
    }
}
