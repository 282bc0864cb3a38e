package dev.ortho.vm.asm;

import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.ValueLayout;
import java.util.List;

/** Shared fixtures of the VMASM tests. */
final class AsmTesting {
    static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());
    static final Assembler ASSEMBLER = new Assembler(EXTENSIONS);
    static final Disassembler DISASSEMBLER = new Disassembler(EXTENSIONS);

    private AsmTesting() {
    }

    static ModuleDef assemble(String source) {
        return ASSEMBLER.assemble(source, "t.vmasm");
    }

    /** The bytecode of function {@code ordinal} as upper-case hex bytes separated by spaces. */
    static String hex(ModuleDef def, int ordinal) {
        FunctionDescriptor d = def.functions().get(ordinal);
        byte[] bytes = def.bytecode().asSlice(d.bytecodeOffset(), d.bytecodeLength()).toArray(ValueLayout.JAVA_BYTE);
        StringBuilder b = new StringBuilder();
        for (byte x : bytes) {
            if (!b.isEmpty()) {
                b.append(' ');
            }
            b.append(String.format("%02X", x & 0xFF));
        }
        return b.toString();
    }
}
