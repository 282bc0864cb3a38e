package dev.ortho.hal.remote.internal.shm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The worker pools of one driver factory, one per (mode, supplier, size, mailbox size), built
 * on first use so enumeration never spawns anything. Thread-safe.
 */
public final class ShmPools implements AutoCloseable {
    private final Map<String, WorkerPool> pools = new HashMap<>();
    private boolean closed;

    /** The pool for these settings, spawning its workers on first use. */
    public synchronized WorkerPool pool(WorkerPool.Mode mode, String supplierClass, int workers, long mailboxBytes) {
        if (closed) {
            throw new dev.ortho.base.StatusException(dev.ortho.base.StatusCode.UNAVAILABLE,
                    "the remote driver factory was closed");
        }
        String key = mode + "|" + supplierClass + "|" + workers + "|" + mailboxBytes;
        WorkerPool pool = pools.get(key);
        if (pool == null) {
            pool = new WorkerPool(mode, workers, supplierClass, mailboxBytes);
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
