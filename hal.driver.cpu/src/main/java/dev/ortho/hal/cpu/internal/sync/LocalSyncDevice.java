package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
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
import dev.ortho.hal.cpu.internal.command.Command;
import dev.ortho.hal.cpu.internal.command.CommandExecutor;
import dev.ortho.hal.cpu.internal.command.LocalCommandBuffer;
import dev.ortho.hal.cpu.internal.command.LocalEvent;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.LocalExecutableCache;
import dev.ortho.hal.cpu.internal.heap.BlockPool;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.DeviceQueries;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.hal.spi.RefCount;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local-sync} device: IREE's synchronous CPU device. Every queue operation runs on
 * the calling thread: the call checks its arguments (throwing on errors), blocks until every
 * wait is reached, performs the operation, then signals — or fails the signal list with the
 * wait's or the operation's failure. There is one queue and no thread; dispatches run their
 * workgroups one after another ({@code hal.dispatch.concurrency} = 1).
 *
 * <p>Because each operation completes before its call returns, nothing is in flight when the
 * device is closed; after the last release every call fails with FAILED_PRECONDITION. Buffers
 * stay usable until their own last release. Thread-safe: concurrent callers run concurrently.
 */
public final class LocalSyncDevice implements Device {
    private static final Logger LOG = LoggerFactory.getLogger(LocalSyncDevice.class);
    private static final int HOST_CALL_ARGS = 4;
    /** The identifier {@code hal.device.id} patterns match, as IREE's synchronous CPU device. */
    public static final String IDENTIFIER = "local-sync";
    /**
     * IREE's bits that hold for host memory run inline, and none of Ortho's scheduling features:
     * operations complete on the caller's thread, on one queue, without pooling or frontiers.
     */
    static final long CAPABILITIES = DeviceCapability.TIMELINE_SEMAPHORES | DeviceCapability.UNIFIED_MEMORY
            | DeviceCapability.HOST_COHERENT | DeviceCapability.HOST_ZERO_COPY_OK | DeviceCapability.CONCURRENT_SAFE;

    private final DeviceInfo info;
    private final HeapAllocator allocator;
    private final ExecutableLoaders loaders;
    private final ExecutionMode kernelExecution;
    private final RefCount references = new RefCount();
    private final AtomicLong semaphoreCount = new AtomicLong();
    private final AtomicLong poolCount = new AtomicLong();
    private final SyncPool defaultPool;
    private volatile boolean closed;

    /**
     * @param info the identity the driver enumerated
     * @param loaders the executable loaders its caches prepare with; shared and possibly updated
     *     by the owner
     */
    public LocalSyncDevice(DeviceInfo info, ExecutableLoaders loaders) {
        this(info, loaders, null);
    }

    /**
     * As {@link #LocalSyncDevice(DeviceInfo, ExecutableLoaders)}, running VMVX dispatch
     * functions in {@code kernelExecution} (null: as the registry's VMVX loader says).
     */
    public LocalSyncDevice(DeviceInfo info, ExecutableLoaders loaders, ExecutionMode kernelExecution) {
        this.info = info;
        this.loaders = loaders;
        this.kernelExecution = kernelExecution;
        this.allocator = new HeapAllocator(info.name());
        this.defaultPool = new SyncPool(info.name() + " default pool", this, allocator, BufferParams.deviceLocal(),
                PoolParams.UNLIMITED, false);
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public Allocator allocator() {
        return allocator;
    }

    @Override
    public long queryI64(String category, String key) {
        if (category == null || key == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "query category '" + category + "' key '" + key
                    + "' must not be null");
        }
        return switch (category) {
            case DeviceQueries.DEVICE_ID -> DeviceQueries.matchesPattern(IDENTIFIER, key) ? 1 : 0;
            case DeviceQueries.EXECUTABLE_FORMAT -> LocalExecutableCache.formatQuery(loaders, key);
            case "hal.device", "hal.dispatch" -> {
                if (key.equals("concurrency")) {
                    yield 1; // one queue; workgroups run one after another
                }
                throw unknownQuery(category, key);
            }
            default -> throw unknownQuery(category, key);
        };
    }

    private StatusException unknownQuery(String category, String key) {
        return DeviceQueries.unknown(info.name(), category, key);
    }

    /** See {@link #CAPABILITIES}. */
    @Override
    public long capabilities() {
        return CAPABILITIES;
    }

    /**
     * Every scope is backed by the same host-memory {@link TimelineSemaphore} (the CPU shares the
     * host's memory); queue-local ones skip frontier recording.
     */
    @Override
    public Semaphore createSemaphore(long initialValue, SemaphoreScope scope) {
        requireOpen("createSemaphore");
        return new TimelineSemaphore(info.name() + " semaphore " + semaphoreCount.incrementAndGet(), initialValue,
                scope);
    }

