package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
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
import dev.ortho.hal.Resource;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.cpu.internal.command.Command;
import dev.ortho.hal.cpu.internal.command.CommandExecutor;
import dev.ortho.hal.cpu.internal.command.LocalCommandBuffer;
import dev.ortho.hal.cpu.internal.command.LocalEvent;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.LocalExecutableCache;
import dev.ortho.hal.cpu.internal.heap.BlockPool;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.DeviceQueries;
import dev.ortho.hal.spi.TimelineSemaphore;
import dev.ortho.task.Executor;
import dev.ortho.task.Topology;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.hal.spi.RefCount;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local-task} device: IREE's asynchronous CPU device on the task executor. Every
 * queue operation checks its arguments at the call (throwing on errors) and returns at once; it
 * runs on the device's own {@link Executor} when its waits are reached (see {@link TaskQueue}),
 * then signals — or fails its signals with the first failure.
 *
 * <p>Queues: {@link LocalTaskOptions#queueCount()}; a queue affinity selects the queue of its
 * lowest set bit below the queue count ({@link Device#QUEUE_AFFINITY_ANY} and 0 select queue 0);
 * an affinity with no such bit is INVALID_ARGUMENT.
 * Each queue is a frontier axis of this device.
 *
 * <p>Lifetime: the creator owns one reference; the last {@link #release()} tears the device down:
 * new calls fail with FAILED_PRECONDITION, every unfinished operation fails its signals with
 * CANCELLED, the executor is shut down (bounded wait; its workers exit) and the resources the
 * operations held are released. {@link #terminate} (the driver going away) tears it down the same
 * way at once, whoever still holds it, with UNAVAILABLE for unfinished operations and new calls.
 * It must not be released or terminated from one of its own queue callbacks (host calls, kernels).
 * Buffers stay usable until their own last release. Thread-safe.
 */
public final class LocalTaskDevice implements Device {
    private static final Logger LOG = LoggerFactory.getLogger(LocalTaskDevice.class);
    private static final int HOST_CALL_ARGS = 4;
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
    private static final AtomicBoolean AXES_EXHAUSTED_LOGGED = new AtomicBoolean();

    private final DeviceInfo info;
    private final ExecutableLoaders loaders;
    private final ExecutionMode kernelExecution;
    private final HeapAllocator allocator;
    private final Executor executor;
    private final DevicePool pool;
    private final TaskQueue[] queues;
    private final LiveDevices liveDevices;
    private final CountDownLatch tornDown = new CountDownLatch(1);
    private final RefCount references = new RefCount();
    private final AtomicLong semaphoreCount = new AtomicLong();
    private final AtomicLong poolCount = new AtomicLong();
    private final Object liveLock = new Object();
    private QueueOp liveHead; // guarded by liveLock
    private int liveCount; // guarded by liveLock
    private boolean closing; // guarded by liveLock
    private volatile boolean closed;
    /** Why the device was torn down (null while open): UNAVAILABLE if terminated, else CANCELLED. */
    private volatile StatusException closedReason;

    /**
     * Creates the device and starts its executor.
     *
     * @param info the identity the driver enumerated
     * @param loaders the executable loaders its caches prepare with
     * @param options queue count, executor and pool configuration
     * @param axes where the queues take their never-reused frontier axes; when it is exhausted the
     *     queues run without axes and record their signals' frontiers as tainted (logged once)
     * @param liveDevices the set the device leaves when it is torn down (the caller adds it)
     */
    public LocalTaskDevice(DeviceInfo info, ExecutableLoaders loaders, LocalTaskOptions options, QueueAxes axes,
            LiveDevices liveDevices) {
        this.info = info;
        this.liveDevices = liveDevices;
        this.loaders = loaders;
        this.kernelExecution = options.kernelExecution();
        this.allocator = new HeapAllocator(info.name(), liveDevices.offHeapBytes());
        int workers = options.workerCount(options.groupCount() > 0 ? options.groupCount() : Topology.detect().groupCount());
        this.executor = Executor.builder().topology(Topology.ofGroupCount(workers)).workerCount(workers)
                .spinNanos(options.spinMicros() * 1000).name(info.name()).build();
        this.pool = new DevicePool(info.name() + " default pool", this, allocator, BufferParams.deviceLocal(),
                options.poolQuotaBytes());
        this.queues = new TaskQueue[options.queueCount()];
        int axisDevice = axes.allocateDevice();
        if (axisDevice == QueueAxes.EXHAUSTED) {
            warnAxesExhausted(info.name());
        }
        for (int i = 0; i < queues.length; i++) {
            long axis = axisDevice == QueueAxes.EXHAUSTED ? TaskQueue.NO_AXIS : axes.queueAxis(axisDevice, i);
            queues[i] = new TaskQueue(this, i, axis, executor, options.inlineTransferBytes());
        }
    }

    private static void warnAxesExhausted(String device) {
        if (AXES_EXHAUSTED_LOGGED.compareAndSet(false, true)) {
            LOG.warn("{}: every queue axis of this process is taken ({} devices created); this and later devices"
                    + " run without frontier axes, so waits on their signals are never elided", device,
                    QueueAxes.CAPACITY);
        }
    }

    @Override
    public DeviceInfo info() {
        return info;
    }

    @Override
    public Allocator allocator() {
        return allocator;
    }

    /**
     * The pool of queue allocas without a pool: device-local, with the quota of
     * {@link LocalTaskOptions#poolQuotaBytes()}; borrowed.
     */
    @Override
    public Pool defaultPool() {
        requireOpen("defaultPool");
        return pool;
    }

    /**
     * A pool with its own quota, free blocks and statistics, reusing memory by death-frontier
     * dominance as the default pool does. The caller owns it; it stays usable for allocas while
     * this device is open.
     */
    @Override
    public Pool createPool(PoolParams params) {
        requireOpen("createPool");
        BlockPool.checkCreateParams(info.name(), params, allocator);
        return new DevicePool(info.name() + " pool " + poolCount.incrementAndGet(), this, allocator,
                params.bufferParams(), params.quotaBytes());
    }

    /** Number of queues. */
    public int queueCount() {
        return queues.length;
    }

    /** Number of executor workers (the dispatch concurrency). */
    public int workerCount() {
        return executor.workerCount();
    }

    /** The frontier axis of queue {@code index}, or -1 (not a valid axis) when the process ran out of axes. */
    public long queueAxis(int index) {
        return queues[index].axis();
    }

    /** A copy of queue {@code index}'s frontier now. */
    public Frontier queueFrontier(int index) {
        return queues[index].frontier();
    }

    /**
     * Imports queue {@code index} skipped: waits whose frontier the queue already dominated when
     * their operation was issued. They are counted once the wait is reached, never before: a
     * local-task queue (like IREE's) does not order its operations, so only a reached wait can be
     * proven satisfied and no suspension is ever skipped on the strength of a frontier.
     */
    public long elidedWaits(int index) {
        return queues[index].elidedWaits();
    }

    /** Streamed operations of queue {@code index} that found its ring full and waited in its overflow list. */
    public long streamingOverflows(int index) {
        return queues[index].streamingOverflows();
    }

    /** Stream-ordered pool counters: {committed bytes, free blocks, created, reused dominated, reused after import, parked}. */
    public long[] poolCounters() {
        DevicePool.PoolStats s = pool.stats();
        return new long[] {s.committedBytes(), s.freeBlocks(), s.blocksCreated(), s.reusedDominated(),
            s.reusedAfterImport(), s.parkedAllocas()};
    }

    /** The identifier {@code hal.device.id} patterns match, as IREE's task-system CPU device. */
    public static final String IDENTIFIER = "local-task";

    @Override
    public long queryI64(String category, String key) {
        if (category == null || key == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "query category '" + category + "' key '" + key
                    + "' must not be null");
        }
        return switch (category) {
            case DeviceQueries.DEVICE_ID -> DeviceQueries.matchesPattern(IDENTIFIER, key) ? 1 : 0;
            case DeviceQueries.EXECUTABLE_FORMAT -> LocalExecutableCache.formatQuery(loaders, key);
            case "hal.device" -> {
                if (key.equals("concurrency")) {
                    yield queues.length; // as IREE: device concurrency is the queue count
                }
                throw unknownQuery(category, key);
            }
            case "hal.dispatch" -> {
                if (key.equals("concurrency")) {
                    yield executor.workerCount();
                }
                throw unknownQuery(category, key);
            }
            default -> throw unknownQuery(category, key);
        };
    }

    private StatusException unknownQuery(String category, String key) {
        return DeviceQueries.unknown(info.name(), category, key);
    }

    /**
     * IREE's bits for host memory, plus Ortho's scheduling features: asynchronous queues,
     * stream-ordered pool reuse, frontiers, and several queues when configured with more than one.
     */
    @Override
    public long capabilities() {
        return DeviceCapability.TIMELINE_SEMAPHORES | DeviceCapability.UNIFIED_MEMORY | DeviceCapability.HOST_COHERENT
                | DeviceCapability.HOST_ZERO_COPY_OK | DeviceCapability.CONCURRENT_SAFE | DeviceCapability.ASYNC_QUEUES
                | DeviceCapability.STREAM_ORDERED_REUSE | DeviceCapability.FRONTIERS
                | (queues.length > 1 ? DeviceCapability.MULTI_QUEUE : 0);
    }

    /** Every scope is a host-memory {@link TimelineSemaphore} (the CPU shares the host's memory). */
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
        return new LocalCommandBuffer(mode, categories, queueAffinity, bindingCapacity);
    }

    @Override
    public ExecutableCache createExecutableCache(String identifier) {
        requireOpen("createExecutableCache");
        return new LocalExecutableCache(identifier, loaders, kernelExecution);
    }

    // ---- queue operations ---------------------------------------------------------------------

    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, BufferParams params,
            long size, long flags) {
        return alloca(pool, queueAffinity, waits, signals, params, size, flags);
    }

    /**
     * Reserves from {@code pool} (null: the default pool); the operation retains the pool until it
     * retires.
     */
    @Override
    public Buffer queueAlloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Pool pool,
            BufferParams params, long size, long flags) {
        if (pool == null) {
            return alloca(this.pool, queueAffinity, waits, signals, params, size, flags);
        }
        if (!(pool instanceof DevicePool own) || pool.device() != this) {
            Device owner = pool.device();
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueAlloca pool " + pool + " belongs to "
                    + (owner == null ? "no device" : "device '" + owner.info().name() + "'") + ", not to device '"
                    + info.name() + "'");
        }
        own.checkOpen("queueAlloca on device '" + info.name() + "'");
        return alloca(own, queueAffinity, waits, signals, params, size, flags);
    }

    private Buffer alloca(DevicePool from, long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            BufferParams params, long size, long flags) {
        TaskQueue queue = checkQueue("queueAlloca", queueAffinity, waits, signals);
        HeapBuffer buffer = allocator.transientBuffer(params, size);
        QueueOp op = new QueueOp(queue, QueueOp.Kind.ALLOCA, waits, signals);
        op.buffer = buffer;
        op.pool = from;
        op.flags = flags;
        op.alignment = params.minAlignment();
        if (from == pool) {
            submit(op, waits, signals, buffer);
        } else {
            submit(op, waits, signals, buffer, from);
        }
        return buffer;
    }

    /**
     * Returns a transient buffer's memory to the pool with the queue's frontier as its death
     * frontier once the waits are reached; for other buffers a barrier.
     */
    @Override
    public void queueDealloca(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer buffer,
            long flags) {
        TaskQueue queue = checkQueue("queueDealloca", queueAffinity, waits, signals);
        HeapBuffer heap = HeapBuffer.cast(buffer, "dealloca buffer");
        QueueOp op = new QueueOp(queue, QueueOp.Kind.DEALLOCA, waits, signals);
        op.buffer = HeapBuffer.cast(heap.allocatedBuffer(), "dealloca buffer");
        submit(op, waits, signals, heap);
    }

    @Override
    public void queueFill(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer target, long offset,
            long length, int pattern, int patternLength, long flags) {
        TaskQueue queue = checkQueue("queueFill", queueAffinity, waits, signals);
        Command command = Command.fill(BufferRef.of(target, offset, length), pattern, patternLength);
        transfer(queue, waits, signals, command, HeapBuffer.cast(target, "fill target")
                .checkRange("fill target", offset, length), target);
    }

    @Override
    public void queueUpdate(long queueAffinity, SemaphoreList waits, SemaphoreList signals, MemorySegment source,
            Buffer target, long targetOffset, long flags) {
        TaskQueue queue = checkQueue("queueUpdate", queueAffinity, waits, signals);
        Command.Update command = Command.update(source, BufferRef.of(target, targetOffset, Buffer.WHOLE_BUFFER));
        transfer(queue, waits, signals, command, command.data().length, target);
    }

    @Override
    public void queueCopy(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Buffer source,
            long sourceOffset, Buffer target, long targetOffset, long length, long flags) {
        TaskQueue queue = checkQueue("queueCopy", queueAffinity, waits, signals);
        Command command = Command.copy(BufferRef.of(source, sourceOffset, length),
                BufferRef.of(target, targetOffset, length));
        transfer(queue, waits, signals, command, HeapBuffer.cast(source, "copy source")
                .checkRange("copy source", sourceOffset, length), source, target);
    }

    private void transfer(TaskQueue queue, SemaphoreList waits, SemaphoreList signals, Command command, long bytes,
            Resource... buffers) {
        QueueOp op = new QueueOp(queue, QueueOp.Kind.TRANSFER, waits, signals);
        op.command = command;
        op.transferBytes = bytes;
        submit(op, waits, signals, buffers);
    }

    @Override
    public void queueDispatch(long queueAffinity, SemaphoreList waits, SemaphoreList signals, Executable executable,
            int function, DispatchConfig config, MemorySegment constants, BufferRef[] bindings, long flags) {
        TaskQueue queue = checkQueue("queueDispatch", queueAffinity, waits, signals);
        if (bindings != null) {
            for (int i = 0; i < bindings.length; i++) {
                if (bindings[i] != null && bindings[i].isIndirect()) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueDispatch binding " + i
                            + " is an indirect reference (slot " + bindings[i].bufferSlot()
                            + "); queue dispatches take direct buffers only");
                }
            }
        }
        Command.Dispatch command = Command.dispatch(executable, function, config, constants, bindings, flags);
        List<Resource> used = new ArrayList<>(command.bindings().length + 2);
        used.add(executable);
        command.forEachDirectBuffer(used::add);
        QueueOp op = new QueueOp(queue, QueueOp.Kind.DISPATCH, waits, signals);
        op.command = command;
        submit(op, waits, signals, used.toArray(new Resource[0]));
    }

    @Override
    public void queueExecute(long queueAffinity, SemaphoreList waits, SemaphoreList signals,
            CommandBuffer commandBuffer, BindingTable bindings, long flags) {
        TaskQueue queue = checkQueue("queueExecute", queueAffinity, waits, signals);
        if (commandBuffer == null) {
            submit(new QueueOp(queue, QueueOp.Kind.BARRIER, waits, signals), waits, signals);
            return;
        }
        if (!(commandBuffer instanceof LocalCommandBuffer local)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueExecute command buffer " + commandBuffer
                    + " was not created by a local CPU device");
        }
        BlockProgram program = local.programForSubmission();
        CommandExecutor.checkSlots(bindings, program.usedSlots());
        List<Resource> used = new ArrayList<>();
        used.add(commandBuffer);
        for (int slot = program.usedSlots().nextSetBit(0); slot >= 0; slot = program.usedSlots().nextSetBit(slot + 1)) {
            used.add(bindings.buffer(slot));
        }
        QueueOp op = new QueueOp(queue, QueueOp.Kind.EXECUTE, waits, signals);
        op.program = program;
        op.bindings = bindings;
        submit(op, waits, signals, used.toArray(new Resource[0]));
    }

    @Override
    public void queueBarrier(long queueAffinity, SemaphoreList waits, SemaphoreList signals, long flags) {
        TaskQueue queue = checkQueue("queueBarrier", queueAffinity, waits, signals);
        submit(new QueueOp(queue, QueueOp.Kind.BARRIER, waits, signals), waits, signals);
    }

    @Override
    public void queueHostCall(long queueAffinity, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        TaskQueue queue = checkQueue("queueHostCall", queueAffinity, waits, signals);
        if (call == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall call is null");
        }
        if (args != null && args.length > HOST_CALL_ARGS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queueHostCall has " + args.length
                    + " arguments, more than the " + HOST_CALL_ARGS + " a host call takes");
        }
        QueueOp op = new QueueOp(queue, QueueOp.Kind.HOST_CALL, waits, signals);
        op.call = call;
        op.args = args == null ? new long[HOST_CALL_ARGS] : Arrays.copyOf(args, HOST_CALL_ARGS);
        op.flags = flags;
        submit(op, waits, signals);
    }

    /** Operations are issued as soon as their waits resolve; there is nothing to flush. */
    @Override
    public void queueFlush(long queueAffinity) {
        requireOpen("queueFlush");
        queueFor(queueAffinity);
    }

    /** Retains what {@code op} uses (semaphores and {@code resources}), then submits it. */
    private void submit(QueueOp op, SemaphoreList waits, SemaphoreList signals, Resource... resources) {
        Resource[] retained = new Resource[waits.size() + signals.size() + resources.length];
        int n = 0;
        for (int i = 0; i < waits.size(); i++) {
            retained[n++] = waits.semaphore(i);
        }
        for (int i = 0; i < signals.size(); i++) {
            retained[n++] = signals.semaphore(i);
        }
        for (Resource resource : resources) {
            retained[n++] = resource;
        }
        for (Resource resource : retained) {
            resource.retain();
        }
        op.retained = retained;
        try {
            op.queue.submit(op);
        } catch (StatusException e) {
            op.releaseResources();
            throw e;
        }
    }

    // ---- live operations and teardown ---------------------------------------------------------

    /** Links {@code op} into the live list. */
    void register(QueueOp op) {
        synchronized (liveLock) {
            if (closing) {
                throw closedError("submit " + op.kind);
            }
            op.liveNext = liveHead;
            if (liveHead != null) {
                liveHead.livePrev = op;
            }
            liveHead = op;
            liveCount++;
        }
    }

    /**
     * Unlinks {@code op}; returns false if the device is closing (the device then releases the
     * operation's resources itself once its executor has stopped).
     */
    boolean unregister(QueueOp op) {
        synchronized (liveLock) {
            if (closing) {
                return false;
            }
            if (op.livePrev != null) {
                op.livePrev.liveNext = op.liveNext;
            } else if (liveHead == op) {
                liveHead = op.liveNext;
            }
            if (op.liveNext != null) {
                op.liveNext.livePrev = op.livePrev;
            }
            op.livePrev = null;
            op.liveNext = null;
            liveCount--;
            return true;
        }
    }

    /** Operations submitted and not yet retired (a snapshot). */
    public int liveOperations() {
        synchronized (liveLock) {
            return liveCount;
        }
    }

    /**
     * Tears the device down now, whoever still holds references (its driver is going away):
     * unfinished operations fail their signals with {@code reason}'s code, new calls fail with
     * it, the executor stops. Returns once the teardown (possibly started by another thread) is
     * done, or after a bounded wait. Idempotent; later releases only count down.
     */
    public void terminate(StatusException reason) {
        shutdown(reason);
    }

    private void shutdown(StatusException reason) {
        List<QueueOp> live = new ArrayList<>();
        boolean started;
        synchronized (liveLock) {
            started = closing;
            if (!started) {
                closing = true;
                closedReason = reason;
                for (QueueOp op = liveHead; op != null; op = op.liveNext) {
                    live.add(op);
                }
                liveHead = null;
                liveCount = 0;
            }
        }
        if (started) { // by another thread: wait outside the lock, which its retirements take
            awaitTearDown();
            return;
        }
        closed = true;
        try {
            for (QueueOp op : live) {
                op.queue.retire(op, new StatusException(reason.code(), reason.baseMessage() + " before " + op
                        + " finished"), true);
            }
            boolean clean;
            try {
                clean = executor.shutdown(SHUTDOWN_TIMEOUT);
            } catch (StatusException e) {
                LOG.error("device '{}' released on its own worker thread; executor shutdown skipped: {}", info.name(),
                        e.getMessage());
                clean = false;
            }
            if (!clean) {
                LOG.warn("device '{}': executor did not stop within {}", info.name(), SHUTDOWN_TIMEOUT);
            }
            for (QueueOp op : live) {
                op.releaseResources();
            }
            pool.shutdown();
            allocator.close(); // idle pooled memory back to the system; live buffers keep theirs
        } finally {
            liveDevices.remove(this);
            tornDown.countDown();
        }
    }

    private void awaitTearDown() {
        try {
            if (!tornDown.await(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("device '{}': teardown by another thread did not finish within {}", info.name(),
                        SHUTDOWN_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- checks -------------------------------------------------------------------------------

    private TaskQueue checkQueue(String what, long queueAffinity, SemaphoreList waits, SemaphoreList signals) {
        requireOpen(what);
        if (waits == null || signals == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " wait or signal list is null (use "
                    + "SemaphoreList.empty())");
        }
        return queueFor(queueAffinity);
    }

    private TaskQueue queueFor(long queueAffinity) {
        if (queueAffinity == QUEUE_AFFINITY_ANY || queueAffinity == 0) {
            return queues[0];
        }
        long valid = queues.length >= 64 ? -1L : (1L << queues.length) - 1;
        long selected = queueAffinity & valid;
        if (selected == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "queue affinity 0x" + Long.toHexString(queueAffinity)
                    + " selects no queue of device '" + info.name() + "' (it has " + queues.length + " queues, mask 0x"
                    + Long.toHexString(valid) + ")");
        }
        return queues[Long.numberOfTrailingZeros(selected)];
    }

    private void requireOpen(String what) {
        if (closed) {
            throw closedError(what);
        }
    }

    private StatusException closedError(String what) {
        StatusException reason = closedReason;
        if (reason != null && reason.code() == StatusCode.UNAVAILABLE) {
            return new StatusException(StatusCode.UNAVAILABLE, what + " on device '" + info.name()
                    + "' after it was torn down: " + reason.baseMessage());
        }
        return new StatusException(StatusCode.FAILED_PRECONDITION, what + " on device '" + info.name()
                + "' after it was closed");
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        if (references.release(this)) {
            shutdown(new StatusException(StatusCode.CANCELLED, "device '" + info.name() + "' was closed"));
        }
    }

    @Override
    public String toString() {
        return "local-task device '" + info.name() + "' (" + queues.length + " queues, " + executor.workerCount()
                + " workers)";
    }
}
