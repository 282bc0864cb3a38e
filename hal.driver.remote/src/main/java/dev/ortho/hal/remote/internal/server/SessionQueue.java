package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.Resource;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.sync.Gate;
import dev.ortho.hal.remote.internal.sync.SerialExecutor;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The queue operations of one {@link ServerSession}: decodes them ({@link QueueDecoder}); a short
 * one whose waits are reached runs at once on the I/O thread; on an asynchronous device
 * ({@code ASYNC_QUEUES}) without FIFO queues any other is handed to the device with its waits at
 * once ({@link #handOff}); otherwise it is held behind a {@link Gate} until its waits are
 * reached and runs on the session's {@link SerialExecutor} (a FIFO queue would hold every later
 * operation behind one whose wait only a later submission signals, which IREE's clients may
 * legitimately submit);
 * reports every signal to the client with its frontier, and aborts what is held when the client
 * disconnects. A decoding error fails the operation's signals instead of answering. Thread-safe.
 */
final class SessionQueue {
    private final ServerSession session;
    private final HandleTable handles;
    private final ServerOptions options;
    private final SerialExecutor serial;
    private final AtomicBoolean closed;
    private final String name;
    private final Set<Gate> pending = ConcurrentHashMap.newKeySet();
    private final Set<HandedOff> handedOff = ConcurrentHashMap.newKeySet();
    private final AtomicInteger inFlight = new AtomicInteger();

    /** @param closed the session's closed flag: operations released after it is set are cancelled */
    SessionQueue(ServerSession session, HandleTable handles, ServerOptions options, SerialExecutor serial,
            AtomicBoolean closed) {
        this.session = session;
        this.handles = handles;
        this.options = options;
        this.serial = serial;
        this.closed = closed;
        this.name = session.toString();
    }

    /** Aborts every operation still waiting (a disconnect): each fails its signals with {@code cancelled}. */
    void abortAll(StatusException cancelled) {
        for (Gate gate : pending) {
            gate.abort(cancelled);
        }
        for (HandedOff handed : handedOff) {
            for (int i = 0; i < handed.waits().size(); i++) {
                Semaphore wait = handed.waits().semaphore(i);
                try {
                    if (wait.failure() == null && wait.query() < handed.waits().value(i)) {
                        wait.fail(cancelled); // the client will never signal it now
                    }
                } catch (StatusException raced) {
                    // reached or failed meanwhile
                }
            }
        }
    }

    /** Decodes a queue operation; its errors fail its signals instead of answering. */
    void queue(FrameReader in, Device device) {
        int opcode = in.opcode();
        long affinity = in.i64("affinity");
        long[][] waits = semaphoreList(in, "waits");
        long[][] signals = semaphoreList(in, "signals");
        SemaphoreList signalList;
        try {
            signalList = resolve(signals, "signal");
        } catch (StatusException e) {
            failUnresolved(signals, e); // reported through every signal: the device is not lost
            if (in.isMalformed()) {
                throw e;
            }
            return;
        }
        notifyOnSignal(signals, signalList);
        List<Resource> retained = new ArrayList<>();
        QueueOp op = null;
        SemaphoreList waitList;
        long[] transferBytes = new long[1];
        try {
            waitList = resolve(waits, "wait");
            op = QueueDecoder.decode(session, opcode, in, handles, device, affinity, waitList, retained, transferBytes);
            in.end();
            if (inFlight.get() >= options.maxInFlight()) {
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, name + " has " + inFlight.get()
                        + " queue operations in flight, its quota");
            }
        } catch (StatusException e) {
            if (op != null) {
                op.abandon(e);
            }
            signalList.fail(e);
            if (in.isMalformed()) {
                throw e;
            }
            return;
        }
        if (QueueDecoder.cheap(opcode, transferBytes[0]) && waitList.poll()) {
            // nothing holds it and it is short: run it here, saving the hand-off to an executor thread
            try {
                op.run(waitList, signalList);
            } catch (StatusException e) {
                signalList.fail(e);
            } catch (RuntimeException e) {
                signalList.fail(new StatusException(StatusCode.INTERNAL, "queue operation failed: " + e, e));
            }
            return;
        }
        // an update keeps its data (the frame's bytes, up to a frame each) until it ran: counted
        // against the client's memory quota meanwhile, or the in-flight quota times the frame
        // limit (1024 x 16 MiB by default) would be memory no limit bounds
        long held = opcode == Protocol.QUEUE_UPDATE ? transferBytes[0] : 0;
        if (held > 0) {
            try {
                handles.reserveMemory(held, name + " queue update data (held until its waits are reached)");
            } catch (StatusException e) {
                op.abandon(e);
                signalList.fail(e);
                return;
            }
        }
        if ((device.capabilities() & (DeviceCapability.ASYNC_QUEUES | DeviceCapability.FIFO_QUEUES))
                == DeviceCapability.ASYNC_QUEUES) {
            handOff(waitList, signalList, retained, op, held);
        } else {
            submit(waitList, signalList, retained, op, held);
        }
    }

    /** An operation handed to an asynchronous device with waits not reached yet, until it completes. */
    private record HandedOff(SemaphoreList waits, TimelineSemaphore done) {
    }

    /**
     * Hands an operation whose waits are not all reached to an asynchronous device at once, waits
     * included: the device's queue holds it (a FIFO queue in submission order, skipping waits on
     * its own earlier signals) and imports the frontiers the waits are reached with, so a signal
     * relayed from another server starts it without a hop through this server's executor. A
     * private semaphore signalled after the operation's own ({@code done}) counts it in flight
     * and keeps what it uses retained until it completes or fails; a disconnect fails its waits
     * ({@link #abortAll}), so nothing the client left behind waits forever.
     */
    private void handOff(SemaphoreList waits, SemaphoreList signals, List<Resource> retained, QueueOp op,
            long heldBytes) {
        holdInFlight(waits, signals, retained);
        TimelineSemaphore done = new TimelineSemaphore(name + " operation", 0);
        Semaphore[] withDone = new Semaphore[signals.size() + 1];
        long[] values = new long[withDone.length];
        for (int i = 0; i < signals.size(); i++) {
            withDone[i] = signals.semaphore(i);
            values[i] = signals.value(i);
        }
        withDone[signals.size()] = done;
        values[signals.size()] = 1;
        HandedOff handed = new HandedOff(waits, done);
        handedOff.add(handed);
        done.addTimepoint(1, (semaphore, value, failure) -> {
            handedOff.remove(handed);
            inFlight.decrementAndGet();
            if (heldBytes > 0) {
                handles.releaseMemory(heldBytes);
            }
            for (Resource resource : retained) {
                resource.release();
            }
            done.release();
        });
        SemaphoreList all = SemaphoreList.of(withDone, values);
        try {
            if (closed.get()) {
                throw new StatusException(StatusCode.CANCELLED, name + " disconnected");
            }
            op.run(waits, all);
        } catch (StatusException e) {
            op.abandon(e);
            all.fail(e);
        } catch (RuntimeException e) {
            StatusException failed = new StatusException(StatusCode.INTERNAL, "queue operation failed: " + e, e);
            op.abandon(failed);
            all.fail(failed);
        }
    }

    /** A decoded queue operation, run once its waits are reached. */
    interface QueueOp {
        void run(SemaphoreList waits, SemaphoreList signals);

        /** Called instead of {@link #run} when the operation will never run (a failed wait, a disconnect). */
        default void abandon(StatusException status) {
        }
    }

    /** Retains what an operation uses (its semaphores too) and counts it in flight until it is done. */
    private void holdInFlight(SemaphoreList waits, SemaphoreList signals, List<Resource> retained) {
        for (int i = 0; i < waits.size(); i++) {
            retained.add(waits.semaphore(i));
        }
        for (int i = 0; i < signals.size(); i++) {
            retained.add(signals.semaphore(i));
        }
        for (Resource resource : retained) {
            resource.retain();
        }
        inFlight.incrementAndGet();
    }

    private void submit(SemaphoreList waits, SemaphoreList signals, List<Resource> retained, QueueOp op,
            long heldBytes) {
        holdInFlight(waits, signals, retained);
        Gate[] self = new Gate[1];
        Gate gate = Gate.open(waits, serial, failure -> {
            try {
                if (failure != null) {
                    op.abandon(failure);
                    signals.fail(failure);
                } else if (closed.get()) {
                    StatusException cancelled = new StatusException(StatusCode.CANCELLED, name + " disconnected");
                    op.abandon(cancelled);
                    signals.fail(cancelled);
                } else {
                    op.run(waits, signals);
                }
            } catch (StatusException e) {
                signals.fail(e);
            } catch (RuntimeException e) {
                signals.fail(new StatusException(StatusCode.INTERNAL, "queue operation failed: " + e, e));
            } finally {
                inFlight.decrementAndGet();
                if (heldBytes > 0) {
                    handles.releaseMemory(heldBytes);
                }
                for (Resource resource : retained) {
                    resource.release();
                }
                if (self[0] != null) {
                    pending.remove(self[0]);
                }
            }
        });
        self[0] = gate;
        if (!gate.hasFired()) {
            pending.add(gate);
            if (gate.hasFired()) {
                pending.remove(gate);
            }
        }
    }

    private static long[][] semaphoreList(FrameReader in, String field) {
        int count = in.count(field, 16);
        long[][] list = new long[2][count];
        for (int i = 0; i < count; i++) {
            list[0][i] = in.i64(field + " handle");
            list[1][i] = in.i64(field + " value");
        }
        return list;
    }

    private SemaphoreList resolve(long[][] list, String what) {
        Semaphore[] semaphores = new Semaphore[list[0].length];
        for (int i = 0; i < semaphores.length; i++) {
            semaphores[i] = handles.get(list[0][i], Semaphore.class, what + " semaphore");
        }
        return SemaphoreList.of(semaphores, list[1]);
    }

    /**
     * An operation whose signal list cannot be resolved fails every semaphore in it: the ones the
     * server has, and (by a report, one per entry, as for any signal) the client's view of each.
     */
    private void failUnresolved(long[][] signals, StatusException status) {
        for (long handle : signals[0]) {
            try {
                handles.get(handle, Semaphore.class, "signal semaphore").fail(status);
            } catch (StatusException unresolved) {
                // only the client's view exists
            }
            session.failed(handle, status);
        }
    }

    /** Reports each signal to the client when it happens (or fails), with its frontier. */
    private void notifyOnSignal(long[][] handlesAndValues, SemaphoreList signals) {
        for (int i = 0; i < signals.size(); i++) {
            long handle = handlesAndValues[0][i];
            signals.semaphore(i).addTimepoint(signals.value(i), (semaphore, value, failure) -> {
                if (failure != null) {
                    session.failed(handle, failure);
                    return;
                }
                Frontier frontier = new Frontier(TimelineSemaphore.DEFAULT_FRONTIER_AXES);
                try {
                    semaphore.frontierAt(value, frontier);
                } catch (StatusException failedMeanwhile) {
                    frontier.reset();
                }
                session.reached(handle, value, frontier);
            });
        }
    }
}
