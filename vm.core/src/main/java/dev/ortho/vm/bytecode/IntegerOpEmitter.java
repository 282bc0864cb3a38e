package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Compiler.CD_SUPPORT;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;

import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.isa.CoreOps;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.HashMap;
import java.util.Map;

/**
 * Emits the core integer ops (i32 and i64 arithmetic, shifts, compares, constants, selects,
 * extensions and truncations) inline for {@link FunctionEmitter}, on the registers of a
 * {@link MethodFrame}: 64-bit ops on {@code long}s, unsigned forms through the JDK's unsigned
 * helpers or {@link CompiledSupport}, division with the pc recorded for its trap.
 */
final class IntegerOpEmitter {
    static final ClassDesc CD_MATH = ClassDesc.of("java.lang.Math");

    private final MethodFrame fr;
    private final CodeBuilder cb;

    IntegerOpEmitter(MethodFrame fr) {
        this.fr = fr;
        this.cb = fr.cb;
    }

    /** {@code helper(a, b) -> result} on accesses 0, 1 -> 2 of type {@code t} (i or I). */
    private void binaryCall(Insn i, char t, ClassDesc owner, String name) {
        ClassDesc type = t == 'I' ? CD_long : CD_int;
        fr.ld(i.a(0), t);
        fr.ld(i.a(1), t);
        cb.invokestatic(owner, name, MethodTypeDesc.of(type, type, type));
        fr.st(i.a(2), t);
    }

    private void shift64(Insn i, Opcode op) {
        fr.ld(i.a(0), 'I');
        fr.ld(i.a(1), 'i');
        cb.with(OperatorInstruction.of(op));
        fr.st(i.a(2), 'I');
    }

    /**
     * A two-operand integer op whose i32 and i64 forms differ only in width: a JVM operator, a
     * compare-and-branch opcode ({@code compare}), or a static method; {@code traps} if it can
     * throw (division).
     */
    private record IntForm(boolean wide, Opcode op, boolean compare, ClassDesc owner, String method, boolean traps) {
    }

    private static final Map<Integer, IntForm> INTEGER = new HashMap<>();

    private static void operator(int op32, int op64, Opcode jvm32, Opcode jvm64, boolean traps) {
        INTEGER.put(op32, new IntForm(false, jvm32, false, null, null, traps));
        INTEGER.put(op64, new IntForm(true, jvm64, false, null, null, traps));
    }

    private static void compare(int op32, int op64, Opcode jvm32, Opcode jvm64) {
        INTEGER.put(op32, new IntForm(false, jvm32, true, null, null, false));
        INTEGER.put(op64, new IntForm(true, jvm64, true, null, null, false));
    }

    private static void method(int op32, int op64, ClassDesc owner32, ClassDesc owner64, String method32,
                               String method64, boolean traps) {
        INTEGER.put(op32, new IntForm(false, null, false, owner32, method32, traps));
        INTEGER.put(op64, new IntForm(true, null, false, owner64, method64, traps));
    }

