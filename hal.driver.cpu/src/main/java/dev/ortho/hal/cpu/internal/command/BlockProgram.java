package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.spi.Recording;
import java.util.BitSet;
import java.util.List;

/**
 * The execution form of a finished command buffer: its {@link Recording}'s commands, not copied,
 * divided into <em>regions</em> (IREE's block/region structure). Barriers and events end a
 * region: a region's commands have no ordering among themselves and their tiles may run
 * concurrently; region {@code r + 1} starts only after every tile of region {@code r} retired.
 * A region starts at a command the engine runs (a fill, update, copy or dispatch) and reaches
 * to the next region's start (the last region: one past its last such command); the barriers,
 * events, debug groups and advice inside it have no tiles. Regions without a command that runs
 * (adjacent barriers) are dropped.
 *
 * <p>Built once per command buffer, at its first submission; shared by every submission, so
 * executing it allocates no recording state. The commands are immutable; the only mutable part
 * is one cache slot per dispatch with a direct workgroup count, owned by the executing device: it
 * holds an immutable entry (the last {@link DispatchState} built for the dispatch and what it was
 * built from) that the device revalidates against each submission's buffers before reusing it.
 * Dispatches with direct buffers get a slot only if the command buffer retains its buffers; a
 * program without such dispatches has no cache arrays. Thread-safe: entries must be immutable
 * objects with final fields, so a racy publication is benign (a lost update only costs a rebuild).
 */
public final class BlockProgram {
    private final List<RecordedCommand> commands;
    private final int[] regionStarts;
    private final BitSet usedSlots;
    /** Per command: whether its dispatch state may be cached; null when no command may. */
    private final boolean[] cacheable;
    private final Object[] dispatchCache;

    private BlockProgram(List<RecordedCommand> commands, int[] regionStarts, BitSet usedSlots, boolean retained) {
        this.commands = commands;
        this.regionStarts = regionStarts;
        this.usedSlots = usedSlots;
        boolean[] caches = null;
        for (int k = 0; k < commands.size(); k++) {
            if (commands.get(k) instanceof RecordedCommand.Dispatch d && isCacheable(d, retained)) {
                if (caches == null) {
                    caches = new boolean[commands.size()];
                }
                caches[k] = true;
            }
        }
        this.cacheable = caches;
        this.dispatchCache = caches == null ? null : new Object[commands.size()];
    }

    private static boolean isCacheable(RecordedCommand.Dispatch dispatch, boolean retained) {
        if (LocalCommands.countRef(dispatch) != null) {
            return false; // the count is read from memory at every submission
        }
        List<BufferRef> bindings = dispatch.bindings();
        for (int i = 0; i < bindings.size(); i++) {
            if (!bindings.get(i).isIndirect() && !retained) {
                return false; // an unretained buffer may be gone by the next submission
            }
        }
        return true;
    }

    /**
     * The program of {@code recording}'s commands (checked by the local command buffer when they
     * were recorded); {@code retained} tells whether the command buffer retains its buffers.
     */
    public static BlockProgram of(Recording recording, boolean retained) {
        return of(recording.commands(), retained);
    }

    /** The program of {@code commands}, split into regions at barriers and events. */
    static BlockProgram of(List<RecordedCommand> commands, boolean retained) {
        BitSet used = new BitSet();
        int regions = 0;
        boolean open = false; // the current region has a command that runs
        for (int k = 0; k < commands.size(); k++) {
            RecordedCommand command = commands.get(k);
            if (LocalCommands.endsRegion(command)) {
                open = false;
            } else if (LocalCommands.runs(command)) {
                LocalCommands.forEachRunRef(command, ref -> {
                    if (ref.isIndirect()) {
                        used.set(ref.bufferSlot());
                    }
                });
                if (!open) {
                    regions++;
                    open = true;
                }
            }
        }
        int[] starts = new int[regions + 1];
        int region = -1;
        open = false;
        for (int k = 0; k < commands.size(); k++) {
            RecordedCommand command = commands.get(k);
            if (LocalCommands.endsRegion(command)) {
                open = false;
            } else if (LocalCommands.runs(command)) {
                if (!open) {
                    starts[++region] = k;
                    open = true;
                }
                starts[region + 1] = k + 1; // one past the last command that runs
            }
        }
        return new BlockProgram(commands, starts, used, retained);
    }

    /** Whether command {@code index} is a dispatch whose state may be cached across submissions. */
    public boolean cachesDispatch(int index) {
        return cacheable != null && cacheable[index];
    }

    /** The device's cache entry for dispatch {@code index}, or null. */
    public Object dispatchCache(int index) {
        return dispatchCache == null ? null : dispatchCache[index];
    }

    /**
     * Replaces the cache entry of dispatch {@code index} (ignored unless
     * {@link #cachesDispatch}); {@code entry} must be immutable with final fields.
     */
    public void setDispatchCache(int index, Object entry) {
        if (cachesDispatch(index)) {
            dispatchCache[index] = entry;
        }
    }

    /** Number of commands (of the recording, including those without tiles). */
    public int commandCount() {
        return commands.size();
    }

    /** Command {@code index} of the recording. */
    public RecordedCommand command(int index) {
        return commands.get(index);
    }

    /** Number of non-empty regions. */
    public int regionCount() {
        return regionStarts.length - 1;
    }

    /** Index of the first command of region {@code region}. */
    public int regionStart(int region) {
        return regionStarts[region];
    }

    /** One past the last command of region {@code region}. */
    public int regionEnd(int region) {
        return regionStarts[region + 1];
    }

    /** The binding-table slots the commands use (do not modify). */
    public BitSet usedSlots() {
        return usedSlots;
    }
}
