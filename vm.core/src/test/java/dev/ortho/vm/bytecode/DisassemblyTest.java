package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.vm.internal.isa.CoreOps;
import org.junit.jupiter.api.Test;

/** The names {@code --trace_execution} prints for each instruction. */
class DisassemblyTest {

    @Test
    void theBlockMarkerIsNamedAsTheDisassemblerNamesIt() {
        // every block starts with this marker, so a trace showed '<opcode 79>' at each one
        assertEquals("<block>", Disassembly.mnemonic(null, CoreOps.BLOCK, 0));
    }

    @Test
    void coreOpsAreNamedAndReservedOpcodesShowTheirNumber() {
        assertEquals("vm.add.i32", Disassembly.mnemonic(null, CoreOps.DESCRIPTORS.stream()
                .filter(d -> d.mnemonic().equals("add.i32")).findFirst().orElseThrow().opcode(), 0));
        int reserved = 0;
        while (Disassembly.core(reserved) != null || reserved == CoreOps.BLOCK) {
            reserved++;
        }
        assertEquals(String.format("<opcode %02X>", reserved), Disassembly.mnemonic(null, reserved, 0));
    }
}
