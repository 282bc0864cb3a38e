package dev.ortho.hal.remote.internal.sync;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared pool: one client's ready queue
 * operations keep their order and cannot occupy more than one pool thread, so a client with a
 * long dispatch does not starve the others. Thread-safe.
 */
public final class SerialExecutor implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(SerialExecutor.class);
    private static final int BATCH = 64;

    private final Executor pool;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable afterBurst;
    /** The thread draining now, or null. */
    private volatile Thread drainer;

    public SerialExecutor(Executor pool) {
        this(pool, () -> { });
    }

    /**
     * @param afterBurst runs on the draining thread after each run of tasks (when the queue is
     *     empty, and at least every {@value #BATCH} tasks): where work deferred with
     *     {@link #moreQueued} is finished (e.g. reports sent in one write)
     */
    public SerialExecutor(Executor pool, Runnable afterBurst) {
        this.pool = pool;
        this.afterBurst = afterBurst;
    }

    /**
     * Whether the caller is a task of this executor with more tasks queued behind it, so
     * something it produces may wait for {@code afterBurst} (which runs before this thread
     * leaves the executor).
     */
    public boolean moreQueued() {
        return drainer == Thread.currentThread() && !tasks.isEmpty();
    }

    /** Queued tasks and whether a pool thread drains them (for diagnostics). */
    public String diagnostics() {
        Thread d = drainer;
        return "queued=" + tasks.size() + " scheduled=" + scheduled.get() + (d == null ? "" : " drainer=" + d.getName());
    }

    @Override
    public void execute(Runnable task) {
        tasks.add(task);
        schedule();
    }

    private void schedule() {
        if (scheduled.compareAndSet(false, true)) {
            try {
                pool.execute(this::drain);
            } catch (java.util.concurrent.RejectedExecutionException shutDown) {
                drain(); // the pool is shutting down: finish the work here rather than drop it
            }
        }
    }

    private void drain() {
        drainer = Thread.currentThread();
        try {
            for (int i = 0; i < BATCH; i++) {
                Runnable task = tasks.poll();
                if (task == null) {
                    break;
                }
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("remote server task failed", e);
                }
            }
        } finally {
            drainer = null;
        }
        try {
            afterBurst.run();
        } catch (RuntimeException e) {
            LOG.error("remote server task failed after a burst", e);
        }
        scheduled.set(false);
        if (!tasks.isEmpty()) {
            schedule();
        }
    }
}
