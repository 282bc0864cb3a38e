package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.internal.command.BlockProgram;
import dev.ortho.hal.cpu.internal.command.Command;
import dev.ortho.hal.cpu.internal.command.CommandExecutor;
import dev.ortho.hal.cpu.internal.executable.DispatchRunner;
import dev.ortho.hal.cpu.internal.heap.Ranges;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import java.lang.foreign.MemorySegment;
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
 * <p>Nothing is allocated per tile. Per dispatch a {@link DispatchState} is built when its region
 * starts, except for dispatches whose bindings are all direct, long-lived buffers: those are
 * built once and cached in the program. Thread-safety: the fields of region {@code r} are written
 * by its preparer before the release store of the cursor and read by claimers after their
 * acquire load of it.
 */
final class Execution extends MpscQueue.Node {
    static final int REGION_BITS = 20;
    private static final int TILE_BITS = 64 - REGION_BITS;
    private static final long TILE_MASK = (1L << TILE_BITS) - 1;
    /** Largest tile count of one command (so a region's sum cannot overflow the cursor). */
    static final long MAX_COMMAND_TILES = 1L << (TILE_BITS - 8);
    /** Bytes of one transfer tile. */
    static final long TRANSFER_CHUNK = 64 * 1024;
    private static final int MAX_BATCH = 64;

