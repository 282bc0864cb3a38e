package dev.ortho.vm.asm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The instruction set the assembler and disassembler know: IREE's core opcodes plus the opcode
 * sets of the given extensions, indexed by mnemonic and by (prefix, opcode). Immutable.
 */
final class OpTable {

    /**
     * One instruction.
     *
     * @param prefix the extension prefix byte, or -1 for a core op
     * @param feature the {@code FeatureBits} the op requires (0 for core ops)
     */
    record Op(int prefix, int feature, OpDescriptor desc) {
        String symbol() {
            return desc.symbol();
        }
    }

    private final Map<String, Op> byMnemonic = new HashMap<>();
    private final Op[] core = new Op[256];
    private final Op[][] extensions = new Op[256][];

    OpTable(List<InstructionExtension> exts) {
        for (OpDescriptor d : CoreOps.DESCRIPTORS) {
            add(new Op(-1, 0, d));
        }
        for (InstructionExtension ext : exts) {
            int prefix = ext.prefix();
            if (prefix < 0xE0 || prefix > 0xFF) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "instruction extension '"
                        + ext.name() + "' prefix 0x" + Integer.toHexString(prefix) + " outside 0xE0-0xFF");
            }
            if (extensions[prefix] != null) {
                throw new StatusException(StatusCode.ALREADY_EXISTS, "instruction extension '" + ext.name()
                        + "' prefix 0x" + Integer.toHexString(prefix).toUpperCase() + " registered twice");
            }
            extensions[prefix] = new Op[256];
            for (OpDescriptor d : ext.ops()) {
                add(new Op(prefix, ext.feature(), d));
            }
        }
    }

    private void add(Op op) {
        Op[] table = op.prefix < 0 ? core : extensions[op.prefix];
        int opcode = op.desc.opcode();
        if (opcode < 0 || opcode > 0xFF || table[opcode] != null) {
            throw new StatusException(StatusCode.ALREADY_EXISTS, "opcode 0x" + Integer.toHexString(opcode)
                    + " of '" + op.desc.mnemonic() + "' is invalid or defined twice");
        }
        if (byMnemonic.putIfAbsent(op.desc.mnemonic(), op) != null) {
            throw new StatusException(StatusCode.ALREADY_EXISTS,
                    "mnemonic '" + op.desc.mnemonic() + "' defined twice");
        }
        table[opcode] = op;
    }

    /** The op named {@code mnemonic} (without {@code vm.}), or null. */
    Op byMnemonic(String mnemonic) {
        return byMnemonic.get(mnemonic);
    }

    /** The core op with {@code opcode}, or null (block markers and prefixes have no descriptor). */
    Op core(int opcode) {
        return core[opcode & 0xFF];
    }

    /** True when an extension with {@code prefix} is known. */
    boolean hasPrefix(int prefix) {
        return extensions[prefix & 0xFF] != null;
    }

    /** The op {@code opcode} of the extension selected by {@code prefix}, or null. */
    Op extension(int prefix, int opcode) {
        Op[] table = extensions[prefix & 0xFF];
        return table == null ? null : table[opcode & 0xFF];
    }
}
