package dev.ortho.hal.cpu.internal.sync;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.Executable;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.cpu.internal.command.CommandExecutor;
import dev.ortho.hal.cpu.internal.command.LocalCommandBuffer;
import dev.ortho.hal.cpu.internal.device.LocalDevice;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.heap.BlockPool;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.vm.bytecode.ExecutionMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local-sync} device: IREE's synchronous CPU device. Every queue operation runs on
 * the calling thread: the call checks its arguments (throwing on errors), blocks until every
 * wait is reached, performs the operation, then signals — or fails the signal list with the
 * wait's or the operation's failure. There is one queue and no thread; recorded work runs through
 * the tile engine with one worker, the caller, so dispatches run their workgroups one after
 * another ({@code hal.dispatch.concurrency} = 1).
 *
 * <p>This class is the device's queue engine; the resources, queries and argument checks it
 * shares with {@code local-task} are {@link LocalDevice}'s.
 *
 * <p>Because each operation completes before its call returns, nothing is in flight when the
 * device is closed; after the last release every call fails with FAILED_PRECONDITION. Buffers
 * stay usable until their own last release. Thread-safe: concurrent callers run concurrently.
 */
public final class LocalSyncDevice extends LocalDevice {
    private static final Logger LOG = LoggerFactory.getLogger(LocalSyncDevice.class);
    /** The identifier {@code hal.device.id} patterns match, as IREE's synchronous CPU device. */
    public static final String IDENTIFIER = "local-sync";
    /**
     * IREE's bits that hold for host memory run inline, and none of Ortho's scheduling features:
     * operations complete on the caller's thread, on one queue, without pooling or frontiers.
     */
    static final long CAPABILITIES = DeviceCapability.TIMELINE_SEMAPHORES | DeviceCapability.UNIFIED_MEMORY
            | DeviceCapability.HOST_COHERENT | DeviceCapability.HOST_ZERO_COPY_OK | DeviceCapability.CONCURRENT_SAFE;

