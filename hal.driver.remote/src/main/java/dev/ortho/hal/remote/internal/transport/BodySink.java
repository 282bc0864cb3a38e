package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Where the bulk bytes of one large received frame go instead of a body buffer: a
 * {@link Transport.Listener} that recognises the frame from its first bytes
 * ({@link Transport.Listener#bodySink}) lends memory that is the bytes' destination anyway (a
 * device buffer's mapping on a server, the caller's target of a buffer read on a client), and
 * the transport reads the socket straight into it: no body allocation, no copy out.
 *
 * <p>The transport receives into the sink, then calls {@link #complete} once every byte arrived
 * (on the receiving thread, in order with the connection's other frames). Anyone may
 * {@link #abort} it meanwhile (the connection closes; a client gave up waiting): from then on no
 * byte lands in its memory (the transport skips the rest of the frame), and {@link #release}
 * runs once either way. Receiving and aborting exclude each other (the receives are
 * non-blocking, so an abort waits at most one system call), so released memory is never written.
 */
public abstract class BodySink {
    private final int dataOffset;
    private final ByteBuffer target;
    private boolean done; // guarded by this
    private boolean lastReadShort; // guarded by this

    /**
     * @param dataOffset the offset in the frame's body (after the length prefix) of the first
     *     byte {@code target} receives; the body's bytes before it are the prefix the listener read
     * @param target receives the rest of the body: exactly its remaining bytes
     */
    protected BodySink(int dataOffset, ByteBuffer target) {
        this.dataOffset = dataOffset;
        this.target = target;
    }

    /** Any thread other than the ones that own confined memory: probes whether memory is shared. */
    private static final Thread ANOTHER_THREAD = Thread.ofVirtual().unstarted(() -> { });

    /**
     * {@code segment} as a buffer any thread may fill ({@code writable}: a sink's target, filled
     * by whichever thread receives) or read (a payload written by whichever thread writes the
     * socket), or null: memory confined to one thread, a heap array other than {@code byte[]},
     * read-only memory where {@code writable}.
     */
    public static ByteBuffer sharedView(java.lang.foreign.MemorySegment segment, boolean writable) {
        if (writable && segment.isReadOnly() || !segment.isAccessibleBy(ANOTHER_THREAD)
                || !segment.isNative() && !(segment.heapBase().orElse(null) instanceof byte[])) {
            return null;
        }
        return segment.asByteBuffer();
    }

    /** The body's bytes before {@code target}'s, which the transport parsed and drops. */
    final int dataOffset() {
        return dataOffset;
    }

    /** Bytes the sink still waits for. */
    final synchronized int missing() {
        return target.remaining();
    }

    /** Every byte arrived (receiving thread); a failure thrown here closes the connection. */
    protected abstract void complete();

    /** Gives back what the sink lent (once: after {@link #complete}, or on abort); must not block long. */
    protected abstract void release();

    /** Copies up to {@code count} bytes of {@code source} in; false (source advanced anyway) if aborted. */
    final synchronized boolean put(ByteBuffer source, int count) {
        int take = Math.min(count, target.remaining());
        if (!done) {
            target.put(target.position(), source, source.position(), take);
            target.position(target.position() + take);
        }
        source.position(source.position() + take);
        return !done;
    }

    /**
     * Reads from {@code channel} straight into the sink, at most {@code maxHeapBytes} at once if
     * the target is on the heap (the JDK copies through a temporary direct buffer as large as the
     * read); bytes read, 0 if none now, -1 at the end of the stream, {@link #ABORTED} if aborted.
     */
    final synchronized int read(ReadableByteChannel channel, int maxHeapBytes) throws IOException {
        if (done) {
            return ABORTED;
        }
        if (target.isDirect() || target.remaining() <= maxHeapBytes) {
            int asked = target.remaining();
            int n = channel.read(target);
            lastReadShort = n < asked;
            return n;
        }
        ByteBuffer slice = target.slice(target.position(), maxHeapBytes);
        int n = channel.read(slice);
        if (n > 0) {
            target.position(target.position() + n);
        }
        lastReadShort = n < maxHeapBytes;
        return n;
    }

    /** Whether the last {@link #read} got fewer bytes than it asked for: the socket held no more. */
    final synchronized boolean lastReadShort() {
        return lastReadShort;
    }

    /** What {@link #read} answers once the sink was aborted. */
    static final int ABORTED = -2;

    /** Every byte arrived: completes (unless aborted meanwhile) and releases. */
    final synchronized void finish() {
        if (done) {
            return;
        }
        done = true;
        try {
            complete();
        } finally {
            release();
        }
    }

    /** No more bytes land in the sink; releases it unless it finished. Idempotent, any thread. */
    public final synchronized void abort() {
        if (!done) {
            done = true;
            release();
        }
    }
}
