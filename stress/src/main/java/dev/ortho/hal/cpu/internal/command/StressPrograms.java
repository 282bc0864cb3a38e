package dev.ortho.hal.cpu.internal.command;

import dev.ortho.hal.BufferRef;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.spi.RecordedCommand;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Test-only entry point into the package-private {@link BlockProgram#of} for the stress module
 * (same package on the class path; nothing in the driver is widened for it).
 */
public final class StressPrograms {
    private StressPrograms() {
    }

    /**
     * Two dispatches of {@code count} workgroups each, running {@code first} and {@code second},
     * in two regions separated by a barrier.
     */
    public static BlockProgram twoRegions(KernelFunction first, KernelFunction second, int count) {
        KernelExecutable executable = KernelExecutable.of("stress", "stress executable", List.of(first, second),
                null);
        DispatchConfig config = DispatchConfig.ofCount(count, 1, 1);
        RecordedCommand.Dispatch a = LocalCommands.dispatch(executable, 0, config, MemorySegment.NULL,
                new BufferRef[0], 0);
        RecordedCommand.Dispatch b = LocalCommands.dispatch(executable, 1, config, MemorySegment.NULL,
                new BufferRef[0], 0);
        return BlockProgram.of(List.of(a, new RecordedCommand.Barrier(0, 0, 0, List.of(), List.of()), b), false);
    }
}
