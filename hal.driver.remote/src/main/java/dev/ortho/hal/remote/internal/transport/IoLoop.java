package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One NIO selector thread ({@code ortho-remote-io-N}, daemon) that accepts, reads and writes for
 * any number of channels and runs a periodic tick (heartbeats, deadlines). After it handled a
 * readiness it polls ({@code selectNow}) for up to {@link SpinBudget#NANOS} before it blocks in
 * {@code select} again, while that pays ({@link SpinBudget}): a peer's next request then finds
 * the thread awake instead of a halted vCPU to resume.
 *
 * <p>Why plain NIO and not Netty: the remote HAL needs length-prefixed frames over a handful of
 * connections, one selector thread, and deadlines — about three hundred lines on the JDK.
 * Netty would add a third-party dependency (and its own thread and buffer-pool model) to a
 * driver bundle that DESIGN.md allows to depend on hal.api only.
 *
 * <p>Thread-safe entry points: {@link #execute} and {@link #close}. Handlers run on the loop
 * thread and must not block.
 *
 * <p><b>Errors.</b> An {@link Error} on the loop thread ({@code OutOfMemoryError}, a stack
 * overflow) is never survived half-way: the loop logs it once, hands it to the {@code onFatal}
 * callback, closes every registered channel and exits, so its owner can shut down cleanly
 * instead of lingering with a dead I/O thread.
 */
public final class IoLoop implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IoLoop.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    /** Called on the loop thread when a registered channel is ready. */
    public interface Handler {
        void onReady(SelectionKey key) throws IOException;

        /** The handler threw; the loop reports it here and carries on. */
        void onFailure(Exception failure);
    }

    private final Selector selector;
    private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Queue<Later> later = new ConcurrentLinkedQueue<>();
    /** The loop is (about to be) in a select that ignores {@link #later}. */
    private volatile boolean sleepingLong;
    private final Thread thread;
    private final long tickNanos;
    private final Runnable tick;
    private final java.util.function.Consumer<Throwable> onFatal;
    private volatile boolean closed;
    private volatile Throwable fatal;

    /**
     * Starts the loop thread.
     *
     * @param tickNanos period of {@code tick}
     * @param tick runs on the loop thread about every {@code tickNanos}; must not block
     */
    public IoLoop(long tickNanos, Runnable tick) {
        this(tickNanos, tick, error -> { });
    }

    /**
     * Starts the loop thread.
     *
     * @param onFatal called once, on the loop thread, with an {@link Error} that stopped the loop
     *     (after it was logged, before the channels are closed); must not block
     */
    public IoLoop(long tickNanos, Runnable tick, java.util.function.Consumer<Throwable> onFatal) {
        this.onFatal = onFatal;
        try {
            this.selector = Selector.open();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.tickNanos = tickNanos;
        this.tick = tick;
        this.thread = Thread.ofPlatform().daemon().name("ortho-remote-io-" + THREADS.incrementAndGet())
                .unstarted(this::run);
        thread.start();
    }

    /** Runs {@code task} on the loop thread soon (inline ordering with other tasks is FIFO). */
    public void execute(Runnable task) {
        tasks.add(task);
        selector.wakeup();
    }

    /**
     * Runs {@code task} on the loop thread after about {@code delayNanos} (at least that long,
     * at the selector's millisecond granularity; typically within a millisecond or two): for
     * work that should wait for a burst to end, like writing deferred frames nobody flushed.
     */
    public void executeLater(Runnable task, long delayNanos) {
        later.add(new Later(System.nanoTime() + delayNanos, task));
        if (sleepingLong) {
            selector.wakeup(); // it sleeps until the next tick: let it take the deadline into account
        }
    }

    private record Later(long deadline, Runnable task) {}

    /** Whether the caller is the loop thread. */
    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    /** Registers {@code channel} (non-blocking) for {@code ops}; call on the loop thread. */
    public SelectionKey register(SelectableChannel channel, int ops, Handler handler) throws IOException {
        return channel.register(selector, ops, handler);
    }

    private void run() {
        long nextTick = System.nanoTime() + tickNanos;
        SpinBudget spin = new SpinBudget();
        long spinUntil = System.nanoTime();
        try {
            while (!closed) {
                boolean spinning = System.nanoTime() - spinUntil < 0;
                if (spinning) {
                    selector.selectNow(); // (tasks and due later-tasks are looked at below, each pass)
                } else {
                    long wait = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nextTick - System.nanoTime()));
                    sleepingLong = true;
                    if (!later.isEmpty()) { // checked after the flag: a task added meanwhile wakes the select
                        sleepingLong = false;
                        wait = 1;
                    }
                    selector.select(wait);
                    sleepingLong = false;
                }
                Runnable task;
                while ((task = tasks.poll()) != null) {
                    runSafely(task);
                }
                runDue();
                boolean handled = !selector.selectedKeys().isEmpty();
                if (handled) { // (no iterator per empty spin pass)
                    for (SelectionKey key : selector.selectedKeys()) {
                        Handler handler = (Handler) key.attachment();
                        try {
                            if (key.isValid()) {
                                handler.onReady(key);
                            }
                        } catch (Exception e) {
                            handler.onFailure(e);
                        }
                    }
                    selector.selectedKeys().clear();
                }
                long now = System.nanoTime();
                if (handled) {
                    if (spinning) {
                        spin.ended(true);
                    }
                    if (spin.worthSpinning()) {
                        spinUntil = now + SpinBudget.NANOS; // the peer's next frame may come soon
                    }
                } else if (spinning) {
                    if (now - spinUntil >= 0) {
                        spin.ended(false);
                    } else {
                        Thread.yield(); // (a peer on this CPU runs; alone here, this vCPU stays awake)
                    }
                }
                if (now - nextTick >= 0) {
                    nextTick = now + tickNanos;
                    runSafely(tick);
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            if (!closed) {
                LOG.error("remote I/O loop {} failed", thread.getName(), e);
            }
        } catch (Error e) {
            fatal(e);
        } finally {
            closed = true;
            Runnable task;
            while ((task = tasks.poll()) != null) {
                runSafely(task);
            }
            Later pending;
            while ((pending = later.poll()) != null) {
                runSafely(pending.task());
            }
            for (SelectionKey key : selector.keys()) {
                try {
                    key.channel().close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            try {
                selector.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }

    /** Runs the {@link #executeLater} tasks whose deadline passed, in order; the others stay. */
    private void runDue() {
        if (later.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (var it = later.iterator(); it.hasNext(); ) {
            Later next = it.next();
            if (next.deadline() - now <= 0) {
                it.remove();
                runSafely(next.task());
            }
        }
    }

    private void fatal(Error e) {
        fatal = e;
        try {
            LOG.error("remote I/O loop {} stopped by {}; its connections are closed", thread.getName(), e.toString(), e);
            onFatal.accept(e);
        } catch (Throwable again) {
            // out of memory even for the report: closing the channels below still frees the peers
        }
    }

    /** The {@link Error} that stopped the loop, or null. */
    public Throwable fatal() {
        return fatal;
    }

    /** Whether the loop still runs (not closed, not stopped by an error). */
    public boolean isRunning() {
        return !closed && thread.isAlive();
    }

    private static void runSafely(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.error("remote I/O task failed", e);
        }
    }

    /** Stops the loop and closes every channel still registered; the thread exits promptly. */
    @Override
    public void close() {
        closed = true;
        selector.wakeup();
    }
}
