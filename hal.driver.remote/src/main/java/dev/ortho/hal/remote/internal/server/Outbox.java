package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusException;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Everything one {@link ServerSession} sends, in order, with signal reports batched: a report
 * made while more of the client's work is queued on the same thread ({@code deferring}) waits
 * in the box and goes out with the next frame or at {@link #flush} (the end of the burst), all
 * in one gathering write. A later report of the same semaphore replaces a waiting one (the
 * client's mirror is a timeline: reaching value {@code n} reaches every value below it), so
 * one {@link Protocol#SEMAPHORE_REACHED} covers several operations. A burst that holds a long
 * operation does not hold the reports before it: the transport's thread sends them after
 * {@link #MAX_DELAY_NANOS} ({@link Transport#executeLater}).
 *
 * <p>Order: frames leave in the order they were made, except that a replaced report moves to
 * the position of its replacement, i.e. later, never earlier: a client never sees a value
 * before a report the server made before it. Thread-safe.
 */
final class Outbox {
    /** A waiting report: a reached value (and its frontier) or a failure. */
    private record Report(long handle, long value, Frontier frontier, StatusException failure) {
        ByteBuffer frame() {
            if (failure != null) {
                return FrameWriter.frame(Protocol.SEMAPHORE_FAILED, 0).putI64(handle).putStatus(failure).finish();
            }
            return FrameWriter.frame(Protocol.SEMAPHORE_REACHED, 0).putI64(handle).putI64(value)
                    .putFrontier(frontier).finish();
        }
    }

    /** Longest a waiting report waits for the end of its burst before the transport's thread sends it. */
    static final long MAX_DELAY_NANOS = 200_000;

    private final Transport transport;
    private final BooleanSupplier deferring;
    /** Reached reports by handle (Long), failures by identity; in the order they are due. */
    private final LinkedHashMap<Object, Report> waiting = new LinkedHashMap<>();
    private final List<ByteBuffer> frames = new ArrayList<>();

    /** @param deferring whether the calling thread has more work queued (reports may wait for {@link #flush}) */
    Outbox(Transport transport, BooleanSupplier deferring) {
        this.transport = transport;
        this.deferring = deferring;
    }

    /** Reports that semaphore {@code handle} reached {@code value}. */
    void reached(long handle, long value, Frontier frontier) {
        report(handle, new Report(handle, value, frontier, null));
    }

    /** Reports that semaphore {@code handle} failed. */
    void failed(long handle, StatusException failure) {
        report(new Object(), new Report(handle, 0, null, failure));
    }

    private void report(Object key, Report report) {
        boolean defer = deferring.getAsBoolean();
        boolean first;
        synchronized (this) {
            first = waiting.isEmpty();
            Report earlier = waiting.remove(key); // moves it to the end: later, never earlier
            waiting.put(key, earlier != null && earlier.value() > report.value() ? earlier : report);
            if (!defer) {
                sendWaiting(null);
                return;
            }
        }
        if (first) {
            // the burst may hold a long operation: its reports wait at most this long for its end
            transport.executeLater(this::flush, MAX_DELAY_NANOS);
        }
    }

    /** Sends {@code frame} after every waiting report, in one write where the transport can. */
    void send(ByteBuffer frame) {
        synchronized (this) {
            sendWaiting(frame);
        }
    }

    /**
     * Sends the frame {@code head} + {@code payload} after every waiting report
     * ({@link Transport#sendLent}: {@code returned} runs once the payload is no longer needed).
     */
    void sendLent(ByteBuffer head, ByteBuffer payload, Runnable returned) {
        synchronized (this) {
            sendWaiting(null);
            transport.sendLent(head, payload, returned);
        }
    }

    /** Sends the waiting reports (the end of a burst). */
    void flush() {
        synchronized (this) {
            if (!waiting.isEmpty()) {
                sendWaiting(null);
            }
        }
    }

    /** Reports waiting now (for tests). */
    synchronized int waiting() {
        return waiting.size();
    }

    private void sendWaiting(ByteBuffer last) {
        for (Iterator<Report> it = waiting.values().iterator(); it.hasNext(); ) {
            frames.add(it.next().frame());
            it.remove();
        }
        if (last != null) {
            frames.add(last);
        }
        if (!frames.isEmpty()) {
            transport.sendAll(frames);
            frames.clear();
        }
    }
}
