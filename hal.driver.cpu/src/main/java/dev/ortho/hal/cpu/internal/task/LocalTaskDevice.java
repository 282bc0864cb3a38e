package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.Executable;
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.Resource;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.cpu.internal.command.LocalCommandBuffer;
import dev.ortho.hal.cpu.internal.command.LocalCommands;
import dev.ortho.hal.cpu.internal.device.LocalDevice;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.heap.BlockPool;
import dev.ortho.hal.cpu.internal.heap.HeapAllocator;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.task.Executor;
import dev.ortho.task.ExecutorStats;
import dev.ortho.task.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code local-task} device: IREE's asynchronous CPU device on the task executor. Every
 * queue operation checks its arguments at the call (throwing on errors) and returns at once; it
 * runs on the device's own {@link Executor} when its waits are reached (see {@link TaskQueue}),
 * then signals — or fails its signals with the first failure.
 *
 * <p>This class is the device's queue engine; the resources, queries and argument checks it
 * shares with {@code local-sync} are {@link LocalDevice}'s. Queues:
 * {@link LocalTaskOptions#queueCount()}, selected by affinity as {@link LocalDevice} says; each
 * queue is a frontier axis of this device.
 *
 * <p>Lifetime: the creator owns one reference; the last {@link #release()} tears the device down:
 * new calls fail with FAILED_PRECONDITION, every unfinished operation fails its signals with
 * CANCELLED, the executor is shut down (bounded wait; its workers exit) and the resources the
 * operations held are released. {@link #terminate} (the driver going away) tears it down the same
 * way at once, whoever still holds it, with UNAVAILABLE for unfinished operations and new calls.
 * It must not be released or terminated from one of its own queue callbacks (host calls, kernels).
 * Buffers stay usable until their own last release. Thread-safe.
 */
public final class LocalTaskDevice extends LocalDevice {
    private static final Logger LOG = LoggerFactory.getLogger(LocalTaskDevice.class);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);
    private static final AtomicBoolean AXES_EXHAUSTED_LOGGED = new AtomicBoolean();
    /** The identifier {@code hal.device.id} patterns match, as IREE's task-system CPU device. */
    public static final String IDENTIFIER = "local-task";

    private final Executor executor;
    private final DevicePool pool;
    private final TaskQueue[] queues;
    /** FIFO queues' submission bookkeeping (null with IREE's order). */
    private final FifoLedger fifoLedger;
    private final LiveDevices liveDevices;
    private final CountDownLatch tornDown = new CountDownLatch(1);
    private final Object liveLock = new Object();
    private QueueOp liveHead; // guarded by liveLock
    private int liveCount; // guarded by liveLock
    private boolean closing; // guarded by liveLock

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
        super(IDENTIFIER, info, new HeapAllocator(info.name(), liveDevices.offHeapBytes()), loaders,
                options.kernelExecution());
        this.liveDevices = liveDevices;
        int workers = options.workerCount(options.groupCount() > 0 ? options.groupCount() : Topology.detect().groupCount());
        Executor.Builder executorBuilder = Executor.builder().topology(Topology.ofGroupCount(workers))
                .workerCount(workers).spinNanos(options.spinMicros() * 1000).name(info().name());
        if (options.adaptiveLinger()) {
            executorBuilder.adaptiveLingerNanos(LocalTaskOptions.AUTO_LINGER_WINDOW_MICROS * 1000);
        } else {
            executorBuilder.lingerNanos(options.lingerMicros() * 1000);
        }
        this.executor = executorBuilder.build();
        this.pool = new DevicePool(info().name() + " default pool", this, allocator, BufferParams.deviceLocal(),
                options.poolQuotaBytes());
        this.queues = new TaskQueue[options.queueCount()];
        int axisDevice = axes.allocateDevice();
        if (axisDevice == QueueAxes.EXHAUSTED) {
            warnAxesExhausted(info().name());
        }
        FifoLedger ledger = options.fifoQueues() ? new FifoLedger() : null;
        this.fifoLedger = ledger;
        for (int i = 0; i < queues.length; i++) {
            long axis = axisDevice == QueueAxes.EXHAUSTED ? TaskQueue.NO_AXIS : axes.queueAxis(axisDevice, i);
            queues[i] = new TaskQueue(this, i, axis, executor, options.inlineTransferBytes(), ledger,
                    options.callerRuns(), options.waiterHelps());
        }
    }

    private static void warnAxesExhausted(String device) {
        if (AXES_EXHAUSTED_LOGGED.compareAndSet(false, true)) {
            LOG.warn("{}: every queue axis of this process is taken ({} devices created); this and later devices"
                    + " run without frontier axes, so waits on their signals are never elided", device,
                    QueueAxes.CAPACITY);
        }
    }

    /**
     * Device-local, with the quota of {@link LocalTaskOptions#poolQuotaBytes()}.
     */
    @Override
    protected BlockPool<?> engineDefaultPool() {
        return pool;
    }

    /**
     * A pool with its own quota, free blocks and statistics, reusing memory by death-frontier
     * dominance as the default pool does; it stays usable for allocas while this device is open.
     */
    @Override
    protected Pool engineCreatePool(String name, PoolParams params) {
        return new DevicePool(name, this, allocator, params.bufferParams(), params.quotaBytes());
    }

    /** Number of queues. */
    @Override
    public int queueCount() {
        return queues.length;
    }

    /** Number of executor workers (the dispatch concurrency). */
    public int workerCount() {
        return executor.workerCount();
    }

    @Override
    protected int dispatchConcurrency() {
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
     * Waits queue {@code index} skipped, decided at submission: on a FIFO queue
     * ({@code queue_order=fifo}), a wait on a value an earlier operation of the same queue signals,
     * or one another FIFO queue of this device signals at an epoch an earlier wait of this queue
     * already implies (confirmed when its operation became ready), registers no timepoint and
     * imports nothing. Always 0 on an unordered queue (IREE's local-task order), where only a
     * reached wait can be proven satisfied; see {@link #skippedImports}.
     */
    public long elidedWaits(int index) {
        return queues[index].elidedWaits();
    }

    /** FIFO: semaphores with a signal still pending in the device's ledger (0 when the device is idle). */
    int pendingFifoSignals() {
        return fifoLedger == null ? 0 : fifoLedger.pendingSemaphores();
    }

    /**
     * Waits queue {@code index} elided provisionally at submission (another queue signals the value)
     * that it could not confirm when their operation became ready, so it waited after all: the
     * value was advanced by another party than the operation scheduled to signal it, or an earlier
     * wait the prediction relied on failed. Always 0 on an unordered queue.
     */
    public long unconfirmedWaits(int index) {
        return queues[index].unconfirmedWaits();
    }

    /**
     * Imports queue {@code index} skipped: reached waits whose frontier the queue already
     * dominated when their operation was issued (counted once the wait is reached).
     */
    public long skippedImports(int index) {
        return queues[index].skippedImports();
    }

    /**
     * Operations of queue {@code index} issued by the thread that made them ready, without a hop
     * through the queue process: command buffers from any thread, barriers, allocas and
     * deallocas from the submitting thread when their waits were already reached.
     */
    public long directIssues(int index) {
        return queues[index].directIssues();
    }

    /**
     * Tiles of queue {@code index} that the submitting thread ran itself: the first tile of a
     * command buffer or streamed operation it made ready when nothing ran before it on that
     * processor ({@code task_caller_runs=1}).
     */
    public long callerTiles(int index) {
        return queues[index].callerTiles();
    }

    /**
     * Tiles of queue {@code index} that host threads waiting on a semaphore value ran themselves
     * instead of parking ({@code task_waiter_helps=1}, the default), with processor id
     * {@code worker_count}.
     */
    public long waiterTiles(int index) {
        return queues[index].waiterTiles();
    }

    /** Whether host threads waiting on what queue {@code index} signals run its tiles ({@code task_waiter_helps}). */
    public boolean waiterHelps(int index) {
        return queues[index].waiterHelps;
    }

    /** A snapshot of the device executor's worker counters (parks, wakes, drains). */
    public ExecutorStats executorStats() {
        return executor.stats();
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

    /**
     * IREE's bits for host memory, plus Ortho's scheduling features: asynchronous queues,
     * stream-ordered pool reuse, frontiers, several queues when configured with more than one, and
     * FIFO queues when configured so ({@code queue_order=fifo}).
     */
    @Override
    public long capabilities() {
        return DeviceCapability.TIMELINE_SEMAPHORES | DeviceCapability.UNIFIED_MEMORY | DeviceCapability.HOST_COHERENT
                | DeviceCapability.HOST_ZERO_COPY_OK | DeviceCapability.CONCURRENT_SAFE | DeviceCapability.ASYNC_QUEUES
                | DeviceCapability.STREAM_ORDERED_REUSE | DeviceCapability.FRONTIERS
                | (queues.length > 1 ? DeviceCapability.MULTI_QUEUE : 0)
                | (queues[0].isFifo() ? DeviceCapability.FIFO_QUEUES : 0);
    }

    // ---- the queue engine ----------------------------------------------------------------------

    /** The operation retains a pool other than the default one until it retires. */
    @Override
    protected Buffer engineAlloca(int queueIndex, SemaphoreList waits, SemaphoreList signals, BlockPool<?> from,
            BufferParams params, long size, long flags) {
        HeapBuffer buffer = allocator.transientBuffer(params, size);
        QueueOp op = new QueueOp(queues[queueIndex], QueueOp.Kind.ALLOCA, waits, signals);
        op.buffer = buffer;
        op.pool = (DevicePool) from;
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
    protected void engineDealloca(int queueIndex, SemaphoreList waits, SemaphoreList signals, HeapBuffer heap) {
        QueueOp op = new QueueOp(queues[queueIndex], QueueOp.Kind.DEALLOCA, waits, signals);
        op.buffer = HeapBuffer.cast(heap.allocatedBuffer(), "dealloca buffer");
        submit(op, waits, signals, heap);
    }

    @Override
    protected void engineFill(int queueIndex, SemaphoreList waits, SemaphoreList signals, HeapBuffer target,
            long offset, long length, int pattern, int patternLength) {
        engineTransfer(queueIndex, waits, signals, new RecordedCommand.Fill(BufferRef.of(target, offset, length),
                pattern, patternLength, 0), length, target, null);
    }

    /** Small transfers run inline on the queue process, larger ones on its streaming processor. */
    @Override
    protected void engineTransfer(int queueIndex, SemaphoreList waits, SemaphoreList signals,
            RecordedCommand command,
            long bytes, Buffer target, Buffer source) {
        QueueOp op = new QueueOp(queues[queueIndex], QueueOp.Kind.TRANSFER, waits, signals);
        op.command = command;
        op.transferBytes = bytes;
        if (source == null) {
            submit(op, waits, signals, target);
        } else {
            submit(op, waits, signals, source, target);
        }
    }

    @Override
    protected void engineDispatch(int queueIndex, SemaphoreList waits, SemaphoreList signals,
            RecordedCommand.Dispatch command, Executable executable) {
        List<Resource> used = new ArrayList<>(command.bindings().size() + 2);
        used.add(executable);
        LocalCommands.forEachRunRef(command, ref -> {
            if (!ref.isIndirect()) {
                used.add(ref.buffer());
            }
        });
        QueueOp op = new QueueOp(queues[queueIndex], QueueOp.Kind.DISPATCH, waits, signals);
        op.command = command;
        submit(op, waits, signals, used.toArray(new Resource[0]));
    }

    @Override
    protected void engineExecute(int queueIndex, SemaphoreList waits, SemaphoreList signals,
            LocalCommandBuffer commandBuffer, BlockProgram program, BindingTable bindings) {
        List<Resource> used = new ArrayList<>();
        used.add(commandBuffer);
        for (int slot = program.usedSlots().nextSetBit(0); slot >= 0; slot = program.usedSlots().nextSetBit(slot + 1)) {
            used.add(bindings.buffer(slot));
        }
        QueueOp op = new QueueOp(queues[queueIndex], QueueOp.Kind.EXECUTE, waits, signals);
        op.program = program;
        op.bindings = bindings;
        submit(op, waits, signals, used.toArray(new Resource[0]));
    }

    @Override
    protected void engineBarrier(int queueIndex, SemaphoreList waits, SemaphoreList signals) {
        submit(new QueueOp(queues[queueIndex], QueueOp.Kind.BARRIER, waits, signals), waits, signals);
    }

    @Override
    protected void engineHostCall(int queueIndex, SemaphoreList waits, SemaphoreList signals, HostCall call,
            long[] args, long flags) {
        QueueOp op = new QueueOp(queues[queueIndex], QueueOp.Kind.HOST_CALL, waits, signals);
        op.call = call;
        op.args = args;
        op.flags = flags;
        submit(op, waits, signals);
    }

    /** Runs a small transfer on the calling queue process, through the tile engine. */
    void runTransferInline(RecordedCommand command) {
        runInline(null, command, null);
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
        op.retainedSemaphores = waits.size() + signals.size();
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
                markClosed(reason);
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
        try {
            for (QueueOp op : live) {
                op.queue.retire(op, new StatusException(reason.code(), reason.baseMessage() + " before " + op
                        + " finished"), true);
            }
            boolean clean;
            try {
                clean = executor.shutdown(SHUTDOWN_TIMEOUT);
            } catch (StatusException e) {
                LOG.error("device '{}' released on its own worker thread; executor shutdown skipped: {}", info().name(),
                        e.getMessage());
                clean = false;
            }
            if (!clean) {
                LOG.warn("device '{}': executor did not stop within {}", info().name(), SHUTDOWN_TIMEOUT);
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
                LOG.warn("device '{}': teardown by another thread did not finish within {}", info().name(),
                        SHUTDOWN_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected void engineLastRelease() {
        shutdown(new StatusException(StatusCode.CANCELLED, "device '" + info().name() + "' was closed"));
    }

    @Override
    public String toString() {
        return "local-task device '" + info().name() + "' (" + queues.length + " queues, " + executor.workerCount()
                + " workers)";
    }
}