    private final SyncPool defaultPool;

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
        super(IDENTIFIER, info, new HeapAllocator(info.name()), loaders, kernelExecution);
        this.defaultPool = new SyncPool(info.name() + " default pool", this, allocator, BufferParams.deviceLocal(),
                PoolParams.UNLIMITED, false);
    }

    /** One queue. */
    @Override
    public int queueCount() {
        return 1;
    }

    /** Workgroups run one after another on the caller. */
    @Override
    protected int dispatchConcurrency() {
        return 1;
    }

    /** See {@link #CAPABILITIES}. */
    @Override
    public long capabilities() {
        return CAPABILITIES;
    }

    /**
     * Pass-through and unlimited: memory goes back to the system at dealloca, as plain
     * allocations.
     */
    @Override
    protected BlockPool<?> engineDefaultPool() {
        return defaultPool;
    }

    /**
     * A caching pool: memory given back is reused by later allocas from it (always safe here,
     * every operation having finished); see {@link SyncPool}.
     */
    @Override
    protected Pool engineCreatePool(String name, PoolParams params) {
        return new SyncPool(name, this, allocator, params.bufferParams(), params.quotaBytes(), true);
    }

    @Override
    protected Buffer engineAlloca(int queue, SemaphoreList waits, SemaphoreList signals, BlockPool<?> from,
            BufferParams params, long size, long flags) {
        SyncPool pool = (SyncPool) from;
        HeapBuffer buffer = allocator.transientBuffer(params, size); // checks params and size before waiting
        StatusException failure = awaitWaits(waits);
        if (failure == null) {
            try {
                pool.commit(buffer, params.minAlignment(), flags);
            } catch (StatusException e) {
                failure = e;
            }
            if (failure == null) {
                signals.signal();
                return buffer;
            }
        }
        // Nothing allocated: the caller gets (and releases) a buffer without memory. Built only
        // here, so the steady path makes one buffer object per alloca, not two.
        buffer.release();
        signals.fail(failure);
        return allocator.uncommitted(params, size);
    }

    /** Runs on the caller without a lambda (one per call before). */
    @Override
    protected void engineDealloca(int queue, SemaphoreList waits, SemaphoreList signals, HeapBuffer buffer) {
        StatusException failure = awaitWaits(waits);
        if (failure == null) {
            try {
                SyncPool.dealloca(buffer);
            } catch (RuntimeException e) {
                failure = asStatus(e, "queue operation");
            }
        }
        finish(signals, failure);
    }

    /** Runs on the caller without a command object ({@link CommandExecutor#runFill}). */
    @Override
    protected void engineFill(int queue, SemaphoreList waits, SemaphoreList signals, HeapBuffer target, long offset,
            long length, int pattern, int patternLength) {
        StatusException failure = awaitWaits(waits);
        if (failure == null) {
            try {
                CommandExecutor.runFill(target, offset, length, pattern, patternLength);
            } catch (RuntimeException e) {
                failure = asStatus(e, "queue operation");
            }
        }
        finish(signals, failure);
    }

    @Override
    protected void engineTransfer(int queue, SemaphoreList waits, SemaphoreList signals, RecordedCommand command,
            long bytes, Buffer target, Buffer source) {
        run(waits, signals, null, command, null);
    }

    @Override
    protected void engineDispatch(int queue, SemaphoreList waits, SemaphoreList signals,
            RecordedCommand.Dispatch command,
            Executable executable) {
        run(waits, signals, null, command, null);
    }

    /** The slots' memory is checked now (nothing runs between the call and the execution but the waits). */
    @Override
    protected void engineExecute(int queue, SemaphoreList waits, SemaphoreList signals,
            LocalCommandBuffer commandBuffer, BlockProgram program, BindingTable bindings) {
        CommandExecutor.checkSlotsCommitted(bindings, program.usedSlots());
        run(waits, signals, program, null, bindings);
    }

    @Override
    protected void engineBarrier(int queue, SemaphoreList waits, SemaphoreList signals) {
        complete(waits, signals, () -> { });
    }

    @Override
    protected void engineHostCall(int queue, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        StatusException waitFailure = awaitWaits(waits);
        if (waitFailure != null) {
            signals.fail(waitFailure);
            return;
        }
        if ((flags & HostCall.FLAG_NON_BLOCKING) != 0) {
            signals.signal();
            try {
                call.call(this, args, SemaphoreList.empty());
            } catch (RuntimeException e) {
                LOG.warn("non-blocking host call on device '{}' failed; dropped: {}", info().name(), e.toString());
            }
            return;
        }
        boolean done;
        try {
            done = call.call(this, args, signals);
        } catch (RuntimeException e) {
            signals.fail(asStatus(e, "host call"));
            return;
        }
        if (done) {
            signals.signal();
        }
    }

    /** Blocks until the waits are reached, runs {@code operation}, then signals or fails the signals. */
    private void complete(SemaphoreList waits, SemaphoreList signals, Runnable operation) {
        complete(waits, signals, operation, null, null, null);
    }

    /** As {@link #complete(SemaphoreList, SemaphoreList, Runnable)}, running recorded work inline. */
    private void run(SemaphoreList waits, SemaphoreList signals, BlockProgram program, RecordedCommand single,
            BindingTable table) {
        complete(waits, signals, null, program, single, table);
    }

    /**
     * Blocks until the waits are reached, runs {@code operation} or, when it is null, the
     * recorded work through the tile engine on this thread (see {@link #runInline}; no lambda on
     * the path of every transfer, dispatch and execute), then signals or fails the signals.
     */
    private void complete(SemaphoreList waits, SemaphoreList signals, Runnable operation, BlockProgram program,
            RecordedCommand single, BindingTable table) {
        StatusException failure = awaitWaits(waits);
        if (failure == null) {
            try {
                if (operation != null) {
                    operation.run();
                } else {
                    runInline(program, single, table);
                }
            } catch (RuntimeException e) {
                failure = asStatus(e, "queue operation");
            }
        }
        finish(signals, failure);
    }

    /** Fails the signals with {@code failure}, or signals them when it is null. */
    private static void finish(SemaphoreList signals, StatusException failure) {
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

    /** Nothing is in flight: closes for new calls, shuts the default pool, returns idle pooled memory. */
    @Override
    protected void engineLastRelease() {
        markClosed(null);
        defaultPool.shutdown();
        allocator.close(); // idle pooled memory back to the system; live buffers keep theirs
    }

    @Override
    public String toString() {
        return "local-sync device '" + info().name() + "'";
    }
}
