package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.cpu.internal.heap.HeapBuffer;
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
 * allocates no recording state. The commands are immutable; the only mutable part is a cache of
 * {@link DispatchState}s for dispatches whose every buffer is a direct reference to a retained,
 * non-transient buffer (their memory cannot change between submissions). Thread-safe: cache
 * entries are immutable objects with final fields, so a racy publication is benign.
 */
public final class BlockProgram {
    private final Command[] commands;
    private final int[] regionStarts;
    private final BitSet usedSlots;
    private final boolean[] cacheable;
    private final DispatchState[] cachedStates;

    private BlockProgram(Command[] commands, int[] regionStarts, BitSet usedSlots, boolean retained) {
        this.commands = commands;
        this.regionStarts = regionStarts;
        this.usedSlots = usedSlots;
        this.cacheable = new boolean[commands.length];
        this.cachedStates = new DispatchState[commands.length];
        for (int k = 0; k < commands.length; k++) {
            cacheable[k] = retained && commands[k] instanceof Command.Dispatch d && isStatic(d);
        }
    }

    private static boolean isStatic(Command.Dispatch dispatch) {
        if (dispatch.countRef() != null) {
            return false;
        }
        for (BufferRef ref : dispatch.bindings()) {
            if (ref.isIndirect()) {
                return false;
            }
            Buffer root = ref.buffer().allocatedBuffer();
            if (!(root instanceof HeapBuffer heap) || heap.isQueueAllocated()) {
                return false;
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

    /** The cached dispatch state of command {@code index}, or null if none is cached. */
    public DispatchState cachedState(int index) {
        return cachedStates[index];
    }

    /** Caches {@code state} for command {@code index} if that dispatch's memory can never change. */
    public void cacheState(int index, DispatchState state) {
        if (cacheable[index]) {
            cachedStates[index] = state;
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
