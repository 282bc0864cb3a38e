package dev.ortho.hal.cpu.internal.command;

import java.util.BitSet;
import java.util.List;

/**
 * Test-only entry point into the package-private {@link BlockProgram#of} for the stress module
 * (same package on the class path; nothing in the driver is widened for it).
 */
public final class StressPrograms {
    private StressPrograms() {
    }

    /** {@code first} and {@code second} in two regions separated by a barrier. */
    public static BlockProgram twoRegions(Command first, Command second) {
        return BlockProgram.of(List.of(first, second), List.of(1), new BitSet(), false);
    }
}
