package dev.ortho.hal.cpu.internal.command;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.internal.executable.DispatchRunner;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
import dev.ortho.hal.cpu.internal.heap.Ranges;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import dev.ortho.hal.spi.RecordedCommand;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * The tile engine of the local CPU devices: the one interpreter of the {@link RecordedCommand}s
 * they checked ({@link LocalCommands}). It runs a {@link BlockProgram} (a command buffer's
 * recording, with a submission's binding table) or one queued command region by region; within a region every command is a run of <em>tiles</em> — the
 * workgroups of a dispatch, the {@value #TRANSFER_CHUNK}-byte chunks of a fill or copy, the one
 * tile of an update — numbered from 0 across the region's commands.
 *
 * <p>Two steps per region: {@link #prepare} resolves the region's references (binding-table
 * slots, indirect workgroup counts), checks what only the resolved memory can show (a copy whose
 * source and target overlap, however they were named) and returns the region's tile count;
 * {@link #runTiles} then runs any sub-range of its tiles. {@code local-task} hands the tiles of a
 * prepared region to several executor workers at once ({@code task.Execution} claims them);
 * {@code local-sync} and inline transfers are the one-worker case, {@link #runAll} on the caller.
 *
 * <p>Recycled: {@link #load} grows the per-command arrays to the largest program seen, and
 * {@link #clear} drops the references of the last submission; nothing is allocated per tile, and
 * on the steady path nothing per submission (dispatch states come from the program's cache while
 * the buffers they were built from are still bound, see {@link DispatchCacheEntry}). What a
 * dispatch needs besides its recorded operands (the function, looked up in its executable, and
 * the constants as 32-bit values) is resolved when its state is built, into the engine's
 * per-command arrays, not kept per command.
 *
 * <p>Thread-safety: {@code load}, {@code prepare} and {@code clear} are for one thread at a time,
 * which must publish the prepared region (a release store the workers acquire) before other
 * threads run its tiles; {@code runTiles} may then run concurrently for disjoint ranges.
 */
public final class CommandExecutor {
    /** Bytes of one transfer tile. */
    public static final long TRANSFER_CHUNK = 64 * 1024;
    /** Most tiles one command may have (so that a region's sum fits any tile counter). */
    public static final long MAX_COMMAND_TILES = 1L << 36;
    private static final long[] NO_LONGS = {};
    private static final DispatchState[] NO_STATES = {};
    private static final MemorySegment[] NO_SEGMENTS = {};
    private static final KernelFunction[] NO_FUNCTIONS = {};

    private final int workers;
    /** The program run, or null when running {@link #single}. */
    private BlockProgram program;
    /** The one command of a queued operation (program null). */
    private RecordedCommand single;
    private BindingTable table;
    /** Per command: one past its last tile, counted from its region's first tile. */
    private long[] tileEnd = NO_LONGS;
    private DispatchState[] states = NO_STATES;
    private long[] localBytes = NO_LONGS;
    /** Dispatches only: the function, looked up when the command is prepared. */
    private KernelFunction[] functions = NO_FUNCTIONS;
    private MemorySegment[] targets = NO_SEGMENTS;
    private MemorySegment[] sources = NO_SEGMENTS;
    /**
     * Fills only: where the fill starts in {@code targets[k]}, which is then the target's whole
     * root memory (unsliced: a queue fill allocates no segment), and how many bytes it fills.
     */
    private long[] targetOffsets = NO_LONGS;
    private long[] targetLengths = NO_LONGS;
    private WorkgroupScratch ownScratch;

    /** @param workers how many workers may run a region's tiles at once (the dispatch concurrency) */
    public CommandExecutor(int workers) {
        this.workers = workers;
    }

    /**
     * Loads a submission: either {@code program} with its binding {@code table} (null if it uses
     * no slot) or {@code single}. Does no checking; {@link #prepare} does.
     */
    public void load(BlockProgram program, RecordedCommand single, BindingTable table) {
        int commands = program == null ? 1 : program.commandCount();
        if (tileEnd.length < commands) { // grows to the largest program, then reused
            tileEnd = new long[commands];
            states = new DispatchState[commands];
            localBytes = new long[commands];
            functions = new KernelFunction[commands];
            targets = new MemorySegment[commands];
            sources = new MemorySegment[commands];
            targetOffsets = new long[commands];
            targetLengths = new long[commands];
        }
        this.program = program;
        this.single = single;
        this.table = table;
    }

    /** Drops the references of the loaded submission. */
    public void clear() {
        int commands = program == null ? 1 : program.commandCount();
        Arrays.fill(states, 0, Math.min(commands, states.length), null);
        Arrays.fill(functions, 0, Math.min(commands, functions.length), null);
        Arrays.fill(targets, 0, Math.min(commands, targets.length), null);
        Arrays.fill(sources, 0, Math.min(commands, sources.length), null);
        program = null;
        single = null;
        table = null;
    }

    /** Number of regions of the loaded submission. */
    public int regionCount() {
        return program == null ? 1 : program.regionCount();
    }

    /** Command {@code k} of the loaded submission. */
    public RecordedCommand command(int k) {
        return program == null ? single : program.command(k);
    }

    /** Whether command {@code k} of the loaded submission has tiles to run (see {@link LocalCommands}). */
    public boolean runs(int k) {
        return LocalCommands.runs(command(k));
    }

    /** Index of region {@code r}'s first command. */
    public int regionStart(int r) {
        return program == null ? 0 : program.regionStart(r);
    }

    /** One past region {@code r}'s last command. */
    public int regionEnd(int r) {
        return program == null ? 1 : program.regionEnd(r);
    }

    /**
     * Resolves and checks region {@code r}'s commands and returns its tile count (0: nothing to
     * run).
     *
     * @throws StatusException the first command's failure, annotated with its index:
     *     INVALID_ARGUMENT for a copy whose resolved source and target overlap or differ in
     *     length, OUT_OF_RANGE for a reference outside its slot or too many workgroups, as
     *     {@link DispatchRunner#state} for dispatches; INTERNAL for anything unexpected
     */
    public long prepare(int r) {
        long tiles = 0;
        int end = regionEnd(r);
        for (int k = regionStart(r); k < end; k++) {
            try {
                tiles += prepareCommand(k);
            } catch (StatusException e) {
                throw e.annotate("while preparing command " + k + " of the submission");
            } catch (RuntimeException e) {
                throw new StatusException(StatusCode.INTERNAL, "preparing command " + k + " threw " + e, e);
            }
            tileEnd[k] = tiles;
        }
        return tiles;
    }

    private long prepareCommand(int k) {
        switch (command(k)) {
            case RecordedCommand.Dispatch d -> {
                KernelFunction function = LocalCommands.function(d);
                functions[k] = function;
                DispatchState state = null;
                if (program != null && program.cachesDispatch(k)
                        && program.dispatchCache(k) instanceof DispatchCacheEntry cached
                        && cached.matches(d, table, workers)) {
                    state = cached.state();
                }
                if (state == null) {
                    List<BufferRef> refs = d.bindings();
                    MemorySegment[] bindings = new MemorySegment[refs.size()];
                    for (int i = 0; i < bindings.length; i++) {
                        bindings[i] = resolve(refs.get(i), "dispatch binding ", i);
                    }
                    BufferRef countRef = LocalCommands.countRef(d);
                    MemorySegment count = countRef == null ? null : resolve(countRef, "dispatch workgroup count", -1);
                    state = DispatchRunner.state(function, d.config(), LocalCommands.constants(d), bindings, count,
                            workers);
                    if (program != null && program.cachesDispatch(k)) {
                        program.setDispatchCache(k, DispatchCacheEntry.of(d, table, workers, state)); // null: uncached
                    }
                }
                states[k] = state;
                localBytes[k] = DispatchRunner.localBytes(function, d.config());
                long tiles = (long) state.workgroupCountX() * state.workgroupCountY();
                if (state.workgroupCountZ() != 0 && tiles > MAX_COMMAND_TILES / state.workgroupCountZ()) {
                    throw new StatusException(StatusCode.OUT_OF_RANGE, "dispatch '" + function.info().name()
                            + "' has more than " + MAX_COMMAND_TILES + " workgroups");
                }
                return tiles * state.workgroupCountZ();
            }
            case RecordedCommand.Fill f -> {
                long length = resolveFill(k, f.target(), "fill target");
                Ranges.checkPattern(f.target().offset(), length, f.patternLength());
                targetLengths[k] = length;
                return chunks(length);
            }
            case RecordedCommand.Copy c -> {
                MemorySegment source = resolve(c.source(), "copy source", -1);
                MemorySegment target = resolve(c.target(), "copy target", -1);
                if (source.byteSize() != target.byteSize()) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "copy source length " + source.byteSize()
                            + " differs from target length " + target.byteSize());
                }
                if (source.asOverlappingSlice(target).isPresent()) { // binding-table slots may alias
                    throw overlap(c, source.byteSize());
                }
                sources[k] = source;
                targets[k] = target;
                return chunks(source.byteSize());
            }
            case RecordedCommand.Update u -> {
                targets[k] = resolve(u.target(), "update target", -1);
                return u.data().length == 0 ? 0 : 1;
            }
            default -> {
                return 0; // barriers, events, debug groups and advice have no tiles
            }
        }
    }

    /**
     * INVALID_ARGUMENT for a copy whose resolved ranges share memory, as memcpy (and IREE)
     * refuse: naming both ranges and, for indirect references, their slots.
     */
    private static StatusException overlap(RecordedCommand.Copy copy, long length) {
        if (!copy.source().isIndirect() && !copy.target().isIndirect()) {
            return LocalCommands.overlap(copy.source().offset(), copy.target().offset(), length);
        }
        return new StatusException(StatusCode.INVALID_ARGUMENT, "copy source " + describe(copy.source(), length)
                + " and target " + describe(copy.target(), length) + " overlap within the same allocation");
    }

    private static String describe(BufferRef ref, long length) {
        String range = "range [" + ref.offset() + ", " + (ref.offset() + length) + ")";
        return ref.isIndirect() ? range + " of binding table slot " + ref.bufferSlot() : range;
    }

    /**
     * The memory {@code ref} names, through the binding table for indirect references; {@code
     * what} (with {@code index} appended unless negative) names it in a failure. Runs for every
     * reference of every submission, so a valid reference costs one slice and no message: the
     * checks run on numbers first and only a failing reference goes through
     * {@link #resolveSlowPath}, which builds the names and throws what it always threw.
     */
    private MemorySegment resolve(BufferRef ref, String what, int index) {
        long offset = ref.offset();
        long length = ref.length();
        if (!ref.isIndirect()) {
            if (ref.buffer() instanceof HeapBuffer heap && Ranges.fits(offset, length, heap.byteLength())) {
                MemorySegment root = heap.committedMemoryOrNull();
                if (root != null) {
                    return root.asSlice(heap.byteOffset() + offset,
                            length == Buffer.WHOLE_BUFFER ? heap.byteLength() - offset : length);
                }
            }
            return resolveSlowPath(ref, index < 0 ? what : what + index);
        }
        int slot = ref.bufferSlot();
        if (table.buffer(slot) instanceof HeapBuffer heap
                && Ranges.fits(table.offset(slot), table.length(slot), heap.byteLength())) {
            long slotOffset = table.offset(slot);
            long slotLength = table.length(slot) == Buffer.WHOLE_BUFFER ? heap.byteLength() - slotOffset
                    : table.length(slot);
            MemorySegment root = heap.committedMemoryOrNull();
            if (root != null && Ranges.fits(offset, length, slotLength)) {
                return root.asSlice(heap.byteOffset() + slotOffset + offset,
                        length == Buffer.WHOLE_BUFFER ? slotLength - offset : length);
            }
        }
        return resolveSlowPath(ref, index < 0 ? what : what + index);
    }

    /** {@link #resolve} with the names built: throws the failure of an invalid reference. */
    private MemorySegment resolveSlowPath(BufferRef ref, String what) {
        if (!ref.isIndirect()) {
            return HeapBuffer.cast(ref.buffer(), what).range(what, ref.offset(), ref.length());
        }
        int slot = ref.bufferSlot();
        String slotName = "binding table slot " + slot;
        MemorySegment memory = HeapBuffer.cast(table.buffer(slot), slotName)
                .range(slotName, table.offset(slot), table.length(slot));
        long length = Ranges.resolve(what + " (slot " + slot + ")", ref.offset(), ref.length(), memory.byteSize());
        return memory.asSlice(ref.offset(), length);
    }

    /**
     * {@link #resolve} without the slice: sets {@code targets[k]} to the root memory {@code ref}
     * lies in and {@code targetOffsets[k]} to where it starts there; returns its length. The same
     * checks in the same order.
     */
    private long resolveFill(int k, BufferRef ref, String what) {
        if (!ref.isIndirect()) {
            HeapBuffer heap = HeapBuffer.cast(ref.buffer(), what);
            long length = heap.checkRange(what, ref.offset(), ref.length());
            targets[k] = heap.rootMemory(what);
            targetOffsets[k] = heap.byteOffset() + ref.offset();
            return length;
        }
        int slot = ref.bufferSlot();
        if (table.buffer(slot) instanceof HeapBuffer heap
                && Ranges.fits(table.offset(slot), table.length(slot), heap.byteLength())) {
            long slotLength = table.length(slot) == Buffer.WHOLE_BUFFER ? heap.byteLength() - table.offset(slot)
                    : table.length(slot);
            MemorySegment root = heap.committedMemoryOrNull();
            if (root != null && Ranges.fits(ref.offset(), ref.length(), slotLength)) { // valid: no names built
                targets[k] = root;
                targetOffsets[k] = heap.byteOffset() + table.offset(slot) + ref.offset();
                return ref.length() == Buffer.WHOLE_BUFFER ? slotLength - ref.offset() : ref.length();
            }
        }
        String slotName = "binding table slot " + slot;
        HeapBuffer heap = HeapBuffer.cast(table.buffer(slot), slotName);
        long slotLength = heap.checkRange(slotName, table.offset(slot), table.length(slot));
        MemorySegment memory = heap.rootMemory(slotName);
        long length = Ranges.resolve(what + " (slot " + slot + ")", ref.offset(), ref.length(), slotLength);
        targets[k] = memory;
        targetOffsets[k] = heap.byteOffset() + table.offset(slot) + ref.offset();
        return length;
    }

    private static long chunks(long bytes) {
        return (bytes + TRANSFER_CHUNK - 1) / TRANSFER_CHUNK;
    }

    /**
     * Runs tiles {@code [from, to)} of the prepared region {@code r} on {@code worker}.
     *
     * @throws StatusException a kernel's failure, annotated with the function and workgroup
     */
    public void runTiles(int r, long from, long to, WorkgroupScratch worker) {
        int start = regionStart(r);
        int k = start;
        while (tileEnd[k] <= from) {
            k++;
        }
        long t = from;
        while (t < to) {
            long commandStart = k == start ? 0 : tileEnd[k - 1];
            long commandEnd = Math.min(tileEnd[k], to);
            runCommandTiles(k, t - commandStart, commandEnd - commandStart, worker);
            t = commandEnd;
            k++;
        }
    }

    private void runCommandTiles(int k, long from, long to, WorkgroupScratch worker) {
        switch (command(k)) {
            case RecordedCommand.Dispatch d -> {
                DispatchState state = states[k];
                KernelFunction function = functions[k];
                Kernel kernel = function.kernel();
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
                        throw DispatchRunner.kernelFailure(e, function.info().name(), x, y, z);
                    }
                }
            }
            case RecordedCommand.Fill f -> fillTiles(targets[k], targetOffsets[k], targetLengths[k], from, to,
                    f.pattern(), f.patternLength());
            case RecordedCommand.Copy c -> {
                MemorySegment source = sources[k];
                MemorySegment target = targets[k];
                for (long tile = from; tile < to; tile++) {
                    long offset = tile * TRANSFER_CHUNK;
                    MemorySegment.copy(source, offset, target, offset,
                            Math.min(TRANSFER_CHUNK, source.byteSize() - offset));
                }
            }
            case RecordedCommand.Update u -> MemorySegment.copy(MemorySegment.ofArray(u.data()), 0, targets[k], 0,
                    u.data().length);
            default -> { } // no tiles
        }
    }

    /** Fill tiles {@code [from, to)} of {@code total} bytes from {@code start} of root {@code memory}; no slice. */
    private static void fillTiles(MemorySegment memory, long start, long total, long from, long to, int pattern,
            int patternLength) {
        for (long tile = from; tile < to; tile++) {
            long offset = tile * TRANSFER_CHUNK;
            Ranges.fill(memory, start + offset, Math.min(TRANSFER_CHUNK, total - offset), pattern, patternLength);
        }
    }

    /**
     * Runs a direct fill of {@code length} bytes (resolved) at {@code offset} of {@code target},
     * checked by {@link LocalCommands#fillLength}, to its end on the calling thread: what
     * {@link #runAll} does for a submission of just that fill, with the same checks and
     * messages, but with no command, engine or segment (local-sync's queue fill).
     *
     * @throws StatusException FAILED_PRECONDITION if the target has no memory (deallocated, or
     *     not committed)
     */
    public static void runFill(HeapBuffer target, long offset, long length, int pattern, int patternLength) {
        MemorySegment memory;
        try {
            memory = target.rootMemory("fill target");
        } catch (StatusException e) {
            throw e.annotate("while preparing command 0 of the submission");
        }
        fillTiles(memory, target.byteOffset() + offset, length, 0, chunks(length), pattern, patternLength);
    }

    /**
     * Runs the loaded submission to its end on the calling thread (one worker): each region is
     * prepared, then all its tiles run, in order. The first failure stops it and is thrown.
     */
    public void runAll() {
        if (ownScratch == null) {
            ownScratch = new WorkgroupScratch(0);
        }
        int regions = regionCount();
        for (int r = 0; r < regions; r++) {
            long tiles = prepare(r);
            if (tiles > 0) {
                runTiles(r, 0, tiles, ownScratch);
            }
        }
    }

    // ---- binding tables at submission ----------------------------------------------------------

    /**
     * The checks of a binding table a submission can make before its waits are reached (so
     * transient buffers whose alloca has not executed yet pass): slot count, empty slots, buffer
     * kind and ranges. Allocation-free when everything is valid (runs on every submission).
     *
     * @throws StatusException OUT_OF_RANGE if the table has fewer slots than the highest used
     *     slot needs, or a slot's range exceeds its buffer; INVALID_ARGUMENT for an empty slot or
     *     a buffer not allocated by a local CPU device
     */
    public static void checkSlots(BindingTable table, BitSet used) {
        if (used.isEmpty()) {
            return;
        }
        int required = used.length();
        if (table == null || table.size() < required) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "binding table has "
                    + (table == null ? 0 : table.size()) + " slots but the command buffer uses slot " + (required - 1));
        }
        for (int slot = used.nextSetBit(0); slot >= 0; slot = used.nextSetBit(slot + 1)) {
            if (table.buffer(slot) instanceof HeapBuffer heap
                    && Ranges.fits(table.offset(slot), table.length(slot), heap.byteLength())) {
                continue; // valid: no message to build
            }
            String what = "binding table slot " + slot;
            if (table.buffer(slot) == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " is empty but the command buffer uses it");
            }
            HeapBuffer.cast(table.buffer(slot), what).checkRange(what, table.offset(slot), table.length(slot));
        }
    }

    /**
     * {@link #checkSlots}, and that every used slot's buffer has memory now.
     *
     * @throws StatusException as {@link #checkSlots}; FAILED_PRECONDITION for a slot whose buffer's
     *     memory is not committed or was given up
     */
    public static void checkSlotsCommitted(BindingTable table, BitSet used) {
        checkSlots(table, used);
        for (int slot = used.nextSetBit(0); slot >= 0; slot = used.nextSetBit(slot + 1)) {
            if (!(table.buffer(slot) instanceof HeapBuffer heap) || !heap.isCommitted() || heap.isDecommitted()) {
                String what = "binding table slot " + slot;
                HeapBuffer.cast(table.buffer(slot), what).range(what, table.offset(slot), table.length(slot));
            }
        }
    }
}
