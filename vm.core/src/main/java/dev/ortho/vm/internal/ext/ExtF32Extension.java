package dev.ortho.vm.internal.ext;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.internal.isa.ExtF32Ops;
import dev.ortho.vm.spi.ExtensionMachine;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import java.util.List;

/** IREE's ExtF32 opcode set: f32 arithmetic, compares, conversions, globals, lists, buffers. Stateless. */
public final class ExtF32Extension implements InstructionExtension {

    @Override
    public String name() {
        return "ext_f32";
    }

    @Override
    public int prefix() {
        return CoreOps.PREFIX_EXT_F32;
    }

    @Override
    public int feature() {
        return FeatureBits.EXT_F32;
    }

    @Override
    public List<OpDescriptor> ops() {
        return ExtF32Ops.DESCRIPTORS;
    }

    @Override
    public void execute(int opcode, ExtensionMachine m) {
        switch (opcode) {
            case ExtF32Ops.GLOBAL_LOAD_F32 -> {
                int offset = m.readI32();
                m.setI32(m.readU16(), m.globalI32(offset));
            }
            case ExtF32Ops.GLOBAL_STORE_F32 -> {
                int offset = m.readI32();
                m.setGlobalI32(offset, m.i32(m.readU16()));
            }
            case ExtF32Ops.GLOBAL_LOAD_INDIRECT_F32 -> {
                int offset = m.i32(m.readU16());
                m.checkGlobalRange(offset, 4);
                m.setI32(m.readU16(), m.globalI32(offset));
            }
            case ExtF32Ops.GLOBAL_STORE_INDIRECT_F32 -> {
                int offset = m.i32(m.readU16());
                int value = m.i32(m.readU16());
                m.checkGlobalRange(offset, 4);
                m.setGlobalI32(offset, value);
            }
            case ExtF32Ops.CONST_F32_ZERO -> m.setI32(m.readU16(), 0);
            case ExtF32Ops.CONST_F32 -> {
                int bits = m.readI32();
                m.setI32(m.readU16(), bits);
            }
            case ExtF32Ops.LIST_GET_F32 -> {
                VmList list = m.list(m.readU16());
                int index = m.i32(m.readU16());
                m.setI32(m.readU16(), (int) list.getValueBits(index, ValueType.F32));
            }
            case ExtF32Ops.LIST_SET_F32 -> {
                VmList list = m.list(m.readU16());
                int index = m.i32(m.readU16());
                list.setValueBits(index, ValueType.F32, m.i32(m.readU16()) & 0xFFFF_FFFFL);
            }
            case ExtF32Ops.SELECT_F32 -> {
                int c = m.i32(m.readU16());
                int t = m.i32(m.readU16());
                int f = m.i32(m.readU16());
                m.setI32(m.readU16(), c != 0 ? t : f);
            }
            case ExtF32Ops.SWITCH_F32 -> {
                int index = m.i32(m.readU16());
                int value = m.i32(m.readU16());
                int n = m.readListSize();
                for (int i = 0; i < n; i++) {
                    int reg = m.readU16();
                    if (i == index) {
                        value = m.i32(reg);
                    }
                }
                m.setI32(m.readU16(), value);
            }
            case ExtF32Ops.ADD_F32, ExtF32Ops.SUB_F32, ExtF32Ops.MUL_F32, ExtF32Ops.DIV_F32, ExtF32Ops.REM_F32, ExtF32Ops.ATAN2_F32,
                 ExtF32Ops.POW_F32, ExtF32Ops.MIN_F32, ExtF32Ops.MAX_F32 -> binary(m, opcode);
            case ExtF32Ops.FMAF32 -> {
                float a = f(m, m.readU16());
                float b = f(m, m.readU16());
                float c = f(m, m.readU16());
                // IREE builds without FP_FAST_FMAF on x86-64: a separately rounded multiply and add.
                set(m, m.readU16(), a * b + c);
            }
            case ExtF32Ops.ABS_F32, ExtF32Ops.NEG_F32, ExtF32Ops.CEIL_F32, ExtF32Ops.FLOOR_F32, ExtF32Ops.ROUND_F32,
                 ExtF32Ops.ROUND_F32_EVEN, ExtF32Ops.ATAN_F32, ExtF32Ops.COS_F32, ExtF32Ops.SIN_F32, ExtF32Ops.EXP_F32,
                 ExtF32Ops.EXP2_F32, ExtF32Ops.EXP_M1_F32, ExtF32Ops.LOG_F32, ExtF32Ops.LOG10_F32, ExtF32Ops.LOG1P_F32,
                 ExtF32Ops.LOG2_F32, ExtF32Ops.RSQRT_F32, ExtF32Ops.SQRT_F32, ExtF32Ops.TANH_F32,
                 ExtF32Ops.ERF_F32 -> unary(m, opcode);
            case ExtF32Ops.FPOWI_F32 -> {
                float base = f(m, m.readU16());
                long exponent = m.i64(m.readU16());
                set(m, m.readU16(), powi(base, exponent));
            }
            case ExtF32Ops.CAST_SI32_F32 -> {
                int v = m.i32(m.readU16());
                set(m, m.readU16(), (float) v);
            }
            case ExtF32Ops.CAST_UI32_F32 -> {
                int v = m.i32(m.readU16());
                set(m, m.readU16(), fromU32(v));
            }
            case ExtF32Ops.CAST_SI64_F32 -> {
                long v = m.i64(m.readU16());
                set(m, m.readU16(), fromI64(v));
            }
            case ExtF32Ops.CAST_UI64_F32 -> {
                long v = m.i64(m.readU16());
                set(m, m.readU16(), fromU64(v));
            }
            case ExtF32Ops.CAST_F32_SI32 -> {
                float v = f(m, m.readU16());
                m.setI32(m.readU16(), toI32(v));
            }
            case ExtF32Ops.CAST_F32_UI32 -> {
                float v = f(m, m.readU16());
                m.setI32(m.readU16(), toU32(v));
            }
            case ExtF32Ops.CAST_F32_SI64 -> {
                float v = f(m, m.readU16());
                m.setI64(m.readU16(), toI64(v));
            }
            case ExtF32Ops.CAST_F32_UI64 -> {
                float v = f(m, m.readU16());
                m.setI64(m.readU16(), toU64(v));
            }
            case ExtF32Ops.BITCAST_I32_F32, ExtF32Ops.BITCAST_F32_I32 -> {
                int v = m.i32(m.readU16());
                m.setI32(m.readU16(), v);
            }
            case ExtF32Ops.CMP_EQF32_O, ExtF32Ops.CMP_EQF32_U, ExtF32Ops.CMP_NEF32_O, ExtF32Ops.CMP_NEF32_U,
                 ExtF32Ops.CMP_LTF32_O, ExtF32Ops.CMP_LTF32_U, ExtF32Ops.CMP_LTEF32_O, ExtF32Ops.CMP_LTEF32_U -> {
                float l = f(m, m.readU16());
                float r = f(m, m.readU16());
                m.setI32(m.readU16(), compare(opcode, l, r) ? 1 : 0);
            }
            case ExtF32Ops.CMP_NA_NF32 -> {
                float v = f(m, m.readU16());
                m.setI32(m.readU16(), Float.isNaN(v) ? 1 : 0);
            }
            case ExtF32Ops.BUFFER_LOAD_F32 -> {
                VmBuffer buffer = m.buffer(m.readU16());
                long index = m.i64(m.readU16());
                set(m, m.readU16(), buffer.loadF32(index));
            }
            case ExtF32Ops.BUFFER_STORE_F32 -> {
                VmBuffer buffer = m.buffer(m.readU16());
                long index = m.i64(m.readU16());
                buffer.storeF32(index, f(m, m.readU16()));
            }
            case ExtF32Ops.BUFFER_FILL_F32 -> {
                VmBuffer buffer = m.buffer(m.readU16());
                long offset = m.i64(m.readU16());
                long length = m.i64(m.readU16());
                buffer.fillElements(offset, length, 4, m.i32(m.readU16()) & 0xFFFF_FFFFL);
            }
            default -> throw new StatusException(StatusCode.UNIMPLEMENTED,
                    "unhandled ext_f32 opcode 0x" + Integer.toHexString(opcode));
        }
    }