    static {
        ClassDesc integer = ConstantDescs.CD_Integer;
        ClassDesc lng = ConstantDescs.CD_Long;
        operator(CoreOps.ADD_I32, CoreOps.ADD_I64, Opcode.IADD, Opcode.LADD, false);
        operator(CoreOps.SUB_I32, CoreOps.SUB_I64, Opcode.ISUB, Opcode.LSUB, false);
        operator(CoreOps.MUL_I32, CoreOps.MUL_I64, Opcode.IMUL, Opcode.LMUL, false);
        operator(CoreOps.AND_I32, CoreOps.AND_I64, Opcode.IAND, Opcode.LAND, false);
        operator(CoreOps.OR_I32, CoreOps.OR_I64, Opcode.IOR, Opcode.LOR, false);
        operator(CoreOps.XOR_I32, CoreOps.XOR_I64, Opcode.IXOR, Opcode.LXOR, false);
        operator(CoreOps.DIV_I32_S, CoreOps.DIV_I64_S, Opcode.IDIV, Opcode.LDIV, true);
        operator(CoreOps.REM_I32_S, CoreOps.REM_I64_S, Opcode.IREM, Opcode.LREM, true);
        method(CoreOps.DIV_I32_U, CoreOps.DIV_I64_U, integer, lng, "divideUnsigned", "divideUnsigned", true);
        method(CoreOps.REM_I32_U, CoreOps.REM_I64_U, integer, lng, "remainderUnsigned", "remainderUnsigned", true);
        method(CoreOps.MIN_I32_S, CoreOps.MIN_I64_S, CD_MATH, CD_MATH, "min", "min", false);
        method(CoreOps.MAX_I32_S, CoreOps.MAX_I64_S, CD_MATH, CD_MATH, "max", "max", false);
        method(CoreOps.MIN_I32_U, CoreOps.MIN_I64_U, CD_SUPPORT, CD_SUPPORT, "minU32", "minU64", false);
        method(CoreOps.MAX_I32_U, CoreOps.MAX_I64_U, CD_SUPPORT, CD_SUPPORT, "maxU32", "maxU64", false);
        compare(CoreOps.CMP_EQI32, CoreOps.CMP_EQI64, Opcode.IF_ICMPEQ, Opcode.IFEQ);
        compare(CoreOps.CMP_NEI32, CoreOps.CMP_NEI64, Opcode.IF_ICMPNE, Opcode.IFNE);
        compare(CoreOps.CMP_LTI32_S, CoreOps.CMP_LTI64_S, Opcode.IF_ICMPLT, Opcode.IFLT);
    }

    /** {@code lhs op rhs -> result} on accesses 0, 1 -> 2 for an op of {@link #INTEGER}. */
    private void integer(Insn i, IntForm form) {
        char t = form.wide() ? 'I' : 'i';
        if (form.traps()) {
            fr.setPc(i.pc());
        }
        fr.ld(i.a(0), t);
        fr.ld(i.a(1), t);
        if (form.compare()) {
            if (form.wide()) {
                cb.lcmp();
            }
            fr.bool(form.op(), i.a(2));
            return;
        }
        if (form.op() != null) {
            cb.with(OperatorInstruction.of(form.op()));
        } else {
            ClassDesc type = form.wide() ? CD_long : CD_int;
            cb.invokestatic(form.owner(), form.method(), MethodTypeDesc.of(type, type, type));
        }
        fr.st(i.a(2), t);
    }


