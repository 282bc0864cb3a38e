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
 * An import retains its semaphore while it is in use: each relayed wait and each owed signal
 * counts as a use until its timepoint or the server's report arrives; the last one releases the
 * stand-in and the semaphore (a later use imports it afresh). Thread-safe.
 */
final class SemaphoreImports {
    /** One imported semaphore. */
    private final class Import implements RemoteConnection.Target {
        final Semaphore semaphore;
        final long handle;
        final AtomicLong forwarded = new AtomicLong(Long.MIN_VALUE);
        final AtomicLong owed = new AtomicLong(Long.MIN_VALUE);
        /** Relayed waits and owed signals not yet settled; guarded by the imports lock when it reaches 0. */
        int uses;

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
            } finally {
                settle(this); // one report per owed signal
            }
        }

        @Override
        public void failed(StatusException status) {
            try {
                semaphore.fail(status);
            } finally {
                settle(this);
            }
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

    /** The stand-in for {@code semaphore}, created (one-way) on first use, with one more use counted. */
    private Import importOf(Semaphore semaphore) {
        synchronized (imports) {
            Import existing = imports.get(semaphore);
            if (existing != null) {
                existing.uses++;
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
            created.uses = 1;
            created.forwarded.set(current);
            semaphore.retain();
            imports.put(semaphore, created);
            connection.register(handle, created);
            connection.owing(created, true); // its owed signals are reported (conservatively: while in use)
            connection.send(connection.request(Protocol.SEMAPHORE_IMPORT).putI64(handle).putI64(current));
            if (failed != null) {
                connection.send(connection.request(Protocol.SEMAPHORE_FAIL).putI64(handle).putStatus(failed));
            }
            return created;
        }
    }

    /** Drops one use; the last one releases the stand-in and the semaphore. */
    private void settle(Import imported) {
        synchronized (imports) {
            if (--imported.uses > 0 || imports.get(imported.semaphore) != imported) {
                return;
            }
            imports.remove(imported.semaphore);
        }
        connection.owing(imported, false);
        connection.unregister(imported.handle);
        connection.sendQuietly(connection.request(Protocol.RELEASE).putI64(imported.handle));
        imported.semaphore.release();
    }

    /** Settles the frame uses collected by {@link #waitHandle} and {@link #signalHandle}. */
    void settleAll(List<Object> uses) {
        for (Object use : uses) {
            settle((Import) use);
        }
    }

    /**
     * The handle to send for a wait on {@code semaphore >= value}; arranges forwarding. Adds a
     * use to {@code frameUses} that the caller settles once the frame is queued.
     */
    long waitHandle(Semaphore semaphore, long value, List<Object> frameUses) {
        Import imported = importOf(semaphore); // the forwarding timepoint's use
        frameUses.add(importOf(semaphore)); // the frame's use
        semaphore.addTimepoint(value, (s, reached, failure) -> {
            try {
                if (failure != null) {
                    connection.sendQuietly(connection.request(Protocol.SEMAPHORE_FAIL).putI64(imported.handle)
                            .putStatus(failure));
                } else {
                    imported.forward(reached);
                }
            } finally {
                settle(imported);
            }
        });
        return imported.handle;
    }

    /** Imports in use now (for tests). */
    int size() {
        synchronized (imports) {
            return imports.size();
        }
    }

    /** The handle to send for a signal of {@code semaphore} to {@code value}; adds a frame use as {@link #waitHandle}. */
    long signalHandle(Semaphore semaphore, long value, List<Object> frameUses) {
        Import imported = importOf(semaphore); // the owed report's use
        frameUses.add(importOf(semaphore)); // the frame's use
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