    @Override
    public Event createEvent() {
        requireOpen("createEvent");
        return new LocalEvent();
    }

    @Override
    public CommandBuffer createCommandBuffer(int mode, int categories, long queueAffinity, int bindingCapacity) {
        requireOpen("createCommandBuffer");
        LocalCommandBuffer.checkCreateArguments(mode, categories, bindingCapacity);
        checkAffinity(queueAffinity);
        return new LocalCommandBuffer(mode, categories, queueAffinity, bindingCapacity);
    }

    @Override
    public ExecutableCache createExecutableCache(String identifier) {
        requireOpen("createExecutableCache");
        return new LocalExecutableCache(identifier, loaders, kernelExecution);
    }

    /**
     * The pool of queue allocas without a pool: pass-through and unlimited (memory goes back to
     * the system at dealloca, as plain allocations); borrowed.
     */
    @Override
    public Pool defaultPool() {
        requireOpen("defaultPool");
        return defaultPool;
    }

    /**
     * A caching pool with its own quota: memory given back is reused by later allocas from it
     * (always safe here, every operation having finished); see {@link SyncPool}. The caller owns it.
     */
    @Override
    public Pool createPool(PoolParams params) {
        requireOpen("createPool");
        BlockPool.checkCreateParams(info.name(), params, allocator);
        return new SyncPool(info.name() + " pool " + poolCount.incrementAndGet(), this, allocator,
                params.bufferParams(), params.quotaBytes(), true);
    }

    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, BufferParams params,
            long size, long flags) {
        return alloca(defaultPool, queueAffinity, waits, signals, params, size, flags);
    }

    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Pool pool,
            BufferParams params, long size, long flags) {
        if (pool == null) {
            return alloca(defaultPool, queueAffinity, waits, signals, params, size, flags);
        }
        if (!(pool instanceof SyncPool own) || pool.device() != this) {
            Device owner = pool.device();
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueAlloca pool " + pool + " belongs to "
                    + (owner == null ? "no device" : "device '" + owner.info().name() + "'") + ", not to device '"
                    + info.name() + "'");
        }
        own.checkOpen("queueAlloca on device '" + info.name() + "'");
        return alloca(own, queueAffinity, waits, signals, params, size, flags);
    }

    private Buffer alloca(SyncPool pool, long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            BufferParams params, long size, long flags) {
        checkQueue("queueAlloca", queueAffinity, waits, signals);
        HeapBuffer empty = allocator.uncommitted(params, size); // checks params and size before waiting
        StatusException waitFailure = awaitWaits(waits);
        if (waitFailure != null) {
            signals.fail(waitFailure);
            return empty; // nothing allocated: the caller releases a buffer without memory
        }
        HeapBuffer buffer = allocator.transientBuffer(params, size);
        try {
            pool.commit(buffer, params.minAlignment(), flags);
        } catch (StatusException e) {
            buffer.release();
            signals.fail(e);
            return empty;
        }
        empty.release();
        signals.signal();
        return buffer;
    }

    /** Frees a queue-allocated buffer's memory once the waits are reached; other buffers: a barrier. */
    @Override
    public void queueDealloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer buffer,
            long flags) {
        checkQueue("queueDealloca", queueAffinity, waits, signals);
        HeapBuffer heap = HeapBuffer.cast(buffer, "dealloca buffer");
        complete(waits, signals, () -> SyncPool.dealloca(heap));
    }

    @Override
    public void queueFill(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer target, long offset,
            long length, int pattern, int patternLength, long flags) {
        checkQueue("queueFill", queueAffinity, waits, signals);
        Command command = Command.fill(BufferRef.of(target, offset, length), pattern, patternLength);
        complete(waits, signals, () -> CommandExecutor.execute(command, null));
    }

    @Override
    public void queueUpdate(long queueAffinity, SemaphoreList waits, SemaphoreList signals, MemorySegment source,
            Buffer target, long targetOffset, long flags) {
        checkQueue("queueUpdate", queueAffinity, waits, signals);
        Command command = Command.update(source, BufferRef.of(target, targetOffset, Buffer.WHOLE_BUFFER));
        complete(waits, signals, () -> CommandExecutor.execute(command, null));
    }

    @Override
    public void queueCopy(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer source,
            long sourceOffset, Buffer target, long targetOffset, long length, long flags) {
        checkQueue("queueCopy", queueAffinity, waits, signals);
        Command command = Command.copy(BufferRef.of(source, sourceOffset, length),
                BufferRef.of(target, targetOffset, length));
        complete(waits, signals, () -> CommandExecutor.execute(command, null));
    }

    @Override
    public void queueDispatch(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Executable executable,
            int function, DispatchConfig config, MemorySegment constants, BufferRef[] bindings, long flags) {
        checkQueue("queueDispatch", queueAffinity, waits, signals);
        if (bindings != null) {
            for (int i = 0; i < bindings.length; i++) {
                if (bindings[i] != null && bindings[i].isIndirect()) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueDispatch binding " + i
                            + " is an indirect reference (slot " + bindings[i].bufferSlot()
                            + "); queue dispatches take direct buffers only");
                }
            }
        }
        Command command = Command.dispatch(executable, function, config, constants, bindings, flags);
        complete(waits, signals, () -> CommandExecutor.execute(command, null));
    }

    @Override
    public void queueExecute(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            CommandBuffer commandBuffer, BindingTable bindings, long flags) {
        checkQueue("queueExecute", queueAffinity, waits, signals);
        if (commandBuffer == null) {
            complete(waits, signals, () -> { });
            return;
        }
        if (!(commandBuffer instanceof LocalCommandBuffer local)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueExecute command buffer " + commandBuffer
                    + " was not created by a local CPU device");
        }
        // one queue: checkAffinity proved queueAffinity selects queue 0, and createCommandBuffer
        // proved the command buffer allows it, so the two affinities always intersect here
        List<Command> commands = local.commandsForSubmission();
        MemorySegment[] slots = CommandExecutor.resolveSlots(bindings, local.usedSlots());
        complete(waits, signals, () -> CommandExecutor.executeAll(commands, slots));
    }

    @Override
    public void queueBarrier(long queueAffinity, SemaphoreList waits, SemaphoreList signals, long flags) {
        checkQueue("queueBarrier", queueAffinity, waits, signals);
        complete(waits, signals, () -> { });
    }

    @Override
    public void queueHostCall(long queueAffinity, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        checkQueue("queueHostCall", queueAffinity, waits, signals);
        if (call == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall call is null");
        }
        if (args != null && args.length > HOST_CALL_ARGS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall has " + args.length
                    + " arguments, more than the " + HOST_CALL_ARGS + " a host call takes");
        }
        long[] callArgs = args == null ? new long[HOST_CALL_ARGS] : Arrays.copyOf(args, HOST_CALL_ARGS);
        StatusException waitFailure = awaitWaits(waits);
        if (waitFailure != null) {
            signals.fail(waitFailure);
            return;
        }
        if ((flags & HostCall.FLAG_NON_BLOCKING) != 0) {
            signals.signal();
            try {
                call.call(this, callArgs, SemaphoreList.empty());
            } catch (RuntimeException e) {
                LOG.warn("non-blocking host call on device '{}' failed; dropped: {}", info.name(), e.toString());
            }
            return;
        }
        boolean done;
        try {
            done = call.call(this, callArgs, signals);
        } catch (RuntimeException e) {
            signals.fail(asStatus(e, "host call"));
            return;
        }
        if (done) {
            signals.signal();
        }
    }

    /** Nothing is ever batched: every operation completes within its call. */
    @Override
    public void queueFlush(long queueAffinity) {
        requireOpen("queueFlush");
        checkAffinity(queueAffinity);
    }

    /** Blocks until the waits are reached, runs {@code operation}, then signals or fails the signals. */
    private void complete(SemaphoreList waits, SemaphoreList signals, Runnable operation) {
        StatusException failure = awaitWaits(waits);
        if (failure == null) {
            try {
                operation.run();
            } catch (RuntimeException e) {
                failure = asStatus(e, "queue operation");
            }
        }
        if (failure != null) {
            signals.fail(failure);
        } else {
            signals.signal();
        }
    }

    private static StatusException awaitWaits(SemaphoreList waits) {
        try {
            waits.awaitAll(Timeout.infinite());
            return null;
        } catch (StatusException e) {
            return e;
        }
    }

    private static StatusException asStatus(RuntimeException e, String what) {
        return e instanceof StatusException status ? status
                : new StatusException(StatusCode.UNKNOWN, what + " threw " + e, e);
    }

    private void checkQueue(String what, long queueAffinity, SemaphoreList waits, SemaphoreList signals) {
        requireOpen(what);
        checkAffinity(queueAffinity);
        if (waits == null || signals == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " wait or signal list is null (use "
                    + "SemaphoreList.empty())");
        }
    }

    private void checkAffinity(long queueAffinity) {
        if (queueAffinity != 0 && queueAffinity != QUEUE_AFFINITY_ANY && (queueAffinity & 1) == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queue affinity 0x" + Long.toHexString(queueAffinity)
                    + " selects no queue of device '" + info.name() + "' (it has 1 queue, bit 0)");
        }
    }

    private void requireOpen(String what) {
        if (closed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " on device '" + info.name()
                    + "' after it was closed");
        }
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        if (references.release(this)) {
            closed = true;
            defaultPool.shutdown();
            allocator.close(); // idle pooled memory back to the system; live buffers keep theirs
        }
    }

    @Override
    public String toString() {
        return "local-sync device '" + info.name() + "'";
    }
}
