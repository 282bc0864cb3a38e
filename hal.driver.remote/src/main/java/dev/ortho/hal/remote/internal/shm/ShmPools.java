package dev.ortho.hal.remote.internal.shm;

import dev.ortho.hal.remote.ShmWorkerLauncher;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The worker pools of one driver factory, one per (mode, supplier, size, mailbox size, worker CPUs), built
 * on first use so enumeration never spawns anything. Thread-safe.
 */
public final class ShmPools implements AutoCloseable {
    private final Supplier<ShmWorkerLauncher> hostLauncher;
    private final Map<String, WorkerPool> pools = new HashMap<>();
    private boolean closed;

    /** @param hostLauncher the host's launcher for {@code device=URI} workers, or null while there is none */
    public ShmPools(Supplier<ShmWorkerLauncher> hostLauncher) {
        this.hostLauncher = hostLauncher;
    }

    /** The host's worker launcher, or null if this host has none. */
    public ShmWorkerLauncher hostLauncher() {
        return hostLauncher.get();
    }

    /**
     * The pool for these settings, spawning its workers on first use.
     *
     * @param launcher {@link WorkerPool#PLAIN_JAVA} with a supplier class, or the host's launcher
     *     with a device URI
     * @param workerCpus the CPUs each worker's pump keeps to (bits 0 to 63), 0 for any
     */
    public synchronized WorkerPool pool(WorkerPool.Mode mode, String served, ShmWorkerLauncher launcher, int workers,
            long mailboxBytes, long workerCpus) {
        if (closed) {
            throw new dev.ortho.base.StatusException(dev.ortho.base.StatusCode.UNAVAILABLE,
                    "the remote driver factory was closed");
        }
        String key = mode + "|" + (launcher == WorkerPool.PLAIN_JAVA ? "class:" : "device:") + served + "|" + workers
                + "|" + mailboxBytes + "|" + Long.toHexString(workerCpus);
        WorkerPool pool = pools.get(key);
        if (pool == null) {
            pool = new WorkerPool(mode, workers, served, launcher, mailboxBytes, workerCpus);
            pools.put(key, pool);
        }
        return pool;
    }

    /** Stops every pool's idle workers. */
    @Override
    public void close() {
        List<WorkerPool> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(pools.values());
            pools.clear();
        }
        for (WorkerPool pool : all) {
            pool.close();
        }
    }
}
