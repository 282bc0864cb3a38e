package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import dev.ortho.vm.spi.OperandSpec;
import java.util.BitSet;
import java.util.List;

/**
 * The single-pass bytecode verifier (IREE's {@code iree_vm_bytecode_function_verify}): every
 * instruction decodes within the function, opcodes exist and their extension is available,
 * register ordinals fit the function's (power-of-two rounded) register counts and banks, 64-bit
 * registers are even, the move bit appears only where the op allows it, ordinals of functions,
 * imports, types, rodata and globals are in range, call register lists match the callee's
 * calling convention, every instruction is inside a block, blocks end with a terminator and
 * every branch target is a block marker. Operand layouts come from the {@link OpDescriptor}
 * tables, so extensions are verified like core ops.
 *
 * <p>Failures are INVALID_ARGUMENT / OUT_OF_RANGE annotated {@code at module.function+PC}
 * (or {@code at module@ordinal+PC} for unnamed functions). Stateless.
 */
final class BytecodeVerifier {
    private BytecodeVerifier() {
    }

    /** Verifies internal function {@code ordinal} of {@code m}. */
    static void verifyFunction(BytecodeModule m, int ordinal) {
        new Pass(m, ordinal).run();
    }

    private static final class Pass {
        final BytecodeModule m;
        final int fn;
        final byte[] c;
        final int base;
        final int length;
        final int i32Count;
        final int refCount;
        final BitSet blocks = new BitSet();
        final BitSet targets = new BitSet();
        int pc;

        Pass(BytecodeModule m, int fn) {
            this.m = m;
            this.fn = fn;
            this.c = m.code;
            this.base = m.fnBase[fn];
            this.length = m.fnLength[fn];
            this.i32Count = m.fnI32[fn];
            this.refCount = m.fnRef[fn];
        }

        void run() {
            int start = 0;
            try {
                verifyArguments();
                boolean inBlock = false;
                while (pc < length - 1) {
                    start = pc;
                    int opcode = u8();
                    if (!inBlock && opcode != CoreOps.BLOCK) {
                        throw invalid(String.format("op at pc %08X is not in a block", start));
                    } else if (inBlock && opcode == CoreOps.BLOCK) {
                        throw invalid(String.format("op at pc %08X is a block while still in a block", start));
                    }
                    if (opcode == CoreOps.BLOCK) {
                        blocks.set(start);
                        inBlock = true;
                        continue;
                    }
                    OpDescriptor d;
                    if (opcode >= 0xE0) {
                        InstructionExtension ext = m.extensions[opcode - 0xE0];
                        if (ext == null) {
                            throw new StatusException(StatusCode.UNIMPLEMENTED, String.format(
                                    "no instruction extension registered for prefix 0x%02X", opcode));
                        }
                        int required = ext.feature();
                        int declared = m.def.requirements() | m.def.functions().get(fn).requirements();
                        if ((declared & required) != required) {
                            throw invalid("op of extension '" + ext.name() + "' requires feature ["
                                    + FeatureBits.format(required) + "] not declared by the function or module");
                        }
                        int extOpcode = u8();
                        d = Disassembly.extension(ext, extOpcode);
                        if (d == null) {
                            throw invalid(String.format("unhandled ext %s opcode %02X", ext.name(), extOpcode));
                        }
                    } else {
                        d = Disassembly.core(opcode);
                        if (d == null) {
                            throw invalid(String.format("unhandled core opcode %02X", opcode));
                        }
                    }
                    if (operands(opcode, d)) {
                        inBlock = false;
                    }
                }
                if (inBlock) {
                    throw invalid("function missing terminator in the last block");
                }
                for (int t = targets.nextSetBit(0); t >= 0; t = targets.nextSetBit(t + 1)) {
                    if (!blocks.get(t)) {
                        start = t;
                        throw invalid(String.format("branch target %08X is not a block marker", t));
                    }
                }
            } catch (StatusException e) {
                String fname = m.internal[fn].name();
                throw e.annotate(fname.isEmpty() ? String.format("at %s@%d+%08X", m.name, fn, start)
                        : String.format("at %s.%s+%08X", m.name, fname, start));
            }
        }

