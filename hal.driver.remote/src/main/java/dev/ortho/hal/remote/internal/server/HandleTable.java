package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.Resource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One client's resources by client-assigned handle, with the handle and memory quotas. Thread-safe
 * (synchronized; used mostly by the session's I/O thread).
 */
final class HandleTable {
    /** A resource and the buffer bytes it counts against the memory quota. */
    private static final class Entry {
        final Object resource;
        final StatusException poison;
        long bytes;

        Entry(Object resource, StatusException poison, long bytes) {
            this.resource = resource;
            this.poison = poison;
            this.bytes = bytes;
        }
    }

    private final Map<Long, Entry> entries = new HashMap<>();
    private final int maxHandles;
    private final long maxMemoryBytes;
    private final MemoryBudget budget;
    private long memoryBytes; // guarded by this

    /** @param budget the server-wide budget this client's memory also counts against */
    HandleTable(int maxHandles, long maxMemoryBytes, MemoryBudget budget) {
        this.maxHandles = maxHandles;
        this.maxMemoryBytes = maxMemoryBytes;
        this.budget = budget;
    }

    /** Checks that {@code handle} is new and a handle is free. */
    synchronized void checkNew(long handle) {
        if (handle == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "handle 0 is reserved");
        }
        if (entries.containsKey(handle)) {
            throw new StatusException(StatusCode.ALREADY_EXISTS, "handle " + handle + " is already in use");
        }
        if (entries.size() >= maxHandles) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "client holds " + entries.size()
                    + " handles, its quota; handle " + handle + " refused");
        }
    }

    /**
     * The bytes an allocation of {@code size} aligned to {@code alignment} may take: an allocator
     * may need up to the alignment more to align it (Java's arenas reserve and zero {@code size +
     * alignment - 1} for alignments above the system allocator's), so a 64-byte buffer aligned to
     * 1 GiB is charged 1 GiB, not 64 bytes. Alignments up to 64 bytes cost nothing extra.
     */
    static long footprint(long size, long alignment) {
        if (size < 0 || alignment <= 64) {
            return size; // a negative size is refused as it is
        }
        long total = size + alignment;
        return total < 0 ? Long.MAX_VALUE : total;
    }

    /**
     * Reserves {@code bytes} of the client's memory quota and of the server's budget;
     * RESOURCE_EXHAUSTED naming the limit that was hit and the use of both otherwise.
     */
    synchronized void reserveMemory(long bytes, String what) {
        boolean client = bytes >= 0 && bytes <= maxMemoryBytes - memoryBytes;
        if (!client || !budget.tryReserve(bytes)) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, what + " of " + bytes + " bytes exceeds the "
                    + (client ? "server memory budget" : "client memory quota") + " (client quota: " + memoryBytes
                    + " of " + maxMemoryBytes + " bytes in use; server budget: " + budget.used() + " of "
                    + budget.limit() + " bytes in use by all clients)");
        }
        memoryBytes += bytes;
    }

    synchronized void releaseMemory(long bytes) {
        memoryBytes -= bytes;
        budget.release(bytes);
    }

    synchronized long memoryBytes() {
        return memoryBytes;
    }

    synchronized void put(long handle, Object resource, long bytes) {
        entries.put(handle, new Entry(resource, null, bytes));
    }

    /** Records that creating {@code handle} failed, so users of it see why (only within the quota). */
    synchronized void poison(long handle, StatusException status) {
        if (handle != 0 && !entries.containsKey(handle) && entries.size() < maxHandles) {
            entries.put(handle, new Entry(null, status, 0));
        }
    }

    synchronized int size() {
        return entries.size();
    }

    /**
     * The resource of {@code handle} as {@code type}; NOT_FOUND, INVALID_ARGUMENT or the poison
     * otherwise. A {@link QueueAllocation} asked for as a {@link Buffer} is its committed buffer
     * (FAILED_PRECONDITION while it has none).
     */
    synchronized <T> T get(long handle, Class<T> type, String what) {
        Entry entry = entry(handle, what);
        if (type == Buffer.class && entry.resource instanceof QueueAllocation pending) {
            return type.cast(pending.buffer(what));
        }
        if (!type.isInstance(entry.resource)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " handle " + handle + " is a "
                    + entry.resource.getClass().getSimpleName() + ", not a " + type.getSimpleName());
        }
        return type.cast(entry.resource);
    }

    /**
     * The buffer of {@code handle}, or the {@link QueueAllocation} that will become it, for a queue
     * operation that resolves it when it runs ({@link QueueAllocation#resolve}).
     */
    synchronized Resource bufferLater(long handle, String what) {
        Entry entry = entry(handle, what);
        if (entry.resource instanceof QueueAllocation pending) {
            return pending;
        }
        if (!(entry.resource instanceof Buffer buffer)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " handle " + handle + " is a "
                    + entry.resource.getClass().getSimpleName() + ", not a Buffer");
        }
        return buffer;
    }

    private Entry entry(long handle, String what) {
        Entry entry = entries.get(handle);
        if (entry == null) {
            throw new StatusException(StatusCode.NOT_FOUND, what + " handle " + handle + " is unknown");
        }
        if (entry.poison != null) {
            throw new StatusException(entry.poison.code(), what + " handle " + handle + " was never created: "
                    + entry.poison.getMessage());
        }
        return entry;
    }

    /** The quota bytes still charged to buffer {@code handle}, now uncharged (for a dealloca). */
    synchronized long takeBytes(long handle) {
        Entry entry = entries.get(handle);
        if (entry == null) {
            return 0;
        }
        long bytes = entry.bytes;
        entry.bytes = 0;
        return bytes;
    }

    /** Drops {@code handle}'s reference; NOT_FOUND if unknown. */
    synchronized void release(long handle) {
        Entry entry = entries.remove(handle);
        if (entry == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "released handle " + handle + " is unknown");
        }
        drop(entry);
    }

    private void drop(Entry entry) {
        if (entry.bytes > 0) {
            releaseMemory(entry.bytes);
        }
        if (entry.resource instanceof Resource resource) {
            resource.release();
        }
    }

    private static boolean isBuffer(Object resource) {
        return resource instanceof Buffer || resource instanceof QueueAllocation;
    }

    /** Releases every resource (the client is gone). */
    synchronized void clear() {
        List<Entry> all = new ArrayList<>(entries.values());
        entries.clear();
        // semaphores last: releasing buffers first lets nothing observe a half-torn session
        all.sort((a, b) -> Boolean.compare(!isBuffer(a.resource), !isBuffer(b.resource)));
        for (Entry entry : all) {
            try {
                drop(entry);
            } catch (RuntimeException ignored) {
                // best effort: the client is gone
            }
        }
    }
}