    private static float f(ExtensionMachine m, int reg) {
        return Float.intBitsToFloat(m.i32(reg));
    }

    private static void set(ExtensionMachine m, int reg, float value) {
        m.setI32(reg, Float.floatToRawIntBits(value));
    }

    private static void binary(ExtensionMachine m, int opcode) {
        float l = f(m, m.readU16());
        float r = f(m, m.readU16());
        float v = switch (opcode) {
            case ExtF32Ops.ADD_F32 -> l + r;
            case ExtF32Ops.SUB_F32 -> l - r;
            case ExtF32Ops.MUL_F32 -> l * r;
            case ExtF32Ops.DIV_F32 -> l / r;
            case ExtF32Ops.REM_F32 -> rem(l, r);
            case ExtF32Ops.ATAN2_F32 -> atan2(l, r);
            case ExtF32Ops.POW_F32 -> pow(l, r);
            case ExtF32Ops.MIN_F32 -> r < l ? r : l;
            default -> l < r ? r : l; // MAX_F32
        };
        set(m, m.readU16(), v);
    }

    private static void unary(ExtensionMachine m, int opcode) {
        float x = f(m, m.readU16());
        float v = switch (opcode) {
            case ExtF32Ops.ABS_F32 -> Math.abs(x);
            case ExtF32Ops.NEG_F32 -> -x;
            case ExtF32Ops.CEIL_F32 -> ceil(x);
            case ExtF32Ops.FLOOR_F32 -> floor(x);
            case ExtF32Ops.ROUND_F32 -> round(x);
            case ExtF32Ops.ROUND_F32_EVEN -> roundEven(x);
            case ExtF32Ops.ATAN_F32 -> atan(x);
            case ExtF32Ops.COS_F32 -> cos(x);
            case ExtF32Ops.SIN_F32 -> sin(x);
            case ExtF32Ops.EXP_F32 -> exp(x);
            case ExtF32Ops.EXP2_F32 -> exp2(x);
            case ExtF32Ops.EXP_M1_F32 -> expm1(x);
            case ExtF32Ops.LOG_F32 -> log(x);
            case ExtF32Ops.LOG10_F32 -> log10(x);
            case ExtF32Ops.LOG1P_F32 -> log1p(x);
            case ExtF32Ops.LOG2_F32 -> log2(x);
            case ExtF32Ops.RSQRT_F32 -> rsqrt(x);
            case ExtF32Ops.SQRT_F32 -> (float) Math.sqrt(x);
            case ExtF32Ops.TANH_F32 -> tanh(x);
            default -> erf(x); // ERF_F32
        };
        set(m, m.readU16(), v);
    }

