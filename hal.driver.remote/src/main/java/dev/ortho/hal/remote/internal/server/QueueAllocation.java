package dev.ortho.hal.remote.internal.server;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.Resource;

/**
 * A client's queue allocation whose waits were not reached when it arrived: the handle exists at
 * once (so later frames can name it), the memory only once the waits are reached and the
 * allocation runs ({@code Device.queueAlloca}: nothing is committed if a wait fails). Queue
 * operations decoded meanwhile hold this placeholder and resolve it when they run; other uses
 * resolve it at once and fail with FAILED_PRECONDITION while it has no memory.
 *
 * <p>Reference counted like the buffer it becomes: the handle table holds one reference, each
 * queue operation using it another; the committed buffer is released with the last. Thread-safe.
 */
final class QueueAllocation implements Resource {
    private final long handle;
    private int references = 1; // guarded by this
    private Buffer buffer; // guarded by this
    private StatusException failure; // guarded by this

    QueueAllocation(long handle) {
        this.handle = handle;
    }

    /** Gives the placeholder its memory; released at once if every reference is gone already. */
    synchronized void commit(Buffer allocated) {
        if (references == 0) {
            allocated.release();
        } else {
            buffer = allocated;
        }
    }

    /** Records why the allocation never ran (a failed wait, a failed allocation, a disconnect). */
    synchronized void fail(StatusException status) {
        failure = status;
    }

    /** The committed buffer; FAILED_PRECONDITION naming {@code what} while it has no memory. */
    synchronized Buffer buffer(String what) {
        if (buffer != null) {
            return buffer;
        }
        throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " handle " + handle + " has no memory: "
                + (failure != null ? "its queue allocation did not run (" + failure.getMessage() + ")"
                        : "its queue allocation is still waiting"));
    }

    /** {@code resource} itself if it is a buffer, else the committed buffer of a placeholder. */
    static Buffer resolve(Resource resource, String what) {
        return resource instanceof QueueAllocation pending ? pending.buffer(what) : (Buffer) resource;
    }

    @Override
    public synchronized void retain() {
        references++;
    }

    @Override
    public synchronized void release() {
        if (--references == 0 && buffer != null) {
            buffer.release();
            buffer = null;
        }
    }

    @Override
    public synchronized String toString() {
        return "queue allocation " + handle + (buffer != null ? " (" + buffer + ")" : " (no memory)");
    }
}
