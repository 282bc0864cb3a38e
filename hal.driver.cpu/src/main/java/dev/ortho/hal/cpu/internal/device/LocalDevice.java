package dev.ortho.hal.cpu.internal.device;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.cpu.internal.command.CommandExecutor;
import dev.ortho.hal.cpu.internal.command.LocalCommandBuffer;
import dev.ortho.hal.cpu.internal.command.LocalCommands;
import dev.ortho.hal.cpu.internal.command.LocalEvent;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.LocalExecutableCache;
import dev.ortho.hal.cpu.internal.heap.BlockPool;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.DeviceQueries;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.spi.RefCount;
import dev.ortho.hal.spi.TimelineSemaphore;
import dev.ortho.vm.bytecode.ExecutionMode;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The one core of the local CPU devices ({@code local-sync}, {@code local-task}): identity,
 * allocator, semaphores, events, command buffers, executable caches, pools, queries, every
 * argument check of the queue operations, the reference count and the closed state live here
 * once. What differs is the <em>queue engine</em>, the abstract {@code engine…} methods a
 * subclass implements: inline on the caller ({@code local-sync}) or queue processes on the task
 * executor ({@code local-task}). Both run recorded work through one tile engine
 * ({@link CommandExecutor}); {@link #runInline} is its one-worker form on the calling thread.
 *
 * <p>Queues: {@link #queueCount()}; a queue affinity selects the queue of its lowest set bit
 * below the queue count ({@link Device#QUEUE_AFFINITY_ANY} and 0 select every queue, so queue 0);
 * an affinity with no such bit is INVALID_ARGUMENT. {@code queueExecute} runs on the lowest queue
 * both its affinity and the command buffer's select (INVALID_ARGUMENT if there is none).
 *
 * <p>Every public operation checks its arguments at the call and throws; the engine methods are
 * called only with checked arguments (queue index resolved, pool owned and open, command built).
 * Thread-safe.
 */
public abstract class LocalDevice implements Device {
    /** Arguments a host call takes. */
    protected static final int HOST_CALL_ARGS = 4;

    private final String identifier;
    private final DeviceInfo info;
    /** Where the device's buffers come from. */
    protected final HeapAllocator allocator;
    private final ExecutableLoaders loaders;
    private final ExecutionMode kernelExecution;
    private final RefCount references = new RefCount();
    private final AtomicLong semaphoreCount = new AtomicLong();
    /** Semaphores are named this followed by their number. */
    private final String semaphoreNamePrefix;
    private final AtomicLong poolCount = new AtomicLong();
    /** A tile engine for {@link #runInline}, kept between calls (taken while in use). */
    private final AtomicReference<CommandExecutor> spareExecutor = new AtomicReference<>();
    private volatile boolean closed;
    /** Why the device was closed (null while open, or when closed by its last release without a reason). */
    private volatile StatusException closedReason;

    /**
     * @param identifier what {@code hal.device.id} patterns match ({@code local-sync}, {@code local-task})
     * @param info the identity the driver enumerated
     * @param allocator the device's allocator
     * @param loaders the executable loaders its caches prepare with; shared and possibly updated
     *     by the owner
     * @param kernelExecution how VMVX dispatch functions run (null: as the registry's VMVX loader says)
     */
    protected LocalDevice(String identifier, DeviceInfo info, HeapAllocator allocator,
            ExecutableLoaders loaders, ExecutionMode kernelExecution) {
        this.identifier = identifier;
        this.info = info;
        this.semaphoreNamePrefix = info.name() + " semaphore ";
        this.allocator = allocator;
        this.loaders = loaders;
        this.kernelExecution = kernelExecution;
    }

    // ---- what the queue engine provides -------------------------------------------------------

    /** Number of queues (affinity bits {@code 0 … queueCount() - 1}). */
    public abstract int queueCount();

    /** How many workers run a dispatch's workgroups at once ({@code hal.dispatch :: concurrency}). */
    protected abstract int dispatchConcurrency();

    /** The default pool (open while the device is). */
    protected abstract BlockPool<?> engineDefaultPool();

    /** A new pool named {@code name} with checked {@code params}. */
    protected abstract Pool engineCreatePool(String name, PoolParams params);

    /** Queue alloca from {@code pool} (this device's, open) on queue {@code queue}. */
    protected abstract Buffer engineAlloca(int queue, SemaphoreList waits, SemaphoreList signals, BlockPool<?> pool,
            BufferParams params, long size, long flags);

    /** Queue dealloca of {@code buffer} on queue {@code queue}. */
    protected abstract void engineDealloca(int queue, SemaphoreList waits, SemaphoreList signals, HeapBuffer buffer);

    /**
     * A checked fill of {@code length} bytes (resolved) at {@code offset} of {@code target} on
     * queue {@code queue}.
     */
    protected abstract void engineFill(int queue, SemaphoreList waits, SemaphoreList signals, HeapBuffer target,
            long offset, long length, int pattern, int patternLength);

    /**
     * A checked update or copy touching {@code bytes} bytes of {@code target} (and of
     * {@code source}, null but for copies) on queue {@code queue}.
     */
    protected abstract void engineTransfer(int queue, SemaphoreList waits, SemaphoreList signals,
            RecordedCommand command, long bytes, Buffer target, Buffer source);

    /** A checked dispatch of {@code executable} with direct bindings on queue {@code queue}. */
    protected abstract void engineDispatch(int queue, SemaphoreList waits, SemaphoreList signals,
            RecordedCommand.Dispatch command, Executable executable);

    /**
     * A finished command buffer's {@code program} with a checked binding table (slot count,
     * buffer kinds and ranges) on queue {@code queue}.
     */
    protected abstract void engineExecute(int queue, SemaphoreList waits, SemaphoreList signals,
            LocalCommandBuffer commandBuffer, BlockProgram program, BindingTable bindings);

    /** A barrier (also a null command buffer) on queue {@code queue}. */
    protected abstract void engineBarrier(int queue, SemaphoreList waits, SemaphoreList signals);

    /** A host call with exactly {@value #HOST_CALL_ARGS} arguments on queue {@code queue}. */
    protected abstract void engineHostCall(int queue, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags);

    /** Tears the engine down after the last release ({@link #markClosed} not yet called). */
    protected abstract void engineLastRelease();

    // ---- identity, queries, resources ---------------------------------------------------------

    @Override
    public final DeviceInfo info() {
        return info;
    }

    @Override
    public final Allocator allocator() {
        return allocator;
    }

    @Override
    public final long queryI64(String category, String key) {
        if (category == null || key == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "query category '" + category + "' key '" + key
                    + "' must not be null");
        }
        return switch (category) {
            case DeviceQueries.DEVICE_ID -> DeviceQueries.matchesPattern(identifier, key) ? 1 : 0;
            case DeviceQueries.EXECUTABLE_FORMAT -> LocalExecutableCache.formatQuery(loaders, key);
            case "hal.device" -> {
                if (key.equals("concurrency")) {
                    yield queueCount(); // as IREE: device concurrency is the queue count
                }
                throw DeviceQueries.unknown(info.name(), category, key);
            }
            case "hal.dispatch" -> {
                if (key.equals("concurrency")) {
                    yield dispatchConcurrency();
                }
                throw DeviceQueries.unknown(info.name(), category, key);
            }
            default -> throw DeviceQueries.unknown(info.name(), category, key);
        };
    }

    /**
     * Every scope is backed by the same host-memory {@link TimelineSemaphore} (the CPU shares the
     * host's memory); queue-local ones skip frontier recording.
     */
    @Override
    public final Semaphore createSemaphore(long initialValue, SemaphoreScope scope) {
        requireOpen("createSemaphore");
        return new TimelineSemaphore(semaphoreNamePrefix, semaphoreCount.incrementAndGet(), initialValue, // named when needed
                scope);
    }

    @Override
    public final Event createEvent() {
        requireOpen("createEvent");
        return new LocalEvent();
    }

    /** @throws StatusException INVALID_ARGUMENT for bad arguments or an affinity selecting no queue */
    @Override
    public final CommandBuffer createCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        requireOpen("createCommandBuffer");
        LocalCommandBuffer.checkCreateArguments(mode, categories, bindingCapacity);
        queueIndex(queueAffinity);
        return new LocalCommandBuffer(mode, categories, queueAffinity, bindingCapacity);
    }

    @Override
    public final ExecutableCache createExecutableCache(String identifier) {
        requireOpen("createExecutableCache");
        return new LocalExecutableCache(identifier, loaders, kernelExecution);
    }

    /** The pool of queue allocas without a pool; borrowed. */
    @Override
    public final Pool defaultPool() {
        requireOpen("defaultPool");
        return engineDefaultPool();
    }

    /** A pool with its own quota, free blocks and statistics; the caller owns it. */
    @Override
    public final Pool createPool(PoolParams params) {
        requireOpen("createPool");
        BlockPool.checkCreateParams(info.name(), params, allocator);
        return engineCreatePool(info.name() + " pool " + poolCount.incrementAndGet(), params);
    }

    // ---- queue operations: checks, then the engine --------------------------------------------

    @Override
    public final Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            BufferParams params, long size, long flags) {
        return queueAlloca(queueAffinity, waits, signals, null, params, size, flags);
    }

    /** Reserves from {@code pool} (null: the default pool), which must be this device's and open. */
    @Override
    public final Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Pool pool,
            BufferParams params, long size, long flags) {
        BlockPool<?> from;
        if (pool == null) {
            requireOpen("queueAlloca");
            from = engineDefaultPool();
        } else if (pool instanceof BlockPool<?> own && pool.device() == this) {
            own.checkOpen("queueAlloca", info.name());
            from = own;
        } else {
            Device owner = pool.device();
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueAlloca pool " + pool + " belongs to "
                    + (owner == null ? "no device" : "device '" + owner.info().name() + "'") + ", not to device '"
                    + info.name() + "'");
        }
        int queue = checkQueue("queueAlloca", queueAffinity, waits, signals);
        return engineAlloca(queue, waits, signals, from, params, size, flags);
    }

    /** Frees a queue-allocated buffer's memory once the waits are reached; other buffers: a barrier. */
    @Override
    public final void queueDealloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer buffer,
            long flags) {
        int queue = checkQueue("queueDealloca", queueAffinity, waits, signals);
        engineDealloca(queue, waits, signals, HeapBuffer.cast(buffer, "dealloca buffer"));
    }

    @Override
    public final void queueFill(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer target,
            long offset, long length, int pattern, int patternLength, long flags) {
        int queue = checkQueue("queueFill", queueAffinity, waits, signals);
        long bytes = LocalCommands.fillLength(target, offset, length, patternLength);
        engineFill(queue, waits, signals, (HeapBuffer) target, offset, bytes, pattern, patternLength);
    }

    @Override
    public final void queueUpdate(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            MemorySegment source, Buffer target, long targetOffset, long flags) {
        int queue = checkQueue("queueUpdate", queueAffinity, waits, signals);
        RecordedCommand.Update command = LocalCommands.update(source,
                BufferRef.of(target, targetOffset, Buffer.WHOLE_BUFFER), 0);
        engineTransfer(queue, waits, signals, command, command.data().length, target, null);
    }

    @Override
    public final void queueCopy(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer source,
            long sourceOffset, Buffer target, long targetOffset, long length, long flags) {
        int queue = checkQueue("queueCopy", queueAffinity, waits, signals);
        RecordedCommand command = LocalCommands.copy(BufferRef.of(source, sourceOffset, length),
                BufferRef.of(target, targetOffset, length), 0);
        engineTransfer(queue, waits, signals, command,
                HeapBuffer.cast(source, "copy source").checkRange("copy source", sourceOffset, length), target, source);
    }

    @Override
    public final void queueDispatch(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            Executable executable, int function, DispatchConfig config, MemorySegment constants, BufferRef[] bindings,
            long flags) {
        int queue = checkQueue("queueDispatch", queueAffinity, waits, signals);
        if (bindings != null) {
            for (int i = 0; i < bindings.length; i++) {
                if (bindings[i] != null && bindings[i].isIndirect()) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueDispatch binding " + i
                            + " is an indirect reference (slot " + bindings[i].bufferSlot()
                            + "); queue dispatches take direct buffers only");
                }
            }
        }
        engineDispatch(queue, waits, signals,
                LocalCommands.dispatch(executable, function, config, constants, bindings, flags), executable);
    }

    /**
     * @throws StatusException INVALID_ARGUMENT if {@code queueAffinity} selects no queue, or no
     *     queue the command buffer's affinity selects (naming both affinities), or the command
     *     buffer is not a local one; FAILED_PRECONDITION if it is not finished or a one-shot one
     *     was submitted before; OUT_OF_RANGE / INVALID_ARGUMENT for a binding table that cannot
     *     serve the command buffer's slots
     */
    @Override
    public final void queueExecute(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            CommandBuffer commandBuffer, BindingTable bindings, long flags) {
        int queue = checkQueue("queueExecute", queueAffinity, waits, signals);
        if (commandBuffer == null) {
            engineBarrier(queue, waits, signals);
            return;
        }
        if (!(commandBuffer instanceof LocalCommandBuffer local)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueExecute command buffer " + commandBuffer
                    + " was not created by a local CPU device");
        }
        long common = anyToAll(queueAffinity) & anyToAll(local.queueAffinity()) & queueMask();
        if (common == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueExecute queue affinity 0x"
                    + Long.toHexString(queueAffinity) + " and the command buffer's queue affinity 0x"
                    + Long.toHexString(local.queueAffinity()) + " select no common queue of device '" + info.name()
                    + "' (mask 0x" + Long.toHexString(queueMask()) + ")");
        }
        queue = Long.numberOfTrailingZeros(common);
        BlockProgram program = local.programForSubmission();
        CommandExecutor.checkSlots(bindings, program.usedSlots());
        engineExecute(queue, waits, signals, local, program, bindings);
    }

    @Override
    public final void queueBarrier(long queueAffinity, SemaphoreList waits, SemaphoreList signals, long flags) {
        engineBarrier(checkQueue("queueBarrier", queueAffinity, waits, signals), waits, signals);
    }

    @Override
    public final void queueHostCall(long queueAffinity, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        int queue = checkQueue("queueHostCall", queueAffinity, waits, signals);
        if (call == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall call is null");
        }
        if (args != null && args.length > HOST_CALL_ARGS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall has " + args.length
                    + " arguments, more than the " + HOST_CALL_ARGS + " a host call takes");
        }
        engineHostCall(queue, waits, signals, call,
                args == null ? new long[HOST_CALL_ARGS] : Arrays.copyOf(args, HOST_CALL_ARGS), flags);
    }

    /** Operations are issued as soon as their waits resolve; there is nothing to flush. */
    @Override
    public final void queueFlush(long queueAffinity) {
        requireOpen("queueFlush");
        queueIndex(queueAffinity);
    }

    // ---- the tile engine on the caller ---------------------------------------------------------

    /**
     * Runs {@code program} with {@code table}, or {@code single}, to its end on the calling thread
     * through the tile engine (one worker). Allocation-free when no other thread is doing the same.
     *
     * @throws StatusException the first command's failure
     */
    protected final void runInline(BlockProgram program, RecordedCommand single, BindingTable table) {
        CommandExecutor executor = spareExecutor.getAndSet(null);
        if (executor == null) {
            executor = new CommandExecutor(1);
        }
        executor.load(program, single, table);
        try {
            executor.runAll();
        } finally {
            executor.clear();
            spareExecutor.compareAndSet(null, executor);
        }
    }

    // ---- checks and lifetime -------------------------------------------------------------------

    /** Checks that the device is open and the lists are given; returns the queue the affinity selects. */
    protected final int checkQueue(String what, long queueAffinity, SemaphoreList waits, SemaphoreList signals) {
        requireOpen(what);
        if (waits == null || signals == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " wait or signal list is null (use "
                    + "SemaphoreList.empty())");
        }
        return queueIndex(queueAffinity);
    }

    /**
     * The queue {@code queueAffinity} selects: its lowest set bit below the queue count (any: 0).
     *
     * @throws StatusException INVALID_ARGUMENT naming the affinity if it selects no queue
     */
    protected final int queueIndex(long queueAffinity) {
        if (queueAffinity == QUEUE_AFFINITY_ANY || queueAffinity == 0) {
            return 0;
        }
        long selected = queueAffinity & queueMask();
        if (selected == 0) {
            int queues = queueCount();
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queue affinity 0x" + Long.toHexString(queueAffinity)
                    + " selects no queue of device '" + info.name() + "' (it has " + queues
                    + (queues == 1 ? " queue" : " queues") + ", mask 0x" + Long.toHexString(queueMask()) + ")");
        }
        return Long.numberOfTrailingZeros(selected);
    }

    private long queueMask() {
        int queues = queueCount();
        return queues >= 64 ? -1L : (1L << queues) - 1;
    }

    private static long anyToAll(long affinity) {
        return affinity == 0 ? QUEUE_AFFINITY_ANY : affinity;
    }

    /** Whether the device was closed (released or torn down). */
    protected final boolean isClosed() {
        return closed;
    }

    /**
     * Closes the device for new calls: they fail with UNAVAILABLE naming {@code reason} if its
     * code is UNAVAILABLE (the driver went away), else with FAILED_PRECONDITION.
     */
    protected final void markClosed(StatusException reason) {
        closedReason = reason;
        closed = true;
    }

    /** @throws StatusException as {@link #closedError} once the device is closed */
    protected final void requireOpen(String what) {
        if (closed) {
            throw closedError(what);
        }
    }

    /** The error of a call {@code what} on the closed device. */
    protected final StatusException closedError(String what) {
        StatusException reason = closedReason;
        if (reason != null && reason.code() == StatusCode.UNAVAILABLE) {
            return new StatusException(StatusCode.UNAVAILABLE, what + " on device '" + info.name()
                    + "' after it was torn down: " + reason.baseMessage());
        }
        return new StatusException(StatusCode.FAILED_PRECONDITION, what + " on device '" + info.name()
                + "' after it was closed");
    }

    @Override
    public final void retain() {
        references.retain();
    }

    /** The last release tears the engine down ({@link #engineLastRelease}). */
    @Override
    public final void release() {
        if (references.release(this)) {
            engineLastRelease();
        }
    }
}
