package dev.ortho.vm.internal;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Frame;
import dev.ortho.vm.WaitSource;
import dev.ortho.vm.WaitType;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Waits on a WAIT frame's sources: the synchronous wait of {@code Invocation.invoke} and
 * {@code ModuleTestRunner} (one implementation for both), and the {@link Waiter} that collects
 * readiness for them and for {@code Coroutine.whenReady}.
 */
public final class WaitFrames {
    /** How long a synchronous wait on wait sources polls before it parks (see {@link #waitSync}). */
    private static final long SPIN_NANOS = 50_000L;

    private WaitFrames() {
    }

    /**
     * Waits on the calling thread until {@code wait} (a WAIT frame) is over; returns its outcome for
     * {@link Frame#setWaitStatus}: null when its sources are ready (ALL: every one, ANY: one) or
     * an UNTIL wait's deadline passed, a source's failure, or DEADLINE_EXCEEDED. Before it polls
     * or parks, the thread runs the work its sources wait for where their producer offers it
     * ({@link WaitSource#help}; an UNTIL wait has nothing to help).
     */
    public static StatusException waitSync(Frame wait) {
        Deadline deadline = wait.deadline();
        if (wait.waitType() == WaitType.UNTIL) {
            while (!deadline.hasExpired()) {
                LockSupport.parkNanos(Math.max(1, Math.min(deadline.remainingNanos(), 1_000_000_000L)));
            }
            return null;
        }
        help(wait, deadline.nanos());
        Thread self = Thread.currentThread();
        Waiter waiter = new Waiter(wait, () -> LockSupport.unpark(self));
        waiter.arm();
        // Poll briefly before parking: a wait on a short device operation (a small graph on
        // local-task) then ends without a park/unpark round trip through the OS.
        long spinStart = System.nanoTime();
        while (!waiter.finished && System.nanoTime() - spinStart < SPIN_NANOS && !deadline.hasExpired()) {
            Thread.yield(); // not onSpinWait: on a loaded machine the thread we wait for may need this core
        }
        while (!waiter.finished) {
            if (deadline.hasExpired()) {
                return new StatusException(StatusCode.DEADLINE_EXCEEDED, "wait deadline exceeded");
            }
            long nanos = deadline.isInfinite() ? 1_000_000_000L : Math.min(deadline.remainingNanos(), 1_000_000_000L);
            LockSupport.parkNanos(waiter, Math.max(1, nanos));
        }
        return waiter.status;
    }

    /**
     * Lets the calling thread run what {@code wait}'s sources wait for ({@link WaitSource#help}),
     * source by source, until the deadline passes, a source fails, or (ANY) one is ready.
     */
    private static void help(Frame wait, long deadlineNanos) {
        boolean any = wait.waitType() == WaitType.ANY;
        for (int i = 0; i < wait.waitSourceCount(); i++) {
            if (Deadline.remainingNanos(deadlineNanos, System.nanoTime()) == 0) {
                return;
            }
            WaitSource source = wait.waitSource(i);
            source.help(deadlineNanos);
            try {
                if (source.poll() && any) {
                    return;
                }
            } catch (StatusException failed) {
                return; // the wait fails: nothing more to run for it
            }
        }
    }

    /** Collects readiness of a WAIT frame's sources; completes once (ANY: first, ALL: all, or first failure). */
    public static final class Waiter {
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicInteger pending;
        private final Frame frame;
        private final Runnable onDone;
        private volatile StatusException status;
        private volatile boolean finished;

        /** A waiter for {@code frame} that runs {@code onDone} once, on the thread that completes it. */
        public Waiter(Frame frame, Runnable onDone) {
            this.frame = frame;
            this.onDone = onDone;
            this.pending = new AtomicInteger(frame.waitType() == WaitType.ANY ? 1 : frame.waitSourceCount());
        }

        /** Registers with every source (stops early once done); may complete inline. */
        public void arm() {
            int n = frame.waitSourceCount();
            WaitSource[] sources = new WaitSource[n];
            for (int i = 0; i < n; i++) {
                sources[i] = frame.waitSource(i);
            }
            for (WaitSource source : sources) {
                if (done.get()) {
                    return;
                }
                source.whenReady(this::onReady);
            }
        }

        private void onReady(StatusException failure) {
            if (failure != null) {
                finish(failure);
            } else if (pending.decrementAndGet() <= 0) {
                finish(null);
            }
        }

        /** Completes the wait with {@code failure} (null: success) unless it completed already. */
        public void finish(StatusException failure) {
            if (done.compareAndSet(false, true)) {
                // release: the volatile write publishes the status to the resumer, which reads it after done.
                status = failure;
                finished = true;
                onDone.run();
            }
        }

        /** The outcome once complete: null for success, else the failure. */
        public StatusException status() {
            return status;
        }
    }
}
