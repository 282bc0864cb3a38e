package dev.ortho.hal.remote.internal.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-wide budget of live buffer bytes that every client's {@link HandleTable} draws from
 * beside its own quota, so many clients within their quotas cannot together exhaust the host.
 * Thread-safe (lock-free).
 */
public final class MemoryBudget {
    private final long limit;
    private final AtomicLong used = new AtomicLong();

    /** @param limit the bytes all clients together may hold (positive) */
    public MemoryBudget(long limit) {
        this.limit = limit;
    }

    /** Reserves {@code bytes} if they fit; false (and nothing reserved) otherwise. */
    boolean tryReserve(long bytes) {
        while (true) {
            long current = used.get();
            if (bytes < 0 || bytes > limit - current) {
                return false;
            }
            if (used.compareAndSet(current, current + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        used.addAndGet(-bytes);
    }

    /** Bytes reserved by all clients now. */
    public long used() {
        return used.get();
    }

    public long limit() {
        return limit;
    }
}
