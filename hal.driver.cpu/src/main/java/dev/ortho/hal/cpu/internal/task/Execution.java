package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.cpu.internal.command.CommandExecutor;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.spi.TimelineSemaphore;
import dev.ortho.hal.trace.DispatchTilesEvent;
import dev.ortho.hal.trace.HalTracing;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One submission being run by a {@link BlockProcessor}: IREE's block processor context. It walks
 * the regions of a {@link BlockProgram}; the tiles of the current region (workgroups of its
 * dispatches, 64 KiB chunks of its transfers) form one index space that workers claim in batches.
 *
 * <p><b>Claiming.</b> {@code cursor} packs the region index (high {@value #REGION_BITS} bits; it
 * doubles as the epoch tag) and the next unclaimed tile (low bits). A worker claims
 * {@code [t, t + n)} with one CAS from {@code (r, t)} to {@code (r, t + n)}; a worker holding a
 * cursor of an earlier region fails its CAS because the value only ever grows. After running its
 * tiles the worker adds {@code n} to {@code retired}; the one whose add reaches the region's tile
 * count is the <em>completer</em>: it prepares the next non-empty region (binding resolution,
 * indirect workgroup counts, tile counts), resets {@code retired}, publishes the new cursor with
 * a release store and sets the process's wake budget from the new region's tile count. Nobody
 * waits at a region boundary: workers that find the current region fully claimed return and come
 * back on their next scan.
 *
 * <p><b>Failure.</b> The first kernel or preparation failure is kept; later tiles are claimed in
 * one batch and skipped so the regions still retire, and no further region runs.
 *
 * <p><b>Recycling.</b> Executions are the slots of their processor's ring: created once with the
 * processor, {@link #load loaded} for each submission, never allocated per submission (their
 * per-command arrays grow to the largest program seen and are then reused). {@code refs} counts
 * the threads inside the execution ({@link #enter}/{@link #exit}) plus a {@code DONE} bit: set
 * while the slot is free or waiting to be installed and again when the last region retired. A
 * thread can only enter while {@code DONE} is clear, and the slot is handed back to the ring
 * (loadable again) by whichever exit leaves {@code refs == DONE}, so no worker, canceller or
 * completer can still be reading an execution when it is reloaded.
 *
 * <p>Nothing is allocated per tile, and on the steady path nothing per submission: dispatch
 * states come from the program's cache (see {@link CommandExecutor}) while the buffers they
 * were built from are still the ones bound; only a miss builds one. Thread-safety: the fields of
 * region {@code r} are written by its preparer before the release store of the cursor and read by
 * claimers after their acquire load of it; the load-time fields are written by the loading thread
 * before the ring publishes the slot.
 */
final class Execution {
    static final int REGION_BITS = 20;
    private static final int TILE_BITS = 64 - REGION_BITS;
    private static final long TILE_MASK = (1L << TILE_BITS) - 1;
    private static final int MAX_BATCH = 64;

    private static final VarHandle CURSOR;
    private static final VarHandle RETIRED;
    private static final VarHandle ERROR;
    private static final VarHandle REFS;
    /** The bit of {@code refs} that marks the execution as not running (free, pending or done). */
    private static final int DONE = 1 << 30;
    private static final long[] NO_LONGS = {};

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            CURSOR = l.findVarHandle(Execution.class, "cursor", long.class);
            RETIRED = l.findVarHandle(Execution.class, "retired", long.class);
            ERROR = l.findVarHandle(Execution.class, "error", StatusException.class);
            REFS = l.findVarHandle(Execution.class, "refs", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BlockProcessor processor;
    private final int workers;
    /** The ring position this execution was loaded at (its slot is {@code position & mask}). */
    long position;
    QueueOp op;
    /** The tile engine: the loaded submission's commands, their resolved memory and tile ranges. */
    private final CommandExecutor engine;
    private int regionCount;
    /** False when loading found nothing to run; the ring frees the slot without installing it. */
    boolean runnable;
    private long[] regionTiles = NO_LONGS;
    private int initialBudget = 1;

    // Hot, written by claimers; padded off the immutable fields above by the two arrays' headers
    // only: contention is between workers of the same execution, which share the line anyway.
    private volatile long cursor;
    private volatile long retired;
    private volatile StatusException error;
    private volatile int refs = DONE;

    /**
     * An empty ring slot of {@code processor}.
     *
     * @param workers the executor's worker count (dispatch concurrency)
     */
    Execution(BlockProcessor processor, int workers) {
        this.processor = processor;
        this.workers = workers;
        this.engine = new CommandExecutor(workers);
    }

    /**
     * Loads a submission into this free slot (the loading thread owns it until the ring publishes
     * it) and prepares its first non-empty region. Either {@code program} (with its binding
     * {@code table}, may be null if it uses no slot) or {@code single} is given.
     *
     * @return whether there is anything to run; if not (no tiles, or preparation failed, see
     *     {@link #error()}) the caller retires the operation itself
     * @throws StatusException OUT_OF_RANGE if the program has more regions than the cursor can
     *     tag (nothing was loaded)
     */
    boolean load(QueueOp op, BlockProgram program, RecordedCommand single, BindingTable table) {
        int regions = program == null ? 1 : program.regionCount();
        if (regions >= (1 << REGION_BITS)) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "command buffer has " + regions
                    + " barrier-separated regions; at most " + ((1 << REGION_BITS) - 1) + " are supported");
        }
        if (regionTiles.length < regions) {
            regionTiles = new long[regions];
        }
        this.op = op;
        engine.load(program, single, table);
        this.regionCount = regions;
        this.initialBudget = 1;
        ERROR.setOpaque(this, (StatusException) null);
        RETIRED.setOpaque(this, 0L);
        CURSOR.setOpaque(this, 0L); // nobody reads it before the ring publishes the slot
        runnable = advanceFrom(-1) >= 0;
        return runnable;
    }

    /** Drops the references of the last submission (called when the slot is freed). */
    private void clear() {
        engine.clear();
        op = null;
    }

    /** Installer: the execution becomes current and enterable. Only from {@code DONE} with no users. */
    void installed() {
        REFS.setVolatile(this, 0); // volatile: publishes the loaded state to enter()'s CAS
    }

    /**
     * Enters a running execution: until the matching {@link #exit} the slot cannot be freed.
     *
     * @return false if it is not running (finished, or its slot free or pending): do not use it
     */
    boolean enter() {
        while (true) {
            int r = refs;
            if ((r & DONE) != 0) {
                return false;
            }
            if (REFS.compareAndSet(this, r, r + 1)) {
                return true;
            }
        }
    }

    /** Leaves; the last thread out of a done execution frees its slot. */
    void exit() {
        if ((int) REFS.getAndAdd(this, -1) - 1 == DONE) {
            clear();
            processor.free(this);
        }
    }

    /** Whether the execution is not running (done, or its slot free or waiting to be installed). */
    boolean isDoneOrFree() {
        return (refs & DONE) != 0;
    }

    /** Completer (inside, entered): marks the execution done; its slot frees at the last exit. */
    void markDone() {
        REFS.getAndAdd(this, DONE);
    }

    /** Frees a loaded slot that was never installed ({@link #runnable} false). */
    void discard() {
        clear();
        processor.free(this);
    }

    private static int region(long cursor) {
        return (int) (cursor >>> TILE_BITS);
    }

    private static long pack(int region, long tile) {
        return ((long) region << TILE_BITS) | tile;
    }

    /** The wake budget for the region {@link #start()} prepared. */
    int initialBudget() {
        return initialBudget;
    }

    /** The first failure, or null. */
    StatusException error() {
        return error;
    }

    /** Makes the remaining tiles skip (used when the submission is cancelled). */
    void abandon(StatusException status) {
        ERROR.compareAndSet(this, (StatusException) null, status);
    }

    /** Whether every region retired (valid while entered). */
    boolean isFinished() {
        return region(cursor) >= regionCount;
    }

    /**
     * Claims and runs tiles of the current region until none is left to claim.
     *
     * @return {@code CLAIMED} if this call ran (or skipped) tiles, {@code FINISHED} if it also
     *     retired the last tile of the last region (the caller then finishes the execution), or
     *     {@code IDLE} if there was nothing to claim
     */
    int drain(WorkerSlot worker, BlockProcessor processor) {
        int result = claimAndRun(worker, processor);
        worker.closeTrace(); // commits this worker's open DispatchTilesEvent, if tracing
        return result;
    }

    private int claimAndRun(WorkerSlot worker, BlockProcessor processor) {
        int result = IDLE;
        while (true) {
            long c = (long) CURSOR.getAcquire(this); // acquire: pairs with the completer's release store
            int r = region(c);
            if (r >= regionCount) {
                return result;
            }
            long total = regionTiles[r];
            long t = c & TILE_MASK;
            if (t >= total) {
                return result;
            }
            long remaining = total - t;
            long n = error != null ? remaining : Math.max(1, Math.min(MAX_BATCH, remaining / (4L * workers)));
            if (!CURSOR.compareAndSet(this, c, c + n)) {
                continue;
            }
            result = CLAIMED;
            if (HalTracing.AVAILABLE && DispatchTilesEvent.enabled()) { // static reads when no recording is on
                worker.traceTiles(this, r, n);
            }
            if (error == null) {
                runTiles(r, t, t + n, worker);
            }
            // getAndAdd (volatile): orders our tile writes before the completer's next region.
            long done = (long) RETIRED.getAndAdd(this, n) + n;
            if (done == total) {
                int next = advanceFrom(r);
                if (next < 0) {
                    return FINISHED;
                }
                // Use the index we published, never a re-read of the cursor: other workers may
                // already have finished every later region (regression: the re-read indexed past
                // the last region, the exception killed the compute process and the queue hung).
                // regionTiles[next] is never rewritten, so reading it late is safe.
                processor.setBudget(budget(regionTiles[next]));
            }
        }
    }

    /**
     * The submitting thread's share (see {@link BlockProcessor#submit(QueueOp, boolean)}): claims
     * the next tile of the current region if it is unclaimed and runs it with {@code worker}. If
     * more tiles of this region are left the processor's workers are scheduled before the tile
     * runs; if the tile completes a region that is not the last, they are scheduled after the
     * next region is published (again, if they were scheduled before: a worker woken then may
     * have found nothing to claim and gone back to sleep). A one-tile region followed by more
     * regions thus wakes the workers once, for the next region, not twice.
     *
     * @return {@code IDLE} if nothing was claimed (fully claimed, failed, or a claimer was
     *     faster), {@code CLAIMED}, or {@code FINISHED} if the tile retired the last region (the
     *     caller then finishes the execution)
     */
    int runFirstTile(WorkerSlot worker, BlockProcessor processor) {
        long c = (long) CURSOR.getAcquire(this); // acquire: pairs with the completer's release store
        int r = region(c);
        if (r >= regionCount || error != null) {
            return IDLE;
        }
        long total = regionTiles[r];
        long t = c & TILE_MASK;
        if (t >= total || !CURSOR.compareAndSet(this, c, c + 1)) {
            return IDLE;
        }
        if (t + 1 < total) {
            processor.scheduleWorkers();
        }
        if (HalTracing.AVAILABLE && DispatchTilesEvent.enabled()) {
            worker.traceTiles(this, r, 1);
        }
        runTiles(r, t, t + 1, worker);
        worker.closeTrace();
        return retireOneOnCaller(r, total, processor);
    }

    /**
     * A host thread ran one tile of region {@code r} ({@code total} tiles): counts it retired; if
     * it completed the region, publishes the next one and schedules the workers for it (they may
     * have found nothing to claim and gone back to sleep on this one).
     *
     * @return {@code FINISHED} if it retired the last region, else {@code CLAIMED}
     */
    private int retireOneOnCaller(int r, long total, BlockProcessor processor) {
        // getAndAdd (volatile): orders our tile writes before the completer's next region.
        long done = (long) RETIRED.getAndAdd(this, 1L) + 1;
        if (done == total) {
            int next = advanceFrom(r);
            if (next < 0) {
                return FINISHED;
            }
            processor.setBudget(budget(regionTiles[next]));
            processor.scheduleWorkers();
        }
        return CLAIMED;
    }

    /**
     * A waiting thread's share (see {@link BlockProcessor#help}): claims and runs tiles one at a
     * time with {@code worker}, in the workers' protocol (one CAS on the cursor, the retired count,
     * the completer prepares the next region and schedules the workers for it), until nothing is
     * left to claim or {@link #stopHelping} says so. Counts the tiles in {@code worker.tilesRun}.
     *
     * @return {@code IDLE} if nothing was claimed, {@code CLAIMED}, or {@code FINISHED} if a tile
     *     retired the last region (the caller then finishes the execution)
     */
    int help(WorkerSlot worker, BlockProcessor processor, TimelineSemaphore semaphore, long target, long deadline) {
        int result = IDLE;
        try {
            while (error == null && !stopHelping(semaphore, target, deadline)) {
                long c = (long) CURSOR.getAcquire(this); // acquire: pairs with the completer's release store
                int r = region(c);
                if (r >= regionCount) {
                    break;
                }
                long total = regionTiles[r];
                long t = c & TILE_MASK;
                if (t >= total) {
                    break;
                }
                if (!CURSOR.compareAndSet(this, c, c + 1)) {
                    continue;
                }
                result = CLAIMED;
                if (HalTracing.AVAILABLE && DispatchTilesEvent.enabled()) {
                    worker.traceTiles(this, r, 1);
                }
                runTiles(r, t, t + 1, worker); // a failure is recorded: it fails the operation, never the waiter
                worker.tilesRun++;
                if (retireOneOnCaller(r, total, processor) == FINISHED) {
                    return FINISHED;
                }
            }
            return result;
        } finally {
            worker.closeTrace();
        }
    }

    /** Whether a helping waiter stops: its value reached, its semaphore failed or its deadline passed. */
    static boolean stopHelping(TimelineSemaphore semaphore, long target, long deadline) {
        if (semaphore.failure() != null) {
            return true;
        }
        try {
            if (semaphore.query() >= target) {
                return true;
            }
        } catch (StatusException failed) {
            return true;
        }
        return Deadline.remainingNanos(deadline, System.nanoTime()) == 0;
    }

    /** A new event for region {@code r} run by {@code worker} (tracing only; allocates). */
    DispatchTilesEvent openTrace(int r, int worker) {
        DispatchTilesEvent event = new DispatchTilesEvent();
        event.device = op.queue.deviceName();
        event.queue = op.queue.index();
        event.worker = worker;
        event.workers = workers;
        event.region = r;
        int start = engine.regionStart(r);
        String first = switch (engine.command(start)) {
            case RecordedCommand.Dispatch d -> d.executable().functionInfo(d.function()).name();
            case RecordedCommand.Fill f -> "fill";
            case RecordedCommand.Copy c -> "copy";
            case RecordedCommand.Update u -> "update";
            default -> engine.command(start).call(); // a region starts at a command that runs
        };
        int more = -1;
        for (int k = start; k < engine.regionEnd(r); k++) {
            if (engine.runs(k)) {
                more++;
            }
        }
        event.commands = more > 0 ? first + " +" + more : first;
        return event;
    }

    static final int IDLE = 0;
    static final int CLAIMED = 1;
    static final int FINISHED = 2;

    private int budget(long tiles) {
        return (int) Math.max(1, Math.min(workers, tiles));
    }

    /**
     * Completer step: prepares the next non-empty region after {@code region} and publishes it.
     *
     * @return the published region, or -1 if every region retired (the execution finished)
     */
    private int advanceFrom(int region) {
        for (int r = region + 1; r < regionCount; r++) {
            long total = error == null ? prepare(r) : 0;
            if (total > 0) {
                regionTiles[r] = total;
                initialBudget = budget(total);
                RETIRED.setOpaque(this, 0L); // ordered before the release store below
                CURSOR.setRelease(this, pack(r, 0)); // release: publishes region r's prepared state
                return r;
            }
        }
        CURSOR.setRelease(this, pack(regionCount, 0));
        return -1;
    }

    /** Prepares region {@code r} and returns its tile count (0 on failure, recorded). */
    private long prepare(int r) {
        try {
            return engine.prepare(r);
        } catch (StatusException e) {
            ERROR.compareAndSet(this, (StatusException) null, e);
            return 0;
        }
    }

    /** Runs tiles {@code [from, to)} of region {@code r}; a failure is recorded, not thrown. */
    private void runTiles(int r, long from, long to, WorkerSlot worker) {
        try {
            engine.runTiles(r, from, to, worker);
        } catch (StatusException e) {
            ERROR.compareAndSet(this, (StatusException) null, e);
        } catch (RuntimeException e) {
            ERROR.compareAndSet(this, (StatusException) null,
                    new StatusException(StatusCode.INTERNAL, "tile execution threw " + e, e));
        }
    }
}
