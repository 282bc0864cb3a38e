package dev.ortho.vm.asm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.OperandKind;
import dev.ortho.vm.spi.OperandSpec;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Decodes and prints the instructions of one function in the text form of IREE's disassembler.
 * Every read is bounds-checked: malformed bytecode yields a {@link StatusException} annotated
 * {@code at module.func+%08X}, never an unchecked exception. Not thread-safe; one per function.
 */
final class InstructionPrinter {
    private final OpTable ops;
    private final ModuleDef module;
    private final String functionName;
    /** The function's bytecode (a read-only view of the module's; never copied). */
    private final MemorySegment code;
    private final int length;
    private int pc;
    private int start;
    /** Sorted block-marker pcs, or null during the scanning pass. */
    private int[] blocks;
    /** Global storage the decoded instructions address directly (bytes, ref slots). */
    long globalBytesUsed;
    long globalRefsUsed;

    InstructionPrinter(OpTable ops, ModuleDef module, String functionName, MemorySegment code) {
        this.ops = ops;
        this.module = module;
        this.functionName = functionName;
        this.code = code;
        this.length = (int) code.byteSize();
    }

    void blocks(int[] blockPcs) {
        this.blocks = blockPcs;
    }

    int length() {
        return length;
    }

    boolean isBlock(int at) {
        return byteAt(at) == CoreOps.BLOCK;
    }

    StatusException error(StatusCode code, String message) {
        return new StatusException(code, message + " at " + module.name() + "." + functionName
                + "+" + String.format(Locale.ROOT, "%08X", start));
    }

    private void need(int bytes) {
        if (pc + bytes > length) {
            throw error(StatusCode.OUT_OF_RANGE, "instruction runs past the end of the function ("
                    + length + " bytes)");
        }
    }

    private int byteAt(int at) {
        return code.get(ValueLayout.JAVA_BYTE, at) & 0xFF;
    }

    private int u8() {
        need(1);
        return byteAt(pc++);
    }

    private int u16() {
        need(2);
        int v = byteAt(pc) | byteAt(pc + 1) << 8;
        pc += 2;
        return v;
    }

