package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A budget of host memory that programs running in a {@link Context} may hold: the storage of
 * every {@code vm.list} and the bytes of every {@code vm.buffer} they allocate
 * ({@code vm.list.alloc}/{@code reserve}/{@code resize}, {@code vm.buffer.alloc}/{@code clone}).
 * A program that would go past the limit fails with RESOURCE_EXHAUSTED naming the limit, the
 * request and the bytes in use, long before the JVM heap runs out; memory is given back when the
 * list or buffer is destroyed (its last reference released).
 *
 * <p>Give one to {@link Context#create(Instance, HostMemoryLimit, Module...)}; a forked context
 * shares its parent's. Lists and buffers the host creates itself (invocation arguments) are not
 * counted unless the host passes the limit to their factory. {@link #UNLIMITED} counts nothing.
 *
 * <p>Thread-safe and lock-free: any number of contexts and threads may charge one limit.
 */
public final class HostMemoryLimit {
    /** No limit, and no accounting: what contexts use unless given another. */
    public static final HostMemoryLimit UNLIMITED = new HostMemoryLimit(Long.MAX_VALUE);

    private final long limit;
    private final AtomicLong used = new AtomicLong();

    private HostMemoryLimit(long limit) {
        this.limit = limit;
    }

    /**
     * A new limit of {@code bytes}, with nothing in use.
     *
     * @throws StatusException INVALID_ARGUMENT for a negative {@code bytes}
     */
    public static HostMemoryLimit of(long bytes) {
        if (bytes < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "negative host memory limit " + bytes);
        }
        return new HostMemoryLimit(bytes);
    }

    /** The limit in bytes ({@link Long#MAX_VALUE} for {@link #UNLIMITED}). */
    public long limit() {
        return limit;
    }

    /** The bytes currently charged (always 0 for {@link #UNLIMITED}). */
    public long used() {
        return used.get();
    }

    /**
     * Charges {@code bytes} for {@code what} (e.g. {@code growing vm.list<i32> to 4096 elements});
     * the caller must {@link #refund} them when the memory is freed, or at once if allocating fails.
     *
     * @throws StatusException RESOURCE_EXHAUSTED if the limit would be exceeded (nothing is
     *     charged then), INVALID_ARGUMENT for negative {@code bytes}
     */
    public void charge(long bytes, String what) {
        if (bytes < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "negative host memory charge " + bytes);
        }
        if (this == UNLIMITED || bytes == 0) {
            return;
        }
        long before;
        do {
            before = used.get();
            if (bytes > limit - before) {
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "host memory limit of " + limit
                        + " bytes exceeded: " + what + " needs " + bytes + " bytes with " + before + " in use");
            }
        } while (!used.compareAndSet(before, before + bytes));
    }

    /** Gives back {@code bytes} charged earlier. */
    public void refund(long bytes) {
        if (this != UNLIMITED && bytes > 0) {
            used.addAndGet(-bytes);
        }
    }

    @Override
    public String toString() {
        return this == UNLIMITED ? "HostMemoryLimit[unlimited]"
                : "HostMemoryLimit[" + used() + " of " + limit + " bytes]";
    }
}
