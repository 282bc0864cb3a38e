package dev.ortho.vm.spi;

import java.util.List;

/**
 * An instruction of an opcode set: what the assembler parses, the disassembler prints and the
 * verifier checks. Immutable.
 *
 * @param opcode the byte after the prefix (or the core opcode byte)
 * @param mnemonic the VMASM mnemonic without the {@code vm.} prefix ({@code add.f32})
 * @param symbol IREE's symbolic name ({@code AddF32})
 * @param operands fields in encoding order
 */
public record OpDescriptor(int opcode, String mnemonic, String symbol, List<OperandSpec> operands) {
    public OpDescriptor {
        operands = List.copyOf(operands);
    }
}
