package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.frontier.SemaphoreScope;
import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A logical device with one or more queues: IREE's {@code iree_hal_device_t}. Created by a
 * {@link Driver} (usually through {@link DriverRegistry#createDevice(String)}); the creator owns
 * the reference and {@link #close()}s it.
 *
 * <p><b>Queue operations</b> ({@code queue…}) return at once. Each runs once every timepoint in
 * {@code waits} is reached, then signals every timepoint in {@code signals}; if a wait fails or
 * the operation fails, the signal semaphores fail with that status (asynchronous errors travel
 * as semaphore failures, the first error wins). Argument errors found at the call are thrown
 * instead. {@code queueAffinity} selects queues by bit ({@code -1} or {@code 0} for any); the
 * device picks one of the selected queues. Every resource an operation uses is retained until
 * it retires, so callers may release their own references at once.
 *
 * <p>Closing a device with work in flight fails that work's signal semaphores with
 * {@code CANCELLED} or {@code UNAVAILABLE}; nobody waiting on them hangs.
 *
 * <p>Thread-safe.
 */
@ProviderType
public interface Device extends Resource {

    /** Queue affinity meaning "any queue". */
    long QUEUE_AFFINITY_ANY = -1L;

    /** The device's identity as its driver enumerates it. */
    DeviceInfo info();

    /** The device's allocator; borrowed, valid while the device is. */
    Allocator allocator();

    /**
     * A device property: IREE's {@code iree_hal_device_query_i64}, with IREE's categories and
     * keys. Every device answers:
     * <ul>
     *   <li>category {@code hal.device.id}, key a pattern ({@code *} and {@code ?} wildcards,
     *       see {@link dev.ortho.hal.spi.DeviceQueries#matchesPattern}): 1 if the device's
     *       identifier (its driver name, e.g. {@code local-sync}) matches, else 0;
     *   <li>category {@code hal.executable.format}, key a format name: 1 if the device can
     *       prepare executables of that format, else 0;
     *   <li>category {@code hal.device} key {@code concurrency}: the number of queues;
     *   <li>category {@code hal.dispatch} key {@code concurrency}: workgroups run at once.
     * </ul>
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if either is null; NOT_FOUND
     *     naming the category and key if the device does not know them
     */
    long queryI64(String category, String key);

    /**
     * What this device can do: {@link DeviceCapability} bits, IREE's
     * {@code iree_hal_device_capability_bits_t} plus Ortho's scheduling features
     * ({@link DeviceCapability#ASYNC_QUEUES}, {@link DeviceCapability#MULTI_QUEUE}, ...). Fixed
     * for the device's life; cheap.
     */
    long capabilities();

    /**
     * Creates a timeline semaphore at {@code initialValue} whose visibility is {@code scope},
     * fixed for its life (seed 002, "Scopes"). {@link SemaphoreScope#QUEUE_LOCAL} semaphores are
     * signalled and waited on by one queue's work (plus host polls and waits) and pay no
     * synchronisation for frontiers: they record none, since the queue's FIFO already orders
     * their waiters ({@link Semaphore#frontierAt} reports reached values as unknown, so no other
     * queue ever elides a wait on their strength). {@link SemaphoreScope#DEVICE} and wider record
     * the frontier of each signalled value for waiters on other queues, devices and the host.
     * The caller owns the semaphore.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if {@code scope} is null;
     *     OUT_OF_RANGE for a value outside {@code [0, Semaphore.MAX_VALUE]}; UNIMPLEMENTED if
     *     the device cannot provide {@code scope}
     */
    Semaphore createSemaphore(long initialValue, SemaphoreScope scope);

    /**
     * Creates a {@link SemaphoreScope#PROCESS}-scoped timeline semaphore (visible to the host and
     * every device of the process, as IREE's default semaphore flags) at {@code initialValue}.
     *
     * @throws dev.ortho.base.StatusException as {@link #createSemaphore(long, SemaphoreScope)}
     */
    default Semaphore createSemaphore(long initialValue) {
        return createSemaphore(initialValue, SemaphoreScope.PROCESS);
    }

    /** Creates an event for use in this device's command buffers. The caller owns it. */
    Event createEvent();

    /**
     * Creates a command buffer in the initial state. The caller owns it.
     *
     * @param mode {@link CommandBufferMode} bits
     * @param categories {@link CommandCategory} bits of the commands it will hold
     * @param queueAffinity queues it may be submitted to
     * @param bindingCapacity binding-table slots its indirect references may use (0 for none)
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for unknown bits or a negative
     *     capacity
     */
    CommandBuffer createCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity);

    /**
     * Joins a collective group: IREE's {@code iree_hal_device_create_channel}. The caller owns
     * the channel. Devices without collectives ({@link DeviceCapability#COLLECTIVES} unset)
     * report UNIMPLEMENTED, as the default does.
     *
     * @throws dev.ortho.base.StatusException UNIMPLEMENTED without collectives; INVALID_ARGUMENT
     *     for null params or a rank outside {@code [0, count)}
     */
    default Channel createChannel(long queueAffinity, ChannelParams params) {
        throw new StatusException(StatusCode.UNIMPLEMENTED,
                "collectives are not implemented by device '" + info().name() + "'");
    }

    /** Creates an executable cache; {@code identifier} names it in logs. The caller owns it. */
    ExecutableCache createExecutableCache(String identifier);

    /**
     * Allocates a buffer of {@code size} bytes in queue order: the returned buffer may be used
     * by work that waits on {@code signals}. The caller owns the reference. The memory comes from
     * the device's {@link #defaultPool() default pool} (for devices with pools).
     *
     * <p>Memory is committed only once {@code waits} are reached. If a wait fails, nothing is
     * allocated: the signals fail with that wait's status and the returned buffer has no memory
     * (every use of it fails with FAILED_PRECONDITION); the caller still releases it. An
     * allocation that fails when it runs (RESOURCE_EXHAUSTED) is reported the same way. A
     * synchronous device returns after the waits, an asynchronous one at once.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for null lists or params, a
     *     negative size or a bad alignment; INVALID_ARGUMENT for an affinity selecting no queue
     */
    Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, BufferParams params,
            long size, long flags);

    /**
     * Allocates from {@code pool} in queue order: IREE's {@code iree_hal_device_queue_alloca}
     * with its pool argument. Behaves as
     * {@link #queueAlloca(long, SemaphoreList, SemaphoreList, BufferParams, long, long)} except
     * that the memory is reserved from {@code pool} (its quota, its free memory, its statistics);
     * {@code null} selects the device's default pool, i.e. that method. {@code flags} are
     * {@link AllocaFlags} bits. The returned buffer's dealloca returns the memory to
     * {@code pool}.
     *
     * <p>The default implementation serves {@code null} by the six-argument method and reports
     * UNIMPLEMENTED for any pool of this device, for devices without pools.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if {@code pool} belongs to another
     *     device (naming both) or for the arguments the six-argument method rejects;
     *     FAILED_PRECONDITION if {@code pool} was released; UNIMPLEMENTED for a device without
     *     pools
     */
    default Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Pool pool,
            BufferParams params, long size, long flags) {
        if (pool == null) {
            return queueAlloca(queueAffinity, waits, signals, params, size, flags);
        }
        if (pool.device() != this) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueAlloca pool " + pool + " belongs to device '"
                    + pool.device().info().name() + "', not to device '" + info().name() + "'");
        }
        throw new StatusException(StatusCode.UNIMPLEMENTED,
                "queue allocation from a pool is not implemented by device '" + info().name() + "'");
    }

    /**
     * Creates a pool with its own quota and free memory for
     * {@link #queueAlloca(long, SemaphoreList, SemaphoreList, Pool, BufferParams, long, long)}.
     * The caller owns it. Devices without pools report UNIMPLEMENTED, as the default does.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for null params or buffer params,
     *     a quota that is not positive, or buffer params the device cannot allocate;
     *     UNIMPLEMENTED for a device without pools
     */
    default Pool createPool(PoolParams params) {
        throw new StatusException(StatusCode.UNIMPLEMENTED,
                "memory pools are not implemented by device '" + info().name() + "'");
    }

    /**
     * The pool queue allocas without a pool use: borrowed, valid while the device is, the same
     * object on every call. Devices without pools report UNIMPLEMENTED, as the default does.
     *
     * @throws dev.ortho.base.StatusException UNIMPLEMENTED for a device without pools
     */
    default Pool defaultPool() {
        throw new StatusException(StatusCode.UNIMPLEMENTED,
                "memory pools are not implemented by device '" + info().name() + "'");
    }

    /** Frees {@code buffer}'s memory in queue order once {@code waits} are reached. */
    void queueDealloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer buffer, long flags);

    /** Fills {@code [offset, offset + length)} of {@code target} with a 1, 2 or 4 byte pattern. */
    void queueFill(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer target, long offset,
            long length, int pattern, int patternLength, long flags);

    /** Copies host bytes (captured at the call) into {@code target} at {@code targetOffset}. */
    void queueUpdate(long queueAffinity, SemaphoreList waits, SemaphoreList signals, MemorySegment source,
            Buffer target, long targetOffset, long flags);

    /**
     * Copies {@code length} bytes between buffers. As IREE, the ranges must not overlap when
     * both lie in one allocation (the same buffer or subspans of one root): that is
     * INVALID_ARGUMENT at the call, naming both ranges, and nothing is signalled or failed.
     */
    void queueCopy(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer source,
            long sourceOffset, Buffer target, long targetOffset, long length, long flags);

    /** Dispatches one function with direct bindings; see {@link CommandBuffer#dispatch}. */
    void queueDispatch(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Executable executable,
            int function, DispatchConfig config, MemorySegment constants, BufferRef[] bindings, long flags);

    /**
     * Executes a finished command buffer, resolving its indirect references against
     * {@code bindings} (captured at the call). A null command buffer is a barrier.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT if {@code queueAffinity} selects
     *     no queue of the device, or no queue the command buffer was created for (the two
     *     affinities, with {@code 0} and {@code -1} meaning any, must intersect; the message
     *     names both); FAILED_PRECONDITION if the command buffer is still recording or a
     *     one-shot command buffer was already submitted
     */
    void queueExecute(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            CommandBuffer commandBuffer, BindingTable bindings, long flags);

    /** Signals {@code signals} once {@code waits} are reached. */
    void queueBarrier(long queueAffinity, SemaphoreList waits, SemaphoreList signals, long flags);

    /** Runs {@code call} on the host in queue order; see {@link HostCall}. */
    void queueHostCall(long queueAffinity, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags);

    /** Starts any operations the queues have batched but not issued yet. */
    void queueFlush(long queueAffinity);
}
