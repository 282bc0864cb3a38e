package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.Timepoint;
import dev.ortho.hal.TimepointCallback;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.TimelineSemaphore;
import dev.ortho.hal.spi.RefCount;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A semaphore of a remote device: the server holds the real one, the client a local mirror that
 * the server keeps current by reporting every value its queue operations signal (with the
 * frontier). Queries, waits and timepoints therefore never round-trip; host signals and failures
 * update the mirror and travel to the server one-way.
 *
 * <p>If the connection fails while the server still owes a signal (a submitted operation had not
 * signalled yet), the mirror fails with UNAVAILABLE, so waiters return instead of hanging.
 * Thread-safe.
 */
final class RemoteSemaphore implements Semaphore, RemoteConnection.Target {
    private final RemoteConnection connection;
    private final long handle;
    private final TimelineSemaphore mirror;
    /** The largest value a submitted operation will signal. */
    private final AtomicLong owed = new AtomicLong(Long.MIN_VALUE);
    private final RefCount references = new RefCount();

    RemoteSemaphore(RemoteConnection connection, long handle, long initialValue, SemaphoreScope scope) {
        this.connection = connection;
        this.handle = handle;
        this.mirror = new TimelineSemaphore("remote " + connection.peer() + " semaphore " + handle, initialValue,
                scope);
    }

    /** The scope it was created with; the server's semaphore and this mirror both have it. */
    @Override
    public SemaphoreScope scope() {
        return mirror.scope();
    }

    RemoteConnection connection() {
        return connection;
    }

    long handle() {
        return handle;
    }

    /** Records that a submitted operation will signal {@code value}. */
    void owe(long value) {
        owed.accumulateAndGet(value, Math::max);
        syncOwing();
    }

    /**
     * Tells the connection whether this semaphore still waits for a report
     * ({@link RemoteConnection#expectsFrames}); after every change of the owed value or the
     * mirror's, so the last call sees the last state (serialised, so it is also the last to write).
     */
    private synchronized void syncOwing() {
        boolean owes;
        try {
            owes = mirror.failure() == null && mirror.query() < owed.get();
        } catch (StatusException failedMeanwhile) {
            owes = false; // a failed semaphore is owed nothing more
        }
        connection.owing(this, owes);
    }

    @Override
    public long query() {
        connection.flush(); // a poller waits for the server too: send what a burst queued
        return mirror.query();
    }

    @Override
    public StatusException failure() {
        return mirror.failure();
    }

    @Override
    public void signal(long value) {
        signal(value, null);
    }

    @Override
    public void signal(long value, Frontier frontier) {
        if (connection.isClosedByOwner()) {
            // the device is closed and its server-side work cancelled: the host's signal still
            // advances the semaphore for host waiters, as a local device's semaphore outlives it
            mirror.signal(value, frontier);
            return;
        }
        connection.checkOpen();
        mirror.signal(value, frontier);
        syncOwing();
        connection.wakeReceiver(); // a caller receiving for the connection may wait for this value
        connection.send(connection.request(Protocol.SEMAPHORE_SIGNAL).putI64(handle).putI64(value)
                .putFrontier(frontier));
    }

    @Override
    public boolean frontierAt(long value, Frontier out) {
        return mirror.frontierAt(value, out);
    }

    @Override
    public void fail(StatusException status) {
        mirror.fail(status);
        syncOwing();
        connection.wakeReceiver();
        connection.sendQuietly(connection.request(Protocol.SEMAPHORE_FAIL).putI64(handle).putStatus(status));
    }

    @Override
    public void await(long value, Timeout timeout) {
        connection.flush();
        if (mirror.failure() == null && mirror.query() < value) {
            // receive the report on this thread (no hand-off from the transport's), then wait as usual
            long deadline = timeout.toDeadlineNanos();
            if (connection.receiveWhile(() -> mirror.failure() == null && mirror.query() < value, deadline)) {
                timeout = Timeout.until(dev.ortho.base.Deadline.atNanos(deadline));
            }
        }
        mirror.await(value, timeout);
    }

    @Override
    public Timepoint addTimepoint(long value, TimepointCallback callback) {
        connection.flush();
        return mirror.addTimepoint(value, (semaphore, reached, failure) -> callback.onTimepoint(this, reached, failure));
    }

    @Override
    public void reached(long value, Frontier frontier) {
        if (mirror.failure() == null && mirror.query() < value) {
            try {
                mirror.signal(value, frontier);
            } catch (StatusException raced) {
                // a host signal got there first: the value is reached either way
            }
        }
        syncOwing();
    }

    @Override
    public void failed(StatusException status) {
        mirror.fail(status);
        syncOwing();
    }

    @Override
    public void connectionLost(StatusException status) {
        if (mirror.failure() == null && mirror.query() < owed.get()) {
            mirror.fail(status);
        }
        syncOwing();
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        if (references.release(this)) {
            connection.owing(this, false);
            connection.unregister(handle);
            connection.sendQuietly(connection.request(Protocol.RELEASE).putI64(handle));
            mirror.release();
        }
    }

    @Override
    public String toString() {
        return "remote " + connection.peer() + " semaphore " + handle;
    }
}
