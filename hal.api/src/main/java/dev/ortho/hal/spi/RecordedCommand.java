package dev.ortho.hal.spi;

import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * One command of a {@link Recording}, with its operands as {@link CommandBuffer} received them
 * (captured: update data and dispatch constants are copies, lists are immutable). Records compare
 * by value, so two recordings of the same calls are equal.
 *
 * <p>{@link #category()} is the {@link CommandCategory} IREE requires for the command (0 for
 * barriers and debug groups, which any command buffer may record); {@link #replay} records the
 * command into another command buffer, which is how a server rebuilds a client's recording.
 */
public sealed interface RecordedCommand {

    /** The {@link CommandBuffer} method that records this command, for messages. */
    String call();

    /** The category IREE requires ({@code iree_hal_command_buffer_validate_categories}), or 0. */
    int category();

    /** Calls {@code visitor} with every buffer reference the command holds, named as an argument. */
    void forEachRef(RefVisitor visitor);

    /** Records this command into {@code target}, which must be recording. */
    void replay(CommandBuffer target);

    /** Receives a command's buffer references. */
    @FunctionalInterface
    interface RefVisitor {
        /**
         * @param argument the argument's name ({@code target}, {@code bindings}, …)
         * @param index the element of a list argument ({@code bindings[index]}), or -1
         */
        void visit(String argument, int index, BufferRef ref);

        /** {@code argument} or {@code argument[index]}, for messages (built only when one fails). */
        static String name(String argument, int index) {
            return index < 0 ? argument : argument + "[" + index + "]";
        }
    }

    /** {@link CommandBuffer#beginDebugGroup}. */
    record BeginDebugGroup(String label) implements RecordedCommand {
        public String call() { return "beginDebugGroup"; }
        public int category() { return 0; }
        public void forEachRef(RefVisitor visitor) {}
        public void replay(CommandBuffer target) { target.beginDebugGroup(label); }
    }

    /** {@link CommandBuffer#endDebugGroup}. */
    record EndDebugGroup() implements RecordedCommand {
        public String call() { return "endDebugGroup"; }
        public int category() { return 0; }
        public void forEachRef(RefVisitor visitor) {}
        public void replay(CommandBuffer target) { target.endDebugGroup(); }
    }

    /** {@link CommandBuffer#executionBarrier(int, int, int, MemoryBarrier[], BufferBarrier[])}. */
    record Barrier(int sourceStages, int targetStages, int flags, List<MemoryBarrier> memoryBarriers,
            List<BufferBarrier> bufferBarriers) implements RecordedCommand {
        public Barrier {
            memoryBarriers = List.copyOf(memoryBarriers);
            bufferBarriers = List.copyOf(bufferBarriers);
        }
        public String call() { return "executionBarrier"; }
        public int category() { return 0; }
        public void forEachRef(RefVisitor visitor) { bufferRefs(bufferBarriers, visitor); }
        public void replay(CommandBuffer target) {
            target.executionBarrier(sourceStages, targetStages, flags, memoryBarriers.toArray(MemoryBarrier[]::new),
                    bufferBarriers.toArray(BufferBarrier[]::new));
        }
    }

    /** {@link CommandBuffer#signalEvent}. */
    record SignalEvent(Event event, int sourceStages) implements RecordedCommand {
        public String call() { return "signalEvent"; }
        public int category() { return CommandCategory.DISPATCH; }
        public void forEachRef(RefVisitor visitor) {}
        public void replay(CommandBuffer target) { target.signalEvent(event, sourceStages); }
    }

    /** {@link CommandBuffer#resetEvent}. */
    record ResetEvent(Event event, int sourceStages) implements RecordedCommand {
        public String call() { return "resetEvent"; }
        public int category() { return CommandCategory.DISPATCH; }
        public void forEachRef(RefVisitor visitor) {}
        public void replay(CommandBuffer target) { target.resetEvent(event, sourceStages); }
    }

    /** {@link CommandBuffer#waitEvents(Event[], int, int, MemoryBarrier[], BufferBarrier[])}. */
    record WaitEvents(List<Event> events, int sourceStages, int targetStages, List<MemoryBarrier> memoryBarriers,
            List<BufferBarrier> bufferBarriers) implements RecordedCommand {
        public WaitEvents {
            events = List.copyOf(events);
            memoryBarriers = List.copyOf(memoryBarriers);
            bufferBarriers = List.copyOf(bufferBarriers);
        }
        public String call() { return "waitEvents"; }
        public int category() { return CommandCategory.DISPATCH; }
        public void forEachRef(RefVisitor visitor) { bufferRefs(bufferBarriers, visitor); }
        public void replay(CommandBuffer target) {
            target.waitEvents(events.toArray(Event[]::new), sourceStages, targetStages,
                    memoryBarriers.toArray(MemoryBarrier[]::new), bufferBarriers.toArray(BufferBarrier[]::new));
        }
    }

    /** {@link CommandBuffer#adviseBuffer}. */
    record Advise(BufferRef buffer, long flags, long arg0, long arg1) implements RecordedCommand {
        public String call() { return "adviseBuffer"; }
        public int category() { return CommandCategory.TRANSFER; }
        public void forEachRef(RefVisitor visitor) { visitor.visit("buffer", -1, buffer); }
        public void replay(CommandBuffer target) { target.adviseBuffer(buffer, flags, arg0, arg1); }
    }

    /** {@link CommandBuffer#fillBuffer}. */
    record Fill(BufferRef target, int pattern, int patternLength, int flags) implements RecordedCommand {
        public String call() { return "fillBuffer"; }
        public int category() { return CommandCategory.TRANSFER; }
        public void forEachRef(RefVisitor visitor) { visitor.visit("target", -1, target); }
        public void replay(CommandBuffer into) { into.fillBuffer(target, pattern, patternLength, flags); }
    }

    /** {@link CommandBuffer#updateBuffer}; {@code data} is the captured copy (do not modify it). */
    record Update(byte[] data, BufferRef target, int flags) implements RecordedCommand {
        public String call() { return "updateBuffer"; }
        public int category() { return CommandCategory.TRANSFER; }
        public void forEachRef(RefVisitor visitor) { visitor.visit("target", -1, target); }
        public void replay(CommandBuffer into) { into.updateBuffer(MemorySegment.ofArray(data), target, flags); }

        @Override
        public boolean equals(Object o) {
            return o instanceof Update u && Arrays.equals(data, u.data) && target.equals(u.target) && flags == u.flags;
        }

        @Override
        public int hashCode() {
            return (Arrays.hashCode(data) * 31 + target.hashCode()) * 31 + flags;
        }

        @Override
        public String toString() {
            return "Update[" + data.length + " bytes, target=" + target + ", flags=" + flags + "]";
        }
    }

    /** {@link CommandBuffer#copyBuffer}. */
    record Copy(BufferRef source, BufferRef target, int flags) implements RecordedCommand {
        public String call() { return "copyBuffer"; }
        public int category() { return CommandCategory.TRANSFER; }
        public void forEachRef(RefVisitor visitor) {
            visitor.visit("source", -1, source);
            visitor.visit("target", -1, target);
        }
        public void replay(CommandBuffer into) { into.copyBuffer(source, target, flags); }
    }

    /**
     * {@link CommandBuffer#dispatch}; {@code constants} are the captured little-endian bytes (do
     * not modify them).
     */
    record Dispatch(Executable executable, int function, DispatchConfig config, byte[] constants,
            List<BufferRef> bindings, long flags) implements RecordedCommand {
        public Dispatch {
            bindings = List.copyOf(bindings);
        }
        public String call() { return "dispatch"; }
        public int category() { return CommandCategory.DISPATCH; }
        public void forEachRef(RefVisitor visitor) {
            for (int i = 0; i < bindings.size(); i++) {
                visitor.visit("bindings", i, bindings.get(i));
            }
            if (config.workgroupCountRef() != null) {
                visitor.visit("workgroup count", -1, config.workgroupCountRef());
            }
        }
        public void replay(CommandBuffer into) {
            into.dispatch(executable, function, config, MemorySegment.ofArray(constants),
                    bindings.toArray(BufferRef[]::new), flags);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Dispatch d && executable.equals(d.executable) && function == d.function
                    && config.equals(d.config) && Arrays.equals(constants, d.constants)
                    && bindings.equals(d.bindings) && flags == d.flags;
        }

        @Override
        public int hashCode() {
            return ((executable.hashCode() * 31 + function) * 31 + Arrays.hashCode(constants)) * 31
                    + bindings.hashCode();
        }

        @Override
        public String toString() {
            return "Dispatch[" + executable + " function " + function + ", " + config + ", " + constants.length
                    + " constant bytes, bindings=" + bindings + ", flags=" + flags + "]";
        }
    }

    private static void bufferRefs(List<BufferBarrier> barriers, RefVisitor visitor) {
        for (int i = 0; i < barriers.size(); i++) {
            visitor.visit("bufferBarriers", i, barriers.get(i).buffer());
        }
    }
}
