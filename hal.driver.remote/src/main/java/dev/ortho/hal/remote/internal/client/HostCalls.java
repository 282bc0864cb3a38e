package dev.ortho.hal.remote.internal.client;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.sync.Gate;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The host calls of one {@link RemoteDevice}: host code, so they run on this client (one thread,
 * {@code ortho-remote-host-N}, started on the first call and stopped when idle) once their waits
 * are reached, and their signals travel as host signals. Thread-safe.
 */
final class HostCalls {
    private static final Logger LOG = LoggerFactory.getLogger(HostCalls.class);
    private static final AtomicInteger HOST_THREADS = new AtomicInteger();

    private final RemoteDevice device;
    private volatile ExecutorService executor;

    HostCalls(RemoteDevice device) {
        this.device = device;
    }

    /** Runs {@code call} once {@code waits} are reached; the lists are retained until it ran. Checked arguments. */
    void submit(SemaphoreList waits, SemaphoreList signals, HostCall call, long[] args, long flags) {
        retainAll(waits);
        retainAll(signals);
        Gate.open(waits, executor(), failure -> {
            try {
                run(signals, call, args, flags, failure);
            } finally {
                releaseAll(waits);
                releaseAll(signals);
            }
        });
    }

    private void run(SemaphoreList signals, HostCall call, long[] args, long flags, StatusException failure) {
        if (failure != null) {
            signals.fail(failure);
            return;
        }
        if ((flags & HostCall.FLAG_NON_BLOCKING) != 0) {
            signalQuietly(signals);
            try {
                call.call(device, args, SemaphoreList.empty());
            } catch (RuntimeException e) {
                LOG.warn("non-blocking host call on {} failed; dropped: {}", device, e.toString());
            }
            return;
        }
        boolean done;
        try {
            done = call.call(device, args, signals);
        } catch (StatusException e) {
            signals.fail(e);
            return;
        } catch (RuntimeException e) {
            signals.fail(new StatusException(StatusCode.UNKNOWN, "host call threw " + e, e));
            return;
        }
        if (done) {
            signalQuietly(signals);
        }
    }

    /** Signals on a host-call thread: a failure (e.g. the device closed meanwhile) fails the list instead. */
    private void signalQuietly(SemaphoreList signals) {
        try {
            signals.signal();
        } catch (StatusException e) {
            LOG.debug("host call signals on {} failed: {}", device, e.toString());
            signals.fail(e);
        }
    }

    private static void retainAll(SemaphoreList list) {
        for (int i = 0; i < list.size(); i++) {
            list.semaphore(i).retain();
        }
    }

    private static void releaseAll(SemaphoreList list) {
        for (int i = 0; i < list.size(); i++) {
            list.semaphore(i).release();
        }
    }

    private ExecutorService executor() {
        ExecutorService current = executor;
        if (current == null) {
            synchronized (this) {
                current = executor;
                if (current == null) {
                    ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 10, TimeUnit.SECONDS,
                            new LinkedBlockingQueue<>(), runnable -> Thread.ofPlatform().daemon()
                                    .name("ortho-remote-host-" + HOST_THREADS.incrementAndGet()).unstarted(runnable));
                    pool.allowCoreThreadTimeOut(true);
                    executor = current = pool;
                }
            }
        }
        return current;
    }

    /** Stops the thread after the calls already queued (the device's last release). */
    void shutdown() {
        ExecutorService current = executor;
        if (current != null) {
            current.shutdown();
        }
    }
}