    private int u32() {
        need(4);
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v |= byteAt(pc + i) << (8 * i);
        }
        pc += 4;
        return v;
    }

    private long u64() {
        long lo = u32() & 0xFFFFFFFFL;
        long hi = u32() & 0xFFFFFFFFL;
        return lo | hi << 32;
    }

    private int[] list() {
        pc = (pc + 1) & ~1;
        int count = u16();
        need(2 * count);
        int[] regs = new int[count];
        for (int i = 0; i < count; i++) {
            regs[i] = u16();
        }
        return regs;
    }

    /** Prints the instruction at {@code at} into {@code b}; returns the pc of the next one. */
    int print(int at, StringBuilder b) {
        start = at;
        pc = at;
        int opcode = u8();
        if (opcode == CoreOps.BLOCK) {
            if (blocks == null) {
                b.append("<block>");
            } else {
                b.append(blockRef(at)).append(':');
            }
            return pc;
        }
        OpTable.Op op;
        if (ops.hasPrefix(opcode)) {
            int extOpcode = u8();
            op = ops.extension(opcode, extOpcode);
            if (op == null) {
                throw error(StatusCode.UNIMPLEMENTED, String.format(Locale.ROOT,
                        "unknown extension opcode 0x%02X 0x%02X", opcode, extOpcode));
            }
        } else {
            op = ops.core(opcode);
            if (op == null) {
                throw error(StatusCode.UNIMPLEMENTED, String.format(Locale.ROOT, "unknown opcode 0x%02X", opcode));
            }
        }
        Special.print(this, op, b);
        return pc;
    }

    // ---- field decoding shared by the generic and special printers ----

    String reg(OperandSpec f) {
        return regName(u16(), f.type(), f.moveAllowed());
    }

    static String regName(int reg, String type, boolean moveAllowed) {
        if (type == null || type.equals("any")) {
            if ((reg & FunctionAssembler.REF_TYPE_BIT) != 0) {
                return ((reg & FunctionAssembler.REF_MOVE_BIT) != 0 ? "%R" : "%r") + (reg & 0x3FFF);
            }
            return "%i" + (reg & 0x7FFF);
        }
        return switch (type) {
            case "i64", "f64" -> "%i" + (reg & 0x7FFF) + ":" + ((reg & 0x7FFF) + 1);
            case "ref" -> (moveAllowed && (reg & FunctionAssembler.REF_MOVE_BIT) != 0 ? "%R" : "%r") + (reg & 0x3FFF);
            default -> "%i" + (reg & 0x7FFF);
        };
    }

    String regList(String type) {
        int[] regs = list();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < regs.length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(regName(regs[i], type, true));
        }
        return b.toString();
    }

    String u16List() {
        int[] values = list();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(values[i]);
        }
        return b.toString();
    }

    String remaps() {
        pc = (pc + 1) & ~1;
        int count = u16();
        need(4 * count);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < count; i++) {
            if (i > 0) {
                b.append(", ");
            }
            b.append(regName(u16(), "any", true)).append("->").append(regName(u16(), "any", true));
        }
        return b.toString();
    }

    /** {@code ^bbN(remaps)} for a branch target followed by its operand list. */
    String branch() {
        String target = blockRef(u32());
        return target + "(" + remaps() + ")";
    }

    String blockRef(int target) {
        if (blocks == null) {
            return String.format(Locale.ROOT, "^%08X", target);
        }
        int index = java.util.Arrays.binarySearch(blocks, target);
        if (index < 0) {
            throw error(StatusCode.INVALID_ARGUMENT,
                    String.format(Locale.ROOT, "branch target %08X is not a block", target));
        }
        return "^bb" + index;
    }

    String typeName() {
        int id = u32();
        if (id < 0 || id >= module.types().size()) {
            throw error(StatusCode.OUT_OF_RANGE, "type ordinal " + Integer.toUnsignedString(id)
                    + " outside the module's " + module.types().size() + " types");
        }
        return module.types().get(id);
    }

    String string() {
        int size = u16();
        need(size);
        String s = new String(code.asSlice(pc, size).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        pc += size;
        return s;
    }

    String function() {
        int ordinal = u32();
        if ((ordinal & FunctionAssembler.IMPORT_BIT) != 0) {
            int index = ordinal & ~FunctionAssembler.IMPORT_BIT;
            if (index < module.imports().size() && module.imports().get(index).fullName() != null
                    && !module.imports().get(index).fullName().isEmpty()) {
                return "@" + module.imports().get(index).fullName();
            }
            return "@import:" + index;
        }
        String name = Disassembler.debugName(module, ordinal);
        return name == null ? "@" + module.name() + ":" + Integer.toUnsignedString(ordinal)
                : "@" + module.name() + "." + name;
    }

    int rawU32() {
        return u32();
    }

    long rawU64() {
        return u64();
    }

    int rawU16() {
        return u16();
    }

    String attribute(String type) {
        return switch (type) {
            case "i32" -> Integer.toString(u32());
            case "i64" -> Long.toString(u64());
            case "f32" -> CNumbers.formatG(Float.intBitsToFloat(u32()), 9);
            case "f64" -> CNumbers.formatG(Double.longBitsToDouble(u64()), 17);
            default -> throw error(StatusCode.UNIMPLEMENTED, "immediate of type " + type);
        };
    }

    /** Decodes the fields of {@code fields} generically: write registers into {@code results}. */
    void generic(List<OperandSpec> fields, List<String> results, List<String> operands) {
        int tableSize = 0;
        for (int i = 0; i < fields.size(); i++) {
            OperandSpec f = fields.get(i);
            OperandKind kind = f.kind();
            switch (kind) {
                case REGISTER -> (f.write() ? results : operands).add(reg(f));
                case ATTRIBUTE -> operands.add(attribute(f.type()));
                case GLOBAL_ATTR -> {
                    int size = storageSize(fields, i);
                    long slot = u32() & 0xFFFFFFFFL;
                    if (size == 0) {
                        globalRefsUsed = Math.max(globalRefsUsed, slot + 1);
                    } else {
                        globalBytesUsed = Math.max(globalBytesUsed, slot + size);
                    }
                    operands.add((size == 0 ? ".refs[" : ".rwdata[") + slot + "]");
                }
                case FUNC_ATTR -> operands.add(function());
                case RODATA_ATTR -> operands.add(Integer.toUnsignedString(u32()));
                case TYPE_OF -> {
                    String type = typeName();
                    if (operands.isEmpty()) {
                        operands.add(": " + type);
                    } else {
                        int last = operands.size() - 1;
                        operands.set(last, operands.get(last) + " : " + type);
                    }
                }
                case CONST_I16 -> {
                    tableSize = u16();
                    operands.add(Integer.toString(tableSize));
                }
                case STRING_ATTR -> operands.add("\"" + string() + "\"");
                case VARIADIC_OPERANDS -> {
                    String list = regList(f.type());
                    if (!list.isEmpty()) {
                        operands.add(list);
                    }
                }
                case VARIADIC_RESULTS -> {
                    String list = regList(f.type());
                    if (!list.isEmpty()) {
                        results.add(list);
                    }
                }
                case BRANCH_TARGET -> {
                    if (i + 1 < fields.size() && fields.get(i + 1).kind() == OperandKind.BRANCH_OPERANDS) {
                        operands.add(branch());
                        i++;
                    } else {
                        operands.add(blockRef(u32()));
                    }
                }
                case BRANCH_OPERANDS -> operands.add("(" + remaps() + ")");
                case BRANCH_TABLE_CASES -> {
                    for (int k = 0; k < tableSize; k++) {
                        operands.add(k + ": " + branch());
                    }
                }
            }
        }
    }

    /** Bytes the global operand at {@code from} addresses (0 for a ref global), from the value register. */
    private static int storageSize(List<OperandSpec> fields, int from) {
        for (int i = from + 1; i < fields.size(); i++) {
            if (fields.get(i).kind() == OperandKind.REGISTER) {
                return switch (fields.get(i).type()) {
                    case "ref" -> 0;
                    case "i64", "f64" -> 8;
                    default -> 4;
                };
            }
        }
        return 4;
    }

    int rodataLength(int ordinal) {
        if (ordinal < 0 || ordinal >= module.rodata().size()) {
            throw error(StatusCode.OUT_OF_RANGE, "rodata ordinal " + Integer.toUnsignedString(ordinal)
                    + " outside the module's " + module.rodata().size() + " segments");
        }
        return (int) module.rodata().get(ordinal).data().byteSize();
    }

    static String join(List<String> parts) {
        return String.join(", ", parts);
    }

    static List<String> list(String... items) {
        return new ArrayList<>(List.of(items));
    }
}