    /** Emits {@code i} if it is an integer op of this family; false if it is not. */
    boolean emit(Insn i) {
        ClassDesc integer = ConstantDescs.CD_Integer;
        ClassDesc lng = ConstantDescs.CD_Long;
        IntForm form = INTEGER.get(i.opcode());
        if (form != null) {
            integer(i, form);
            return true;
        }
        switch (i.opcode()) {
            case CoreOps.SHL_I32 -> fr.binary(i, 'i', Opcode.ISHL);
            case CoreOps.SHR_I32_S -> fr.binary(i, 'i', Opcode.ISHR);
            case CoreOps.SHR_I32_U -> fr.binary(i, 'i', Opcode.IUSHR);
            case CoreOps.CONST_I32_ZERO -> {
                cb.iconst_0();
                fr.st(i.a(0), 'i');
            }
            case CoreOps.CONST_I32 -> {
                cb.loadConstant((int) (long) (Long) i.ops().get(0));
                fr.st(i.a(1), 'i');
            }
            case CoreOps.CONST_I64_ZERO -> {
                cb.lconst_0();
                fr.st(i.a(0), 'I');
            }
            case CoreOps.CONST_I64 -> {
                cb.loadConstant((long) (Long) i.ops().get(0));
                fr.st(i.a(1), 'I');
            }
            case CoreOps.SELECT_I32 -> fr.select(i, 'i');
            case CoreOps.SELECT_I64 -> fr.select(i, 'I');
            case CoreOps.FMAI32, CoreOps.FMAI64 -> {
                char t = i.opcode() == CoreOps.FMAI32 ? 'i' : 'I';
                fr.ld(i.a(0), t);
                fr.ld(i.a(1), t);
                cb.with(OperatorInstruction.of(t == 'i' ? Opcode.IMUL : Opcode.LMUL));
                fr.ld(i.a(2), t);
                cb.with(OperatorInstruction.of(t == 'i' ? Opcode.IADD : Opcode.LADD));
                fr.st(i.a(3), t);
            }
            case CoreOps.NOT_I32, CoreOps.CTLZ_I32, CoreOps.ABS_I32, CoreOps.TRUNC_I32_I8, CoreOps.TRUNC_I32_I16,
                 CoreOps.EXT_I8_I32_S, CoreOps.EXT_I8_I32_U, CoreOps.EXT_I16_I32_S, CoreOps.EXT_I16_I32_U -> {
                fr.ld(i.a(0), 'i');
                switch (i.opcode()) {
                    case CoreOps.NOT_I32 -> cb.iconst_m1().ixor();
                    case CoreOps.CTLZ_I32 -> cb.invokestatic(integer, "numberOfLeadingZeros",
                            MethodTypeDesc.of(CD_int, CD_int));
                    case CoreOps.ABS_I32 -> cb.invokestatic(CD_MATH, "abs", MethodTypeDesc.of(CD_int, CD_int));
                    case CoreOps.TRUNC_I32_I8, CoreOps.EXT_I8_I32_U -> cb.loadConstant(0xFF).iand();
                    case CoreOps.TRUNC_I32_I16, CoreOps.EXT_I16_I32_U -> cb.loadConstant(0xFFFF).iand();
                    case CoreOps.EXT_I8_I32_S -> cb.i2b();
                    default -> cb.i2s();
                }
                fr.st(i.a(1), 'i');
            }
            case CoreOps.CMP_LTI32_U -> binaryCall(i, 'i', CD_SUPPORT, "cmpLtU32");
            case CoreOps.CMP_NZI32 -> {
                fr.ld(i.a(0), 'i');
                fr.bool(Opcode.IFNE, i.a(1));
            }
            case CoreOps.SHL_I64 -> shift64(i, Opcode.LSHL);
            case CoreOps.SHR_I64_S -> shift64(i, Opcode.LSHR);
            case CoreOps.SHR_I64_U -> shift64(i, Opcode.LUSHR);
            case CoreOps.NOT_I64, CoreOps.CTLZ_I64, CoreOps.ABS_I64 -> {
                fr.ld(i.a(0), 'I');
                switch (i.opcode()) {
                    case CoreOps.NOT_I64 -> cb.loadConstant(-1L).lxor();
                    case CoreOps.CTLZ_I64 -> cb.invokestatic(lng, "numberOfLeadingZeros",
                            MethodTypeDesc.of(CD_int, CD_long)).i2l();
                    default -> cb.invokestatic(CD_MATH, "abs", MethodTypeDesc.of(CD_long, CD_long));
                }
                fr.st(i.a(1), 'I');
            }
            case CoreOps.CMP_LTI64_U -> {
                fr.ld(i.a(0), 'I');
                fr.ld(i.a(1), 'I');
                fr.support("cmpLtU64", CD_int, CD_long, CD_long);
                fr.st(i.a(2), 'i');
            }
            case CoreOps.CMP_NZI64 -> {
                fr.ld(i.a(0), 'I');
                cb.lconst_0().lcmp();
                fr.bool(Opcode.IFNE, i.a(1));
            }
            case CoreOps.EXT_I32_I64_S -> {
                fr.ld(i.a(0), 'i');
                cb.i2l();
                fr.st(i.a(1), 'I');
            }
            case CoreOps.EXT_I32_I64_U -> {
                fr.ld(i.a(0), 'i');
                cb.i2l().loadConstant(0xFFFF_FFFFL).land();
                fr.st(i.a(1), 'I');
            }
            case CoreOps.TRUNC_I64_I32 -> {
                fr.ld(i.a(0), 'I');
                cb.l2i();
                fr.st(i.a(1), 'i');
            }
            default -> {
                return false;
            }
        }
        return true;
    }
}
