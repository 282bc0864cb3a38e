package dev.ortho.vm.bytecode;

import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;

/** Opcode lookups shared by the verifier and execution tracing. Stateless. */
final class Disassembly {
    private static final OpDescriptor[] CORE = new OpDescriptor[256];

    static {
        for (OpDescriptor d : CoreOps.DESCRIPTORS) {
            CORE[d.opcode()] = d;
        }
    }

    private Disassembly() {
    }

    /** The core op {@code opcode}, or null if reserved. */
    static OpDescriptor core(int opcode) {
        return CORE[opcode & 0xFF];
    }

    /** The extension op {@code opcode} of {@code ext}, or null. */
    static OpDescriptor extension(InstructionExtension ext, int opcode) {
        for (OpDescriptor d : ext.ops()) {
            if (d.opcode() == opcode) {
                return d;
            }
        }
        return null;
    }

    /** {@code vm.add.i32} style name of the instruction with these leading bytes. */
    static String mnemonic(BytecodeModule m, int opcode, int extOpcode) {
        if (opcode == CoreOps.BLOCK) {
            return "<block>"; // the marker that starts each block, as the disassembler prints it
        }
        OpDescriptor d;
        if (opcode >= 0xE0) {
            InstructionExtension ext = m.extensions[opcode - 0xE0];
            d = ext == null ? null : extension(ext, extOpcode);
        } else {
            d = core(opcode);
        }
        return d == null ? String.format("<opcode %02X>", opcode) : "vm." + d.mnemonic();
    }
}
