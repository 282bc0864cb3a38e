package dev.ortho.hal.cpu.internal.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ortho.hal.BufferRef;
import dev.ortho.hal.spi.RecordedCommand;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Regions of a recording: barriers and events split, other commands without tiles ride along. */
class BlockProgramTest {
    private static RecordedCommand fill(int slot) {
        return new RecordedCommand.Fill(BufferRef.slot(slot, 0, 4), 1, 4, 0);
    }

    private static RecordedCommand barrier() {
        return new RecordedCommand.Barrier(0, 0, 0, List.of(), List.of());
    }

    @Test
    void barriersAndEventsEndRegionsAndEmptyRegionsAreDropped() {
        List<RecordedCommand> commands = List.of(
                new RecordedCommand.BeginDebugGroup("g"), // 0: before any command that runs
                fill(0), // 1: region 0
                new RecordedCommand.Advise(BufferRef.slot(7, 0, 4), 0, 0, 0), // 2: no tiles, no slot used
                fill(1), // 3: region 0
                barrier(), // 4
                barrier(), // 5: adjacent barrier, empty region dropped
                new RecordedCommand.EndDebugGroup(), // 6: a region of no command that runs is dropped
                new RecordedCommand.ResetEvent(null, 0), // 7
                fill(2), // 8: region 1
                new RecordedCommand.SignalEvent(null, 0), // 9
                fill(0), // 10: region 2
                new RecordedCommand.EndDebugGroup()); // 11: after the last command that runs
        BlockProgram program = BlockProgram.of(commands, true);
        assertEquals(3, program.regionCount());
        assertEquals(1, program.regionStart(0));
        assertEquals(8, program.regionEnd(0), "region 0 reaches to region 1's first command");
        assertEquals(8, program.regionStart(1));
        assertEquals(10, program.regionStart(2));
        assertEquals(11, program.regionEnd(2), "the last region ends after its last command that runs");
        BitSet slots = new BitSet();
        slots.set(0, 3);
        assertEquals(slots, program.usedSlots(), "advice resolves no slot");
        for (int k = 0; k < commands.size(); k++) {
            assertSame(commands.get(k), program.command(k), "the program runs the recorded commands, not copies");
            assertFalse(program.cachesDispatch(k));
        }
    }

    @Test
    void aRecordingWithoutCommandsThatRunHasNoRegions() {
        BlockProgram program = BlockProgram.of(List.of(barrier(), new RecordedCommand.BeginDebugGroup("g"),
                new RecordedCommand.EndDebugGroup()), true);
        assertEquals(0, program.regionCount());
        assertEquals(0, program.usedSlots().cardinality());
    }
}