        private void verifyArguments() {
            String types = m.fnCconv[fn].arguments().types();
            int i32 = 0;
            int refs = 0;
            for (int i = 0; i < types.length(); i++) {
                switch (types.charAt(i)) {
                    case 'i', 'f' -> i32++;
                    case 'I', 'F' -> i32 += (i32 & 1) + 2;
                    case 'r' -> refs++;
                    default -> throw invalid("internal functions cannot accept variadic arguments");
                }
            }
            if (i32 > i32Count || refs > refCount) {
                throw invalid("insufficient register storage for function arguments/results (" + i32 + " i32, "
                        + refs + " ref needed; " + i32Count + "/" + refCount + " declared)");
            }
        }

        /** Decodes and checks the operands of {@code d}; returns true if the op is a terminator. */
        private boolean operands(int opcode, OpDescriptor d) {
            List<OperandSpec> ops = d.operands();
            int valueBytes = 4;
            boolean refGlobal = false;
            for (OperandSpec o : ops) {
                if (o.kind() == dev.ortho.vm.spi.OperandKind.REGISTER && o.type() != null) {
                    if (o.type().equals("i64") || o.type().equals("f64")) {
                        valueBytes = 8;
                    }
                    if (o.type().equals("ref")) {
                        refGlobal = true;
                    }
                }
            }
            int funcOrdinal = 0;
            int tableSize = 0;
            int segments = -1;
            int listA = -1;
            int listB = -1;
            for (OperandSpec o : ops) {
                switch (o.kind()) {
                    case REGISTER -> register(u16(), o.type(), o.moveAllowed());
                    case CONST_I16 -> tableSize = u16();
                    case ATTRIBUTE -> skip(o.type() != null && (o.type().equals("i64") || o.type().equals("f64")) ? 8 : 4);
                    case RODATA_ATTR -> {
                        int r = i32();
                        if (Integer.compareUnsigned(r, m.rodata.length) >= 0) {
                            throw outOfRange("rodata ref ordinal out of range: " + Integer.toUnsignedString(r)
                                    + " (table=" + m.rodata.length + ")");
                        }
                    }
                    case FUNC_ATTR -> funcOrdinal = function(i32(), opcode);
                    case GLOBAL_ATTR -> {
                        int g = i32();
                        if (refGlobal) {
                            if (Integer.compareUnsigned(g, m.globalRefCount) >= 0) {
                                throw outOfRange("global ref ordinal out of range: " + Integer.toUnsignedString(g)
                                        + " (table=" + m.globalRefCount + ")");
                            }
                        } else if (g < 0 || (long) g + valueBytes > m.rwdataSize) {
                            throw outOfRange("global byte_offset out of range: " + Integer.toUnsignedString(g)
                                    + " (rwdata=" + m.rwdataSize + ")");
                        }
                    }
                    case STRING_ATTR -> skip(u16());
                    case TYPE_OF -> {
                        int t = i32();
                        if (Integer.compareUnsigned(t, m.typeNames.length) >= 0) {
                            throw outOfRange("type id ordinal out of range: " + Integer.toUnsignedString(t)
                                    + " (table=" + m.typeNames.length + ")");
                        }
                    }
                    case BRANCH_TARGET -> target(i32());
                    case BRANCH_OPERANDS -> branchOperands();
                    case BRANCH_TABLE_CASES -> {
                        for (int i = 0; i < tableSize; i++) {
                            target(i32());
                            branchOperands();
                        }
                    }
                    case VARIADIC_OPERANDS, VARIADIC_RESULTS -> {
                        boolean counts = o.name().equals("segment_sizes");
                        int at = list(counts ? null : o.type(), counts, o.moveAllowed() || "any".equals(o.type()));
                        if (o.name().equals("segment_sizes")) {
                            segments = at;
                        } else if (listA < 0) {
                            listA = at;
                        } else {
                            listB = at;
                        }
                    }
                }
            }
            switch (opcode) {
                case CoreOps.CALL, CoreOps.CALL_YIELDABLE, CoreOps.CALL_VARIADIC, CoreOps.CALL_VARIADIC_YIELDABLE -> {
                    boolean variadic = opcode == CoreOps.CALL_VARIADIC || opcode == CoreOps.CALL_VARIADIC_YIELDABLE;
                    String args;
                    String results;
                    if (funcOrdinal < 0) {
                        var f = m.imports().get(funcOrdinal & 0x7FFF_FFFF);
                        args = f.cconv().arguments().types();
                        results = f.cconv().results().types();
                    } else {
                        if (variadic) {
                            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                                    "variadic calls only supported for imports");
                        }
                        args = m.fnCconv[funcOrdinal].arguments().types();
                        results = m.fnCconv[funcOrdinal].results().types();
                    }
                    cconvRegisters(args, variadic ? segments : -1, listA);
                    cconvRegisters(results, -1, listB);
                    return opcode == CoreOps.CALL_YIELDABLE || opcode == CoreOps.CALL_VARIADIC_YIELDABLE;
                }
                case CoreOps.RETURN -> {
                    cconvRegisters(m.fnCconv[fn].results().types(), -1, listA);
                    return true;
                }
                case CoreOps.IMPORT_RESOLVED -> {
                    if (funcOrdinal >= 0) {
                        throw invalid("function ordinal " + funcOrdinal + " is not an import ordinal");
                    }
                    return false;
                }
                case CoreOps.BRANCH, CoreOps.COND_BRANCH, CoreOps.BRANCH_TABLE, CoreOps.FAIL, CoreOps.YIELD,
                     CoreOps.BREAK, CoreOps.COND_BREAK -> {
                    return opcode < 0xE0;
                }
                default -> {
                    return false;
                }
            }
        }

