package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Semaphores of other devices (local ones, the host's, other remote servers') used by this
 * device's queue operations. Each gets a server-side stand-in on first use; the client relays
 * in both directions without waiting for anything:
 * <ul>
 *   <li>a wait on {@code S >= v} registers a timepoint on {@code S} that forwards the signal
 *       (with its frontier) or the failure to the stand-in, so the server can hold
 *       submit-before-signal work until another device signals;
 *   <li>a signal of {@code S} by this device's work is reported by the server and applied to
 *       {@code S} (with the frontier), so other devices' work waiting on it proceeds.
 * </ul>
 * An import retains its semaphore until the device closes. Thread-safe.
 */
final class SemaphoreImports {
    /** One imported semaphore. */
    private final class Import implements RemoteConnection.Target {
        final Semaphore semaphore;
        final long handle;
        final AtomicLong forwarded = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong owed = new AtomicLong(Long.MIN_VALUE);

        Import(Semaphore semaphore, long handle) {
            this.semaphore = semaphore;
            this.handle = handle;
        }

        /** Forwards {@code value} unless a value at least as high was already forwarded. */
        void forward(long value) {
            long previous = forwarded.getAndAccumulate(value, Math::max);
            if (previous >= value) {
                return;
            }
            Frontier frontier = new Frontier(TimelineSemaphore.DEFAULT_FRONTIER_AXES);
            try {
                semaphore.frontierAt(value, frontier);
            } catch (StatusException failed) {
                frontier.reset();
            }
            connection.sendQuietly(connection.request(Protocol.SEMAPHORE_SIGNAL).putI64(handle).putI64(value)
                    .putFrontier(frontier));
        }

        @Override
        public void reached(long value, Frontier frontier) {
            forwarded.accumulateAndGet(value, Math::max); // the stand-in is there already
            try {
                if (semaphore.failure() == null && semaphore.query() < value) {
                    semaphore.signal(value, frontier);
                }
            } catch (StatusException raced) {
                // signalled meanwhile by someone else, or failed: nothing to add
            }
        }

        @Override
        public void failed(StatusException status) {
            semaphore.fail(status);
        }

        @Override
        public void connectionLost(StatusException status) {
            try {
                if (semaphore.failure() == null && semaphore.query() < owed.get()) {
                    semaphore.fail(status);
                }
            } catch (StatusException alreadyFailed) {
                // nothing owed any more
            }
        }
    }

    private final RemoteConnection connection;
    private final Map<Semaphore, Import> imports = new IdentityHashMap<>();

    SemaphoreImports(RemoteConnection connection) {
        this.connection = connection;
    }

    /** The stand-in handle for {@code semaphore}, created (one-way) on first use. */
    private Import importOf(Semaphore semaphore) {
        synchronized (imports) {
            Import existing = imports.get(semaphore);
            if (existing != null) {
                return existing;
            }
            long handle = connection.newHandle();
            long current;
            StatusException failed = semaphore.failure();
            try {
                current = failed == null ? semaphore.query() : 0;
            } catch (StatusException failedMeanwhile) {
                current = 0;
                failed = failedMeanwhile;
            }
            Import created = new Import(semaphore, handle);
            created.forwarded.set(current);
            semaphore.retain();
            imports.put(semaphore, created);
            connection.register(handle, created);
            connection.send(connection.request(Protocol.SEMAPHORE_IMPORT).putI64(handle).putI64(current));
            if (failed != null) {
                connection.send(connection.request(Protocol.SEMAPHORE_FAIL).putI64(handle).putStatus(failed));
            }
            return created;
        }
    }

    /** The handle to send for a wait on {@code semaphore >= value}; arranges forwarding. */
    long waitHandle(Semaphore semaphore, long value) {
        Import imported = importOf(semaphore);
        semaphore.addTimepoint(value, (s, reached, failure) -> {
            if (failure != null) {
                connection.sendQuietly(connection.request(Protocol.SEMAPHORE_FAIL).putI64(imported.handle)
                        .putStatus(failure));
            } else {
                imported.forward(reached);
            }
        });
        return imported.handle;
    }

    /** The handle to send for a signal of {@code semaphore} to {@code value}. */
    long signalHandle(Semaphore semaphore, long value) {
        Import imported = importOf(semaphore);
        imported.owed.accumulateAndGet(value, Math::max);
        return imported.handle;
    }

    /** Drops every import (the device is closing). */
    void clear() {
        List<Import> all;
        synchronized (imports) {
            all = new ArrayList<>(imports.values());
            imports.clear();
        }
        for (Import imported : all) {
            connection.unregister(imported.handle);
            connection.sendQuietly(connection.request(Protocol.RELEASE).putI64(imported.handle));
            imported.semaphore.release();
        }
    }
}