    private static final VarHandle CURSOR;
    private static final VarHandle RETIRED;
    private static final VarHandle ERROR;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            CURSOR = l.findVarHandle(Execution.class, "cursor", long.class);
            RETIRED = l.findVarHandle(Execution.class, "retired", long.class);
            ERROR = l.findVarHandle(Execution.class, "error", StatusException.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final QueueOp op;
    private final BlockProgram program;
    private final MemorySegment[] slots;
    private final int workers;
    private final int regionCount;
    /** Per command: one past its last tile, counted from its region's first tile. */
    private final long[] tileEnd;
    private final DispatchState[] states;
    private final long[] localBytes;
    private final MemorySegment[] targets;
    private final MemorySegment[] sources;
    private final long[] regionTiles;
    private int initialBudget = 1;

    // Hot, written by claimers; padded off the immutable fields above by the two arrays' headers
    // only: contention is between workers of the same execution, which share the line anyway.
    private volatile long cursor;
    private volatile long retired;
    private volatile StatusException error;

    /**
     * @param op the queue operation retired when the execution finishes
     * @param slots the binding-table slots resolved at issue (may be empty)
     * @param workers the executor's worker count (dispatch concurrency)
     * @throws StatusException OUT_OF_RANGE if the program has more regions than the cursor can
     *     tag
     */
    Execution(QueueOp op, BlockProgram program, MemorySegment[] slots, int workers) {
        if (program.regionCount() >= (1 << REGION_BITS)) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "command buffer has " + program.regionCount()
                    + " barrier-separated regions; at most " + ((1 << REGION_BITS) - 1) + " are supported");
        }
        this.op = op;
        this.program = program;
        this.slots = slots;
        this.workers = workers;
        this.regionCount = program.regionCount();
        int commands = program.commandCount();
        this.tileEnd = new long[commands];
        this.states = new DispatchState[commands];
        this.localBytes = new long[commands];
        this.targets = new MemorySegment[commands];
        this.sources = new MemorySegment[commands];
        this.regionTiles = new long[regionCount];
    }

    private static int region(long cursor) {
        return (int) (cursor >>> TILE_BITS);
    }

    private static long pack(int region, long tile) {
        return ((long) region << TILE_BITS) | tile;
    }

    /**
     * Prepares the first non-empty region. Called once by the issuing thread before the
     * execution is handed to the processor.
     *
     * @return false if there is nothing to run (no tiles, or preparation failed): the caller
     *     finishes the execution itself
     */
    boolean start() {
        return advanceFrom(-1) >= 0;
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

    /** Whether every region retired. */
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

    /** Resolves region {@code r}'s commands and returns its tile count (0 on failure, recorded). */
    private long prepare(int r) {
        long tiles = 0;
        int end = program.regionEnd(r);
        for (int k = program.regionStart(r); k < end; k++) {
            try {
                tiles += prepareCommand(k);
            } catch (StatusException e) {
                ERROR.compareAndSet(this, (StatusException) null,
                        e.annotate("while preparing command " + k + " of the submission"));
                return 0;
            } catch (RuntimeException e) {
                ERROR.compareAndSet(this, (StatusException) null, new StatusException(StatusCode.INTERNAL,
                        "preparing command " + k + " threw " + e, e));
                return 0;
            }
            tileEnd[k] = tiles;
        }
        return tiles;
    }

    private long prepareCommand(int k) {
        Command command = program.command(k);
        switch (command) {
            case Command.Dispatch d -> {
                DispatchState state = program.cachedState(k);
                if (state == null || state.maxConcurrency() != workers) {
                    BufferRef[] refs = d.bindings();
                    MemorySegment[] bindings = new MemorySegment[refs.length];
                    for (int i = 0; i < refs.length; i++) {
                        bindings[i] = CommandExecutor.resolve(refs[i], slots, "dispatch binding " + i);
                    }
                    MemorySegment count = d.countRef() == null ? null
                            : CommandExecutor.resolve(d.countRef(), slots, "dispatch workgroup count");
                    state = DispatchRunner.state(d.function(), d.config(), d.constants(), bindings, count, workers);
                    program.cacheState(k, state);
                }
                states[k] = state;
                localBytes[k] = DispatchRunner.localBytes(d.function(), d.config());
                long tiles = (long) state.workgroupCountX() * state.workgroupCountY();
                if (state.workgroupCountZ() != 0 && tiles > MAX_COMMAND_TILES / state.workgroupCountZ()) {
                    throw new StatusException(StatusCode.OUT_OF_RANGE, "dispatch '" + d.function().info().name()
                            + "' has more than " + MAX_COMMAND_TILES + " workgroups");
                }
                return tiles * state.workgroupCountZ();
            }
            case Command.Fill f -> {
                MemorySegment target = CommandExecutor.resolve(f.target(), slots, "fill target");
                Ranges.checkPattern(f.target().offset(), target.byteSize(), f.patternLength());
                targets[k] = target;
                return chunks(target.byteSize());
            }
            case Command.Copy c -> {
                MemorySegment source = CommandExecutor.resolve(c.source(), slots, "copy source");
                MemorySegment target = CommandExecutor.resolve(c.target(), slots, "copy target");
                if (source.byteSize() != target.byteSize()) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "copy source length " + source.byteSize()
                            + " differs from target length " + target.byteSize());
                }
                sources[k] = source;
                targets[k] = target;
                return chunks(source.byteSize());
            }
            case Command.Update u -> {
                targets[k] = CommandExecutor.resolve(u.target(), slots, "update target");
                return u.data().length == 0 ? 0 : 1;
            }
        }
    }

    private static long chunks(long bytes) {
        return (bytes + TRANSFER_CHUNK - 1) / TRANSFER_CHUNK;
    }

    /** Runs tiles {@code [from, to)} of region {@code r}; a failure is recorded, not thrown. */
    private void runTiles(int r, long from, long to, WorkerSlot worker) {
        int k = program.regionStart(r);
        while (tileEnd[k] <= from) {
            k++;
        }
        long t = from;
        try {
            while (t < to) {
                long commandStart = k == program.regionStart(r) ? 0 : tileEnd[k - 1];
                long commandEnd = Math.min(tileEnd[k], to);
                runCommandTiles(k, t - commandStart, commandEnd - commandStart, worker);
                t = commandEnd;
                k++;
            }
        } catch (StatusException e) {
            ERROR.compareAndSet(this, (StatusException) null, e);
        } catch (RuntimeException e) {
            ERROR.compareAndSet(this, (StatusException) null,
                    new StatusException(StatusCode.INTERNAL, "tile execution threw " + e, e));
        }
    }

    private void runCommandTiles(int k, long from, long to, WorkerSlot worker) {
        Command command = program.command(k);
        switch (command) {
            case Command.Dispatch d -> {
                DispatchState state = states[k];
                Kernel kernel = d.function().kernel();
                WorkgroupState workgroup = worker.workgroup(localBytes[k]);
                long countX = state.workgroupCountX();
                long countY = state.workgroupCountY();
                for (long tile = from; tile < to; tile++) {
                    int x = (int) (tile % countX);
                    long rest = tile / countX;
                    int y = (int) (rest % countY);
                    int z = (int) (rest / countY);
                    workgroup.moveTo(x, y, z);
                    try {
                        kernel.run(state, workgroup);
                    } catch (RuntimeException e) {
                        throw DispatchRunner.kernelFailure(e, d.function().info().name(), x, y, z);
                    }
                }
            }
            case Command.Fill f -> {
                MemorySegment target = targets[k];
                for (long tile = from; tile < to; tile++) {
                    long offset = tile * TRANSFER_CHUNK;
                    Ranges.fill(target.asSlice(offset, Math.min(TRANSFER_CHUNK, target.byteSize() - offset)),
                            f.pattern(), f.patternLength());
                }
            }
            case Command.Copy c -> {
                MemorySegment source = sources[k];
                MemorySegment target = targets[k];
                for (long tile = from; tile < to; tile++) {
                    long offset = tile * TRANSFER_CHUNK;
                    MemorySegment.copy(source, offset, target, offset,
                            Math.min(TRANSFER_CHUNK, source.byteSize() - offset));
                }
            }
            case Command.Update u -> MemorySegment.copy(MemorySegment.ofArray(u.data()), 0, targets[k], 0,
                    u.data().length);
        }
    }
}