        private int function(int ordinal, int opcode) {
            if (ordinal < 0) {
                int imp = ordinal & 0x7FFF_FFFF;
                if (imp >= m.imports().size()) {
                    throw invalid("import ordinal " + imp + " out of range " + m.imports().size());
                }
            } else if (ordinal >= m.functionCount) {
                throw invalid("function ordinal " + ordinal + " out of range " + m.functionCount);
            }
            return ordinal;
        }

        private void target(int t) {
            if (t < 0 || t >= length) {
                throw outOfRange(String.format("branch target %08X outside the function (%d bytes)", t, length));
            }
            targets.set(t);
        }

        private void branchOperands() {
            alignList();
            int n = u16();
            for (int i = 0; i < n; i++) {
                any(u16());
                any(u16());
            }
        }

        /** Reads a register list; returns its absolute position. */
        private int list(String type, boolean counts, boolean allowMove) {
            alignList();
            int at = base + pc;
            int n = u16();
            for (int i = 0; i < n; i++) {
                int reg = u16();
                if (counts) {
                    continue;
                } else if (type == null || type.equals("any")) {
                    any(reg);
                } else {
                    register(reg, type, allowMove || type.equals("ref"));
                }
            }
            return at;
        }

        private void cconvRegisters(String types, int segments, int list) {
            int n = list < 0 ? 0 : Interpreter.u16(c, list);
            int segCount = segments < 0 ? 0 : Interpreter.u16(c, segments);
            int reg = 0;
            int seg = 0;
            for (int i = 0; i < types.length(); i++, seg++) {
                char t = types.charAt(i);
                if (t == 'C') {
                    if (segments < 0) {
                        throw invalid("function is variadic but no segment size list provided");
                    }
                    if (seg >= segCount) {
                        throw outOfRange("segment size list underflow (have " + segCount + ", trying to access "
                                + seg + ")");
                    }
                    int count = Interpreter.u16(c, segments + 2 + 2 * seg);
                    int end = i + 1;
                    while (end < types.length() && types.charAt(end) != 'D') {
                        end++;
                    }
                    for (int k = 0; k < count; k++) {
                        for (int j = i + 1; j < end; j++) {
                            cconvRegister(types.charAt(j), list, n, reg++);
                        }
                    }
                    i = end;
                } else {
                    cconvRegister(t, list, n, reg++);
                }
            }
        }

