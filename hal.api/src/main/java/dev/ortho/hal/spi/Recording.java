package dev.ortho.hal.spi;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Resource;
import java.util.List;

/**
 * What a {@link CommandRecorder} produced between {@code begin} and {@code end}: the command
 * buffer's creation arguments, its commands in order, the number of binding-table slots they use
 * ({@link #bindingCount()}: one past the highest slot, IREE's {@code binding_count}) and the
 * resources the recorder retained for them. Immutable; safe to share between threads.
 *
 * <p>Equality compares the arguments and the commands (not the retained list, which follows from
 * them), so a recording that went through a codec compares equal to the original.
 */
public final class Recording {
    private final int mode;
    private final int categories;
    private final int bindingCapacity;
    private final int bindingCount;
    private final List<RecordedCommand> commands;
    private final List<Resource> retained;

    /**
     * @throws StatusException OUT_OF_RANGE if {@code bindingCount} is negative or exceeds
     *     {@code bindingCapacity} (a recorder never builds one)
     */
    public Recording(int mode, int categories, int bindingCapacity, int bindingCount,
            List<RecordedCommand> commands, List<Resource> retained) {
        this(mode, categories, bindingCapacity, checkCount(bindingCount, bindingCapacity), List.copyOf(commands),
                List.copyOf(retained), true);
    }

    /** {@code commands} and {@code retained} are kept as given: immutable, or views no one changes. */
    private Recording(int mode, int categories, int bindingCapacity, int bindingCount,
            List<RecordedCommand> commands, List<Resource> retained, boolean kept) {
        this.mode = mode;
        this.categories = categories;
        this.bindingCapacity = bindingCapacity;
        this.bindingCount = bindingCount;
        this.commands = commands;
        this.retained = retained;
    }

    private static int checkCount(int bindingCount, int bindingCapacity) {
        if (bindingCount < 0 || bindingCount > Math.max(bindingCapacity, 0)) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "recording binding count " + bindingCount
                    + " is outside [0, " + bindingCapacity + "] (the binding capacity)");
        }
        return bindingCount;
    }

    /**
     * A recorder's recording, without copying: {@code commands} and {@code retained} are
     * unmodifiable views of lists the recorder no longer changes (it is ENDED), and the count is
     * in range.
     */
    static Recording of(int mode, int categories, int bindingCapacity, int bindingCount,
            List<RecordedCommand> commands, List<Resource> retained) {
        return new Recording(mode, categories, bindingCapacity, bindingCount, commands, retained, true);
    }

    /** {@link CommandBufferMode} bits. */
    public int mode() {
        return mode;
    }

    /** Allowed {@link CommandCategory} bits. */
    public int categories() {
        return categories;
    }

    /** Binding-table slots the command buffer was created with. */
    public int bindingCapacity() {
        return bindingCapacity;
    }

    /** Slots the commands use: a submission's binding table needs at least this many. */
    public int bindingCount() {
        return bindingCount;
    }

    /** The commands in recorded order (immutable). */
    public List<RecordedCommand> commands() {
        return commands;
    }

    /** Resources retained for the commands, released with the command buffer (immutable). */
    public List<Resource> retained() {
        return retained;
    }

    /** Records every command into {@code target}, which must be recording (it is not begun or ended here). */
    public void replay(CommandBuffer target) {
        for (RecordedCommand command : commands) {
            command.replay(target);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Recording r && mode == r.mode && categories == r.categories
                && bindingCapacity == r.bindingCapacity && bindingCount == r.bindingCount
                && commands.equals(r.commands);
    }

    @Override
    public int hashCode() {
        return ((mode * 31 + categories) * 31 + bindingCapacity) * 31 + commands.hashCode();
    }

    @Override
    public String toString() {
        return "recording (" + CommandBufferMode.format(mode) + ", " + CommandCategory.format(categories)
                + ", capacity " + bindingCapacity + ", " + bindingCount + " slots used, " + commands.size()
                + " commands)";
    }
}
