package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.IntegerOpEmitter.CD_MATH;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;

import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.internal.isa.ExtF32Ops;
import dev.ortho.vm.internal.isa.ExtF64Ops;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Emits the ExtF32 and ExtF64 ops the compiler inlines ({@link FOp}), one shape for both widths,
 * in the width's JVM type for {@link FunctionEmitter}; min/max/fma/sqrt/compares call the
 * {@link CompiledSupport} helpers that compute exactly what the interpreter computes, the
 * transcendental, rounding and conversion ops call the value functions the interpreter calls
 * ({@link FOp#CALL}), buffer loads and stores go through {@link BufferOpEmitter}. Only the
 * global, list, switch and fill ops of the extensions are left to the generic path.
 */
final class FloatOpEmitter {
    private final MethodFrame fr;
    private final CodeBuilder cb;
    private final BufferOpEmitter buffers;

    FloatOpEmitter(MethodFrame fr, BufferOpEmitter buffers) {
        this.fr = fr;
        this.cb = fr.cb;
        this.buffers = buffers;
    }

    /** The ExtF32/ExtF64 ops emitted inline, one shape for both widths. */
    enum FOp {
        ZERO, CONST, SELECT, ADD, SUB, MUL, DIV, MIN, MAX, FMA, ABS, NEG, SQRT, FROM_SI32, EQ_O, EQ_U, NE_O, NE_U,
        LT_O, LT_U, LTE_O, LTE_U, NAN, LOAD, STORE, BITCAST, EXTEND, TRUNCATE,
        /** A call of the op's value function in ExtF32Extension/ExtF64Extension ({@link #calls}). */
        CALL
    }

    /** A static value function: its name and JVM descriptor, parameters in operand order. */
    record ValueFunction(String name, MethodTypeDesc type) {
        ValueFunction(String name, String descriptor) {
            this(name, MethodTypeDesc.ofDescriptor(descriptor));
        }
    }

    private static final ClassDesc CD_EXT_F32 = ClassDesc.of(ExtF32Extension.class.getName());
    private static final ClassDesc CD_EXT_F64 = ClassDesc.of(ExtF64Extension.class.getName());

    /** An op of both extensions with a value function of one name in each; X in the shape is the width's type. */
    private record Shared(int f32, int f64, String name, String shape) {
    }

    /**
     * The ops whose value function the interpreter calls too: compiled code calls the same method
     * of ExtF32Extension or ExtF64Extension, so both give the same bits, and C2 inlines it.
     */
    private static final List<Shared> SHARED = List.of(
            new Shared(ExtF32Ops.REM_F32, ExtF64Ops.REM_F64, "rem", "(XX)X"),
            new Shared(ExtF32Ops.ATAN2_F32, ExtF64Ops.ATAN2_F64, "atan2", "(XX)X"),
            new Shared(ExtF32Ops.POW_F32, ExtF64Ops.POW_F64, "pow", "(XX)X"),
            new Shared(ExtF32Ops.CEIL_F32, ExtF64Ops.CEIL_F64, "ceil", "(X)X"),
            new Shared(ExtF32Ops.FLOOR_F32, ExtF64Ops.FLOOR_F64, "floor", "(X)X"),
            new Shared(ExtF32Ops.ROUND_F32, ExtF64Ops.ROUND_F64, "round", "(X)X"),
            new Shared(ExtF32Ops.ROUND_F32_EVEN, ExtF64Ops.ROUND_F64_EVEN, "roundEven", "(X)X"),
            new Shared(ExtF32Ops.ATAN_F32, ExtF64Ops.ATAN_F64, "atan", "(X)X"),
            new Shared(ExtF32Ops.COS_F32, ExtF64Ops.COS_F64, "cos", "(X)X"),
            new Shared(ExtF32Ops.SIN_F32, ExtF64Ops.SIN_F64, "sin", "(X)X"),
            new Shared(ExtF32Ops.EXP_F32, ExtF64Ops.EXP_F64, "exp", "(X)X"),
            new Shared(ExtF32Ops.EXP2_F32, ExtF64Ops.EXP2_F64, "exp2", "(X)X"),
            new Shared(ExtF32Ops.EXP_M1_F32, ExtF64Ops.EXP_M1_F64, "expm1", "(X)X"),
            new Shared(ExtF32Ops.LOG_F32, ExtF64Ops.LOG_F64, "log", "(X)X"),
            new Shared(ExtF32Ops.LOG10_F32, ExtF64Ops.LOG10_F64, "log10", "(X)X"),
            new Shared(ExtF32Ops.LOG1P_F32, ExtF64Ops.LOG1P_F64, "log1p", "(X)X"),
            new Shared(ExtF32Ops.LOG2_F32, ExtF64Ops.LOG2_F64, "log2", "(X)X"),
            new Shared(ExtF32Ops.RSQRT_F32, ExtF64Ops.RSQRT_F64, "rsqrt", "(X)X"),
            new Shared(ExtF32Ops.TANH_F32, ExtF64Ops.TANH_F64, "tanh", "(X)X"),
            new Shared(ExtF32Ops.ERF_F32, ExtF64Ops.ERF_F64, "erf", "(X)X"),
            new Shared(ExtF32Ops.FPOWI_F32, ExtF64Ops.FPOWI_F64, "powi", "(XJ)X"),
            new Shared(ExtF32Ops.CAST_UI32_F32, ExtF64Ops.CAST_UI32_F64, "fromU32", "(I)X"),
            new Shared(ExtF32Ops.CAST_SI64_F32, ExtF64Ops.CAST_SI64_F64, "fromI64", "(J)X"),
            new Shared(ExtF32Ops.CAST_UI64_F32, ExtF64Ops.CAST_UI64_F64, "fromU64", "(J)X"),
            new Shared(ExtF32Ops.CAST_F32_SI32, ExtF64Ops.CAST_F64_SI32, "toI32", "(X)I"),
            new Shared(ExtF32Ops.CAST_F32_UI32, ExtF64Ops.CAST_F64_UI32, "toU32", "(X)I"),
            new Shared(ExtF32Ops.CAST_F32_SI64, ExtF64Ops.CAST_F64_SI64, "toI64", "(X)J"),
            new Shared(ExtF32Ops.CAST_F32_UI64, ExtF64Ops.CAST_F64_UI64, "toU64", "(X)J"));

    private static final Map<Integer, ValueFunction> F32_CALLS = callTable(false);
    private static final Map<Integer, ValueFunction> F64_CALLS = callTable(true);

    private static Map<Integer, ValueFunction> callTable(boolean wide) {
        Map<Integer, ValueFunction> out = new HashMap<>();
        for (Shared op : SHARED) {
            out.put(wide ? op.f64() : op.f32(), new ValueFunction(op.name(), op.shape().replace('X', wide ? 'D' : 'F')));
        }
        return Map.copyOf(out);
    }

    /** The value function compiled code calls for an ExtF32 ({@code wide} false) or ExtF64 opcode, or null. */
    static ValueFunction calls(int extOpcode, boolean wide) {
        return (wide ? F64_CALLS : F32_CALLS).get(extOpcode);
    }

    /** The inline float op of an ExtF32/ExtF64 instruction, or null. */
    static FOp floatOp(BytecodeModule m, Insn i) {
        InstructionExtension ext = m.extensions[i.opcode() - 0xE0];
        if (ext instanceof ExtF32Extension) {
            return switch (i.extOpcode()) {
                case ExtF32Ops.CONST_F32_ZERO -> FOp.ZERO;
                case ExtF32Ops.CONST_F32 -> FOp.CONST;
                case ExtF32Ops.SELECT_F32 -> FOp.SELECT;
                case ExtF32Ops.ADD_F32 -> FOp.ADD;
                case ExtF32Ops.SUB_F32 -> FOp.SUB;
                case ExtF32Ops.MUL_F32 -> FOp.MUL;
                case ExtF32Ops.DIV_F32 -> FOp.DIV;
                case ExtF32Ops.MIN_F32 -> FOp.MIN;
                case ExtF32Ops.MAX_F32 -> FOp.MAX;
                case ExtF32Ops.FMAF32 -> FOp.FMA;
                case ExtF32Ops.ABS_F32 -> FOp.ABS;
                case ExtF32Ops.NEG_F32 -> FOp.NEG;
                case ExtF32Ops.SQRT_F32 -> FOp.SQRT;
                case ExtF32Ops.CAST_SI32_F32 -> FOp.FROM_SI32;
                case ExtF32Ops.BITCAST_I32_F32, ExtF32Ops.BITCAST_F32_I32 -> FOp.BITCAST;
                case ExtF32Ops.CMP_EQF32_O -> FOp.EQ_O;
                case ExtF32Ops.CMP_EQF32_U -> FOp.EQ_U;
                case ExtF32Ops.CMP_NEF32_O -> FOp.NE_O;
                case ExtF32Ops.CMP_NEF32_U -> FOp.NE_U;
                case ExtF32Ops.CMP_LTF32_O -> FOp.LT_O;
                case ExtF32Ops.CMP_LTF32_U -> FOp.LT_U;
                case ExtF32Ops.CMP_LTEF32_O -> FOp.LTE_O;
                case ExtF32Ops.CMP_LTEF32_U -> FOp.LTE_U;
                case ExtF32Ops.CMP_NA_NF32 -> FOp.NAN;
                case ExtF32Ops.BUFFER_LOAD_F32 -> FOp.LOAD;
                case ExtF32Ops.BUFFER_STORE_F32 -> FOp.STORE;
                default -> F32_CALLS.containsKey(i.extOpcode()) ? FOp.CALL : null;
            };
        }
        if (ext instanceof ExtF64Extension) {
            return switch (i.extOpcode()) {
                case ExtF64Ops.CONST_F64_ZERO -> FOp.ZERO;
                case ExtF64Ops.CONST_F64 -> FOp.CONST;
                case ExtF64Ops.SELECT_F64 -> FOp.SELECT;
                case ExtF64Ops.ADD_F64 -> FOp.ADD;
                case ExtF64Ops.SUB_F64 -> FOp.SUB;
                case ExtF64Ops.MUL_F64 -> FOp.MUL;
                case ExtF64Ops.DIV_F64 -> FOp.DIV;
                case ExtF64Ops.MIN_F64 -> FOp.MIN;
                case ExtF64Ops.MAX_F64 -> FOp.MAX;
                case ExtF64Ops.FMAF64 -> FOp.FMA;
                case ExtF64Ops.ABS_F64 -> FOp.ABS;
                case ExtF64Ops.NEG_F64 -> FOp.NEG;
                case ExtF64Ops.SQRT_F64 -> FOp.SQRT;
                case ExtF64Ops.CAST_SI32_F64 -> FOp.FROM_SI32;
                case ExtF64Ops.EXT_F32_F64 -> FOp.EXTEND;
                case ExtF64Ops.TRUNC_F64_F32 -> FOp.TRUNCATE;
                case ExtF64Ops.CMP_EQF64_O -> FOp.EQ_O;
                case ExtF64Ops.CMP_EQF64_U -> FOp.EQ_U;
                case ExtF64Ops.CMP_NEF64_O -> FOp.NE_O;
                case ExtF64Ops.CMP_NEF64_U -> FOp.NE_U;
                case ExtF64Ops.CMP_LTF64_O -> FOp.LT_O;
                case ExtF64Ops.CMP_LTF64_U -> FOp.LT_U;
                case ExtF64Ops.CMP_LTEF64_O -> FOp.LTE_O;
                case ExtF64Ops.CMP_LTEF64_U -> FOp.LTE_U;
                case ExtF64Ops.CMP_NA_NF64 -> FOp.NAN;
                case ExtF64Ops.BUFFER_LOAD_F64 -> FOp.LOAD;
                case ExtF64Ops.BUFFER_STORE_F64 -> FOp.STORE;
                case ExtF64Ops.BITCAST_I64_F64, ExtF64Ops.BITCAST_F64_I64 -> FOp.BITCAST;
                default -> F64_CALLS.containsKey(i.extOpcode()) ? FOp.CALL : null;
            };
        }
        return null;
    }

    /** One ExtF32 ({@code wide} false) or ExtF64 op, emitted in the width's JVM type. */
    void emit(Insn i, FOp op, boolean wide) {
        char t = wide ? 'F' : 'f';
        ClassDesc jt = wide ? CD_double : CD_float;
        switch (op) {
            case ZERO -> {
                cb.loadConstant(wide ? (ConstantDesc) 0L : (ConstantDesc) 0);
                fr.st(i.a(0), wide ? 'I' : 'i');
            }
            case CONST -> {
                long v = (Long) i.ops().get(0);
                cb.loadConstant(wide ? (ConstantDesc) v : (ConstantDesc) (int) v);
                fr.st(i.a(1), wide ? 'I' : 'i');
            }
            case SELECT -> fr.select(i, t);
            case ADD -> fr.binary(i, t, wide ? Opcode.DADD : Opcode.FADD);
            case SUB -> fr.binary(i, t, wide ? Opcode.DSUB : Opcode.FSUB);
            case MUL -> fr.binary(i, t, wide ? Opcode.DMUL : Opcode.FMUL);
            case DIV -> fr.binary(i, t, wide ? Opcode.DDIV : Opcode.FDIV);
            case MIN, MAX -> {
                fr.ld(i.a(0), t);
                fr.ld(i.a(1), t);
                fr.support((op == FOp.MIN ? "min" : "max") + (wide ? "F64" : "F32"), jt, jt, jt);
                fr.st(i.a(2), t);
            }
            case FMA -> {
                fr.ld(i.a(0), t);
                fr.ld(i.a(1), t);
                fr.ld(i.a(2), t);
                fr.support(wide ? "fmaF64" : "fmaF32", jt, jt, jt, jt);
                fr.st(i.a(3), t);
            }
            case ABS, NEG, SQRT -> {
                fr.ld(i.a(0), t);
                switch (op) {
                    case ABS -> cb.invokestatic(CD_MATH, "abs", MethodTypeDesc.of(jt, jt));
                    case NEG -> cb.with(OperatorInstruction.of(wide ? Opcode.DNEG : Opcode.FNEG));
                    default -> {
                        if (wide) {
                            cb.invokestatic(CD_MATH, "sqrt", MethodTypeDesc.of(jt, jt));
                        } else {
                            fr.support("sqrtF32", jt, jt);
                        }
                    }
                }
                fr.st(i.a(1), t);
            }
            case FROM_SI32 -> {
                fr.ld(i.a(0), 'i');
                if (wide) {
                    cb.i2d();
                } else {
                    cb.i2f();
                }
                fr.st(i.a(1), t);
            }
            case BITCAST -> {
                fr.ld(i.a(0), wide ? 'I' : 'i');
                fr.st(i.a(1), wide ? 'I' : 'i');
            }
            case CALL -> {
                ValueFunction vf = calls(i.extOpcode(), wide);
                int n = vf.type().parameterCount();
                for (int k = 0; k < n; k++) {
                    fr.ld(i.a(k), repr(vf.type().parameterType(k)));
                }
                cb.invokestatic(wide ? CD_EXT_F64 : CD_EXT_F32, vf.name(), vf.type());
                fr.st(i.a(n), repr(vf.type().returnType()));
            }
            case EXTEND -> {
                fr.ld(i.a(0), 'f');
                cb.f2d();
                fr.st(i.a(1), 'F');
            }
            case TRUNCATE -> {
                fr.ld(i.a(0), 'F');
                cb.d2f();
                fr.st(i.a(1), 'f');
            }
            case EQ_O -> floatCompare(i, 0, false, wide);
            case EQ_U -> floatCompare(i, 0, true, wide);
            case NE_O -> floatCompare(i, 1, false, wide);
            case NE_U -> floatCompare(i, 1, true, wide);
            case LT_O -> floatCompare(i, 2, false, wide);
            case LT_U -> floatCompare(i, 2, true, wide);
            case LTE_O -> floatCompare(i, 3, false, wide);
            case LTE_U -> floatCompare(i, 3, true, wide);
            case NAN -> {
                fr.ld(i.a(0), t);
                cb.invokestatic(wide ? ConstantDescs.CD_Double : ConstantDescs.CD_Float, "isNaN",
                        MethodTypeDesc.of(CD_boolean, jt));
                fr.st(i.a(1), 'i');
            }
            case LOAD -> {
                buffers.load(i, wide ? BufferOpEmitter.Elem.F64 : BufferOpEmitter.Elem.F32, "buffer");
                fr.st(i.a(2), t);
            }
            case STORE -> buffers.store(i, wide ? BufferOpEmitter.Elem.F64 : BufferOpEmitter.Elem.F32, "buffer", t);
        }
    }

    /** The frame's type character of a JVM primitive: {@code i f I F}. */
    private static char repr(ClassDesc t) {
        return switch (t.descriptorString()) {
            case "I" -> 'i';
            case "F" -> 'f';
            case "J" -> 'I';
            default -> 'F';
        };
    }

    private void floatCompare(Insn i, int kind, boolean unordered, boolean wide) {
        char t = wide ? 'F' : 'f';
        fr.ld(i.a(0), t);
        if (!wide) {
            cb.f2d();
        }
        fr.ld(i.a(1), t);
        if (!wide) {
            cb.f2d();
        }
        cb.loadConstant(kind).loadConstant(unordered ? 1 : 0);
        fr.support("cmpF", CD_int, CD_double, CD_double, CD_int, CD_boolean);
        fr.st(i.a(2), 'i');
    }
}