        private void cconvRegister(char t, int list, int n, int index) {
            if (index >= n) {
                throw outOfRange("register list underflow (have " + n + ", trying to access " + index + ")");
            }
            int reg = Interpreter.u16(c, list + 2 + 2 * index);
            switch (t) {
                case 'i', 'f' -> register(reg, "i32", false);
                case 'I', 'F' -> register(reg, "i64", false);
                case 'r' -> register(reg, "ref", true);
                default -> throw invalid("unsupported cconv fragment char '" + printable(String.valueOf(t)) + "'");
            }
        }

        private void register(int reg, String type, boolean allowMove) {
            switch (type) {
                case "i32", "f32" -> {
                    if ((reg & Interpreter.TYPE_BIT) != 0) {
                        throw invalid(type + " register required but ref register " + reg + " provided");
                    }
                    if (reg >= i32Count) {
                        throw outOfRange(type + " register ordinal " + reg + " out of range " + i32Count);
                    }
                }
                case "i64", "f64" -> {
                    if ((reg & Interpreter.TYPE_BIT) != 0) {
                        throw invalid(type + " register required but ref register " + reg + " provided");
                    }
                    if ((reg & 1) != 0) {
                        throw invalid(type + " register ordinal " + reg + " not 8-byte aligned");
                    }
                    if (reg + 1 >= i32Count) {
                        throw outOfRange(type + " register ordinal " + reg + ":" + (reg + 1) + " out of range "
                                + i32Count);
                    }
                }
                case "ref" -> {
                    if ((reg & Interpreter.TYPE_BIT) == 0) {
                        throw invalid("ref register required but non-ref " + reg + " provided");
                    }
                    if ((reg & Interpreter.REF_MASK) >= refCount) {
                        throw outOfRange("ref register ordinal " + (reg & Interpreter.REF_MASK) + " out of range "
                                + refCount);
                    }
                    if (!allowMove && (reg & Interpreter.MOVE_BIT) != 0) {
                        throw invalid("ref register has MOVE bit but op does not support MOVE");
                    }
                }
                default -> any(reg);
            }
        }

        private void any(int reg) {
            if ((reg & Interpreter.TYPE_BIT) != 0) {
                if ((reg & Interpreter.REF_MASK) >= refCount) {
                    throw outOfRange("ref register ordinal " + (reg & Interpreter.REF_MASK) + " out of range "
                            + refCount);
                }
            } else if (reg >= i32Count) {
                throw outOfRange("i32 register ordinal " + reg + " out of range " + i32Count);
            }
        }

        private void alignList() {
            pc += pc & 1;
        }

        private void require(int bytes) {
            if ((long) pc + bytes > length) {
                throw outOfRange(String.format("bytecode data overrun trying to parse op at %08X (%d) of %d available "
                        + "bytes", pc, pc, length));
            }
        }

        private int u8() {
            require(1);
            return c[base + pc++] & 0xFF;
        }

        private int u16() {
            require(2);
            int v = Interpreter.u16(c, base + pc);
            pc += 2;
            return v;
        }

        private int i32() {
            require(4);
            int v = Interpreter.i32(c, base + pc);
            pc += 4;
            return v;
        }

        private void skip(int n) {
            require(n);
            pc += n;
        }

        private static StatusException invalid(String message) {
            return new StatusException(StatusCode.INVALID_ARGUMENT, message);
        }

        private static StatusException outOfRange(String message) {
            return new StatusException(StatusCode.OUT_OF_RANGE, message);
        }
    }
}
