package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.kernel.DispatchState;
import java.util.BitSet;
import java.util.List;

/**
 * The execution form of a finished command buffer for the asynchronous CPU device: the checked
 * commands in one array and the boundaries of their <em>regions</em> (IREE's block/region
 * structure). A region is a run of commands between two barriers: its commands have no ordering
 * among themselves and their tiles may run concurrently; region {@code r + 1} starts only after
 * every tile of region {@code r} retired. Empty regions (adjacent barriers) are dropped.
 *
 * <p>Built once by {@link LocalCommandBuffer#end()}; shared by every submission, so executing it
 * allocates no recording state. The commands are immutable; the only mutable part is one cache
 * slot per dispatch with a direct workgroup count, owned by the executing device: it holds an
 * immutable entry (the last {@link DispatchState} built for the dispatch and what it was built
 * from) that the device revalidates against each submission's buffers before reusing it.
 * Dispatches with direct buffers get a slot only if the command buffer retains its buffers.
 * Thread-safe: entries must be immutable objects with final fields, so a racy publication is
 * benign (a lost update only costs a rebuild).
 */
public final class BlockProgram {
    private final Command[] commands;
    private final int[] regionStarts;
    private final BitSet usedSlots;
    private final boolean[] cacheable;
    private final Object[] dispatchCache;

    private BlockProgram(Command[] commands, int[] regionStarts, BitSet usedSlots, boolean retained) {
        this.commands = commands;
        this.regionStarts = regionStarts;
        this.usedSlots = usedSlots;
        this.cacheable = new boolean[commands.length];
        this.dispatchCache = new Object[commands.length];
        for (int k = 0; k < commands.length; k++) {
            cacheable[k] = commands[k] instanceof Command.Dispatch d && isCacheable(d, retained);
        }
    }

    private static boolean isCacheable(Command.Dispatch dispatch, boolean retained) {
        if (dispatch.countRef() != null) {
            return false; // the count is read from memory at every submission
        }
        for (BufferRef ref : dispatch.bindings()) {
            if (!ref.isIndirect() && !retained) {
                return false; // an unretained buffer may be gone by the next submission
            }
        }
        return true;
    }

    /**
     * Splits {@code commands} at {@code barriers} (command indices in recording order, possibly
     * repeated) into regions.
     */
    static BlockProgram of(List<Command> commands, List<Integer> barriers, BitSet usedSlots, boolean retained) {
        int[] starts = new int[barriers.size() + 2];
        int regions = 0;
        int start = 0;
        for (int barrier : barriers) {
            if (barrier > start) {
                starts[regions++] = start;
                start = barrier;
            }
        }
        if (commands.size() > start) {
            starts[regions++] = start;
        }
        starts[regions] = commands.size();
        int[] exact = new int[regions + 1];
        System.arraycopy(starts, 0, exact, 0, regions + 1);
        return new BlockProgram(commands.toArray(new Command[0]), exact, (BitSet) usedSlots.clone(), retained);
    }

    /** A program of one command in one region (queue operations issued without a command buffer). */
    public static BlockProgram single(Command command) {
        return new BlockProgram(new Command[] {command}, new int[] {0, 1}, new BitSet(), false);
    }

    /** Whether command {@code index} is a dispatch whose state may be cached across submissions. */
    public boolean cachesDispatch(int index) {
        return cacheable[index];
    }

    /** The device's cache entry for dispatch {@code index}, or null. */
    public Object dispatchCache(int index) {
        return dispatchCache[index];
    }

    /**
     * Replaces the cache entry of dispatch {@code index} (ignored unless
     * {@link #cachesDispatch}); {@code entry} must be immutable with final fields.
     */
    public void setDispatchCache(int index, Object entry) {
        if (cacheable[index]) {
            dispatchCache[index] = entry;
        }
    }

    /** Number of commands. */
    public int commandCount() {
        return commands.length;
    }

    /** Command {@code index}. */
    public Command command(int index) {
        return commands[index];
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
