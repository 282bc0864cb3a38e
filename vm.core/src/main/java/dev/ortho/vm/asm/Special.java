package dev.ortho.vm.asm;

import dev.ortho.vm.spi.OperandSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The text of each instruction as IREE's disassembler prints it: a generic
 * {@code results = vm.mnemonic operands} form plus the dedicated forms of constants, globals,
 * stores, selects, switches, lists, casts, calls, branch tables and traces (which the assembler
 * reads back). Stateless.
 */
final class Special {
    private Special() {
    }

    static void print(InstructionPrinter p, OpTable.Op op, StringBuilder b) {
        String symbol = op.symbol();
        String mnemonic = "vm." + op.desc().mnemonic();
        List<OperandSpec> f = op.desc().operands();
        switch (symbol) {
            case "ConstI32" -> {
                int value = p.rawU32();
                String result = p.reg(f.get(1));
                b.append(result).append(" = ").append(mnemonic).append(' ').append(value)
                        .append(String.format(Locale.ROOT, "  // 0x%08X", value));
                return;
            }
            case "ConstI64" -> {
                long value = p.rawU64();
                String result = p.reg(f.get(1));
                b.append(result).append(" = ").append(mnemonic).append(' ').append(value)
                        .append(String.format(Locale.ROOT, "  // 0x%016X", value));
                return;
            }
            case "ConstRefRodata" -> {
                int ordinal = p.rawU32();
                String result = p.reg(f.get(1));
                int length = p.rodataLength(ordinal);
                b.append(result).append(" = ").append(mnemonic).append(' ').append(Integer.toUnsignedString(ordinal))
                        .append("  // ").append(length).append('b');
                return;
            }
            case "Call", "CallVariadic" -> {
                String callee = p.function();
                String segments = symbol.equals("CallVariadic") ? " segments[" + p.u16List() + "]" : "";
                String args = p.regList("any");
                String results = p.regList("any");
                if (!results.isEmpty()) {
                    b.append(results).append(" = ");
                }
                b.append(mnemonic).append(' ').append(callee).append(segments).append('(').append(args).append(')');
                return;
            }
            case "CallYieldable", "CallVariadicYieldable" -> {
                String callee = p.function();
                String segments = symbol.equals("CallVariadicYieldable") ? " segments[" + p.u16List() + "]" : "";
                String args = p.regList("any");
                String target = p.blockRef(p.rawU32());
                String results = p.regList("any");
                b.append(mnemonic).append(' ').append(callee).append(segments).append('(').append(args)
                        .append(") -> ").append(target).append('(').append(results).append(')');
                return;
            }
            case "BranchTable" -> {
                b.append(mnemonic).append(' ').append(p.reg(f.get(0))).append(" { default: ").append(p.branch());
                int count = p.rawU16();
                for (int i = 0; i < count; i++) {
                    b.append(", ").append(i).append(": ").append(p.branch());
                }
                b.append(" }");
                return;
            }
            case "ListAlloc" -> {
                String type = p.typeName();
                String capacity = p.reg(f.get(1));
                b.append(p.reg(f.get(2))).append(" = ").append(mnemonic).append(' ').append(capacity)
                        .append(" : !vm.list<").append(type).append('>');
                return;
            }
            case "CastAnyRef" -> {
                String operand = p.reg(f.get(0));
                String type = p.typeName();
                b.append(p.reg(f.get(2))).append(" = ").append(mnemonic).append(' ').append(operand)
                        .append(" : !vm.ref<?> -> ").append(type);
                return;
            }
            case "Trace", "Print" -> {
                String name = p.string();
                b.append(mnemonic).append(" \"").append(name).append("\"(").append(p.regList("any")).append(')');
                return;
            }
            case "ConstRefZero" -> {
                // IREE prints this result without its move bit (the text cannot carry one here).
                b.append(InstructionPrinter.regName(p.rawU16(), "ref", false)).append(" = ").append(mnemonic);
                return;
            }
            case "DiscardRefs" -> {
                b.append(mnemonic).append(' ').append(p.regList("any"));
                return;
            }
            default -> {
            }
        }
        if (symbol.startsWith("Select")) {
            boolean ref = f.size() == 5;
            String condition = p.reg(f.get(0));
            String type = ref ? p.typeName() : null;
            String t = p.reg(f.get(ref ? 2 : 1));
            String fv = p.reg(f.get(ref ? 3 : 2));
            b.append(p.reg(f.get(f.size() - 1))).append(" = ").append(mnemonic).append(' ').append(condition)
                    .append(" ? ").append(t).append(" : ").append(fv);
            if (ref) {
                b.append(" -> ").append(type);
            }
        } else if (symbol.startsWith("Switch")) {
            boolean ref = f.size() == 5;
            String index = p.reg(f.get(0));
            String type = ref ? p.typeName() : null;
            String defaultValue = p.reg(f.get(ref ? 2 : 1));
            String values = p.regList("any");
            b.append(p.reg(f.get(f.size() - 1))).append(" = ").append(mnemonic).append(' ').append(index)
                    .append('[').append(values).append("] else ").append(defaultValue);
            if (ref) {
                b.append(" : ").append(type);
            }
        } else if (symbol.startsWith("BufferStore")) {
            String buffer = p.reg(f.get(0));
            String offset = p.reg(f.get(1));
            String value = p.reg(f.get(2));
            b.append(mnemonic).append(' ').append(value).append(", ").append(buffer).append(", ").append(offset);
        } else if (symbol.startsWith("GlobalLoadIndirect") || symbol.startsWith("GlobalStoreIndirect")) {
            boolean ref = f.size() == 3;
            String offset = p.reg(f.get(0));
            String type = ref ? " : " + p.typeName() : "";
            String value = p.reg(f.get(f.size() - 1));
            String slot = (ref ? ".refs[" : ".rwdata[") + offset + "]";
            if (symbol.startsWith("GlobalStore")) {
                b.append(mnemonic).append(' ').append(value).append(", ").append(slot).append(type);
            } else {
                b.append(value).append(" = ").append(mnemonic).append(' ').append(slot).append(type);
            }
        } else {
            List<String> results = new ArrayList<>();
            List<String> operands = new ArrayList<>();
            p.generic(f, results, operands);
            boolean store = symbol.startsWith("GlobalStore");
            if (store && operands.size() == 2) {
                // Stores print the value first: vm.global.store.i32 %i0, .rwdata[4]
                operands = InstructionPrinter.list(operands.get(1), operands.get(0));
            }
            if (!results.isEmpty()) {
                b.append(InstructionPrinter.join(results)).append(" = ");
            }
            b.append(mnemonic);
            if (!operands.isEmpty()) {
                b.append(' ').append(InstructionPrinter.join(operands));
            }
        }
    }
}