    /** IREE's float compares: ordered forms are C's operators ({@code !=} is true for NaN), unordered add NaN. */
    static boolean compare(int opcode, double l, double r, int eqO, int eqU, int neO, int neU, int ltO, int ltU,
                           int lteO) {
        boolean unordered = Double.isNaN(l) || Double.isNaN(r);
        if (opcode == eqO) {
            return l == r;
        } else if (opcode == eqU) {
            return unordered || l == r;
        } else if (opcode == neO) {
            return l != r;
        } else if (opcode == neU) {
            return unordered || l != r;
        } else if (opcode == ltO) {
            return l < r;
        } else if (opcode == ltU) {
            return unordered || l < r;
        } else if (opcode == lteO) {
            return l <= r;
        }
        return unordered || l <= r;
    }

    private static boolean compare(int opcode, float l, float r) {
        return compare(opcode, l, r, ExtF32Ops.CMP_EQF32_O, ExtF32Ops.CMP_EQF32_U, ExtF32Ops.CMP_NEF32_O,
                ExtF32Ops.CMP_NEF32_U, ExtF32Ops.CMP_LTF32_O, ExtF32Ops.CMP_LTF32_U, ExtF32Ops.CMP_LTEF32_O);
    }

    // The value of each op that reads and writes only registers: the one definition the
    // interpreter above and compiled code (FloatOpEmitter calls them by name) share, so both give
    // the same bits.

    public static float rem(float l, float r) {
        return (float) VmMath.remainder(l, r);
    }

    public static float atan2(float l, float r) {
        return (float) Math.atan2(l, r);
    }

    public static float pow(float l, float r) {
        return LibmF32Tables.pow(l, r);
    }

    public static float ceil(float x) {
        return (float) Math.ceil(x);
    }

    public static float floor(float x) {
        return (float) Math.floor(x);
    }

    public static float round(float x) {
        return VmMath.roundHalfAway(x);
    }

    public static float roundEven(float x) {
        return (float) VmMath.roundEven(x);
    }

    public static float atan(float x) {
        return LibmF32.atan(x);
    }

    public static float cos(float x) {
        return LibmF32Tables.cos(x);
    }

    public static float sin(float x) {
        return LibmF32Tables.sin(x);
    }

    public static float exp(float x) {
        return LibmF32Tables.exp(x);
    }

    public static float exp2(float x) {
        return (float) VmMath.exp2(x);
    }

    public static float expm1(float x) {
        return LibmF32.expm1(x);
    }

    public static float log(float x) {
        return (float) Math.log(x);
    }

    public static float log10(float x) {
        return (float) Math.log10(x);
    }

    public static float log1p(float x) {
        return LibmF32.log1p(x);
    }

    public static float log2(float x) {
        return (float) VmMath.log2(x);
    }

    public static float rsqrt(float x) {
        return 1.0f / (float) Math.sqrt(x);
    }

    public static float tanh(float x) {
        return LibmF32.tanh(x);
    }

    public static float erf(float x) {
        return LibmF32.erf(x);
    }

    public static float powi(float base, long exponent) {
        return VmMath.powi(base, exponent);
    }

    /** {@code vm.cast.ui32.f32}. */
    public static float fromU32(int v) {
        return (float) (v & 0xFFFF_FFFFL);
    }

    /** {@code vm.cast.si64.f32}. */
    public static float fromI64(long v) {
        return (float) v;
    }

    /** {@code vm.cast.ui64.f32}. */
    public static float fromU64(long v) {
        return VmMath.u64ToF32(v);
    }

    /** {@code vm.cast.f32.si32}. */
    public static int toI32(float v) {
        return VmMath.lroundfToI32(v);
    }

    /** {@code vm.cast.f32.ui32}. */
    public static int toU32(float v) {
        return (int) VmMath.llroundf(v);
    }

    /** {@code vm.cast.f32.si64}. */
    public static long toI64(float v) {
        return VmMath.llroundf(v);
    }

    /** {@code vm.cast.f32.ui64}. */
    public static long toU64(float v) {
        return VmMath.doubleToU64(VmMath.roundHalfAway(v));
    }
}
