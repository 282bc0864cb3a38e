package dev.ortho.vm.internal.ext;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.internal.isa.ExtF64Ops;
import dev.ortho.vm.spi.ExtensionMachine;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import java.util.List;

/** IREE's ExtF64 opcode set: f64 arithmetic, compares, conversions, globals, lists, buffers. Stateless. */
public final class ExtF64Extension implements InstructionExtension {

    @Override
    public String name() {
        return "ext_f64";
    }

    @Override
    public int prefix() {
        return CoreOps.PREFIX_EXT_F64;
    }

    @Override
    public int feature() {
        return FeatureBits.EXT_F64;
    }

    @Override
    public List<OpDescriptor> ops() {
        return ExtF64Ops.DESCRIPTORS;
    }

    @Override
    public void execute(int opcode, ExtensionMachine m) {
        switch (opcode) {
            case ExtF64Ops.GLOBAL_LOAD_F64 -> {
                int offset = m.readI32();
                m.setI64(m.readU16(), m.globalI64(offset));
            }
            case ExtF64Ops.GLOBAL_STORE_F64 -> {
                int offset = m.readI32();
                m.setGlobalI64(offset, m.i64(m.readU16()));
            }
            case ExtF64Ops.GLOBAL_LOAD_INDIRECT_F64 -> {
                int offset = m.i32(m.readU16());
                m.checkGlobalRange(offset, 8);
                m.setI64(m.readU16(), m.globalI64(offset));
            }
            case ExtF64Ops.GLOBAL_STORE_INDIRECT_F64 -> {
                int offset = m.i32(m.readU16());
                long value = m.i64(m.readU16());
                m.checkGlobalRange(offset, 8);
                m.setGlobalI64(offset, value);
            }
            case ExtF64Ops.CONST_F64_ZERO -> m.setI64(m.readU16(), 0L);
            case ExtF64Ops.CONST_F64 -> {
                long bits = m.readI64();
                m.setI64(m.readU16(), bits);
            }
            case ExtF64Ops.LIST_GET_F64 -> {
                VmList list = m.list(m.readU16());
                int index = m.i32(m.readU16());
                m.setI64(m.readU16(), list.getValueBits(index, ValueType.F64));
            }
            case ExtF64Ops.LIST_SET_F64 -> {
                VmList list = m.list(m.readU16());
                int index = m.i32(m.readU16());
                list.setValueBits(index, ValueType.F64, m.i64(m.readU16()));
            }
            case ExtF64Ops.SELECT_F64 -> {
                int c = m.i32(m.readU16());
                long t = m.i64(m.readU16());
                long f = m.i64(m.readU16());
                m.setI64(m.readU16(), c != 0 ? t : f);
            }
            case ExtF64Ops.SWITCH_F64 -> {
                int index = m.i32(m.readU16());
                long value = m.i64(m.readU16());
                int n = m.readListSize();
                for (int i = 0; i < n; i++) {
                    int reg = m.readU16();
                    if (i == index) {
                        value = m.i64(reg);
                    }
                }
                m.setI64(m.readU16(), value);
            }
            case ExtF64Ops.ADD_F64, ExtF64Ops.SUB_F64, ExtF64Ops.MUL_F64, ExtF64Ops.DIV_F64, ExtF64Ops.REM_F64,
                 ExtF64Ops.ATAN2_F64, ExtF64Ops.POW_F64, ExtF64Ops.MIN_F64, ExtF64Ops.MAX_F64 -> binary(m, opcode);
            case ExtF64Ops.FMAF64 -> {
                double a = d(m, m.readU16());
                double b = d(m, m.readU16());
                double c = d(m, m.readU16());
                // IREE builds without FP_FAST_FMA on x86-64: a separately rounded multiply and add.
                set(m, m.readU16(), a * b + c);
            }
            case ExtF64Ops.ABS_F64, ExtF64Ops.NEG_F64, ExtF64Ops.CEIL_F64, ExtF64Ops.FLOOR_F64, ExtF64Ops.ROUND_F64,
                 ExtF64Ops.ROUND_F64_EVEN, ExtF64Ops.ATAN_F64, ExtF64Ops.COS_F64, ExtF64Ops.SIN_F64, ExtF64Ops.EXP_F64,
                 ExtF64Ops.EXP2_F64, ExtF64Ops.EXP_M1_F64, ExtF64Ops.LOG_F64, ExtF64Ops.LOG10_F64, ExtF64Ops.LOG1P_F64,
                 ExtF64Ops.LOG2_F64, ExtF64Ops.RSQRT_F64, ExtF64Ops.SQRT_F64, ExtF64Ops.TANH_F64,
                 ExtF64Ops.ERF_F64 -> unary(m, opcode);
            case ExtF64Ops.TRUNC_F64_F32 -> {
                double v = d(m, m.readU16());
                m.setI32(m.readU16(), Float.floatToRawIntBits((float) v));
            }
            case ExtF64Ops.EXT_F32_F64 -> {
                float v = Float.intBitsToFloat(m.i32(m.readU16()));
                set(m, m.readU16(), v);
            }
            case ExtF64Ops.CAST_SI32_F64 -> {
                int v = m.i32(m.readU16());
                set(m, m.readU16(), v);
            }
            case ExtF64Ops.CAST_UI32_F64 -> {
                int v = m.i32(m.readU16());
                set(m, m.readU16(), fromU32(v));
            }
            case ExtF64Ops.CAST_SI64_F64 -> {
                long v = m.i64(m.readU16());
                set(m, m.readU16(), fromI64(v));
            }
            case ExtF64Ops.FPOWI_F64 -> {
                double base = d(m, m.readU16());
                long exponent = m.i64(m.readU16());
                set(m, m.readU16(), powi(base, exponent));
            }
            case ExtF64Ops.CAST_UI64_F64 -> {
                long v = m.i64(m.readU16());
                set(m, m.readU16(), fromU64(v));
            }
            case ExtF64Ops.CAST_F64_SI32 -> {
                double v = d(m, m.readU16());
                m.setI32(m.readU16(), toI32(v));
            }
            case ExtF64Ops.CAST_F64_UI32 -> {
                double v = d(m, m.readU16());
                m.setI32(m.readU16(), toU32(v));
            }
            case ExtF64Ops.CAST_F64_SI64 -> {
                double v = d(m, m.readU16());
                m.setI64(m.readU16(), toI64(v));
            }
            case ExtF64Ops.CAST_F64_UI64 -> {
                double v = d(m, m.readU16());
                m.setI64(m.readU16(), toU64(v));
            }
            case ExtF64Ops.BITCAST_I64_F64, ExtF64Ops.BITCAST_F64_I64 -> {
                long v = m.i64(m.readU16());
                m.setI64(m.readU16(), v);
            }
            case ExtF64Ops.CMP_EQF64_O, ExtF64Ops.CMP_EQF64_U, ExtF64Ops.CMP_NEF64_O, ExtF64Ops.CMP_NEF64_U,
                 ExtF64Ops.CMP_LTF64_O, ExtF64Ops.CMP_LTF64_U, ExtF64Ops.CMP_LTEF64_O, ExtF64Ops.CMP_LTEF64_U -> {
                double l = d(m, m.readU16());
                double r = d(m, m.readU16());
                m.setI32(m.readU16(), ExtF32Extension.compare(opcode, l, r, ExtF64Ops.CMP_EQF64_O,
                        ExtF64Ops.CMP_EQF64_U, ExtF64Ops.CMP_NEF64_O, ExtF64Ops.CMP_NEF64_U, ExtF64Ops.CMP_LTF64_O,
                        ExtF64Ops.CMP_LTF64_U, ExtF64Ops.CMP_LTEF64_O) ? 1 : 0);
            }
            case ExtF64Ops.CMP_NA_NF64 -> {
                double v = d(m, m.readU16());
                m.setI32(m.readU16(), Double.isNaN(v) ? 1 : 0);
            }
            case ExtF64Ops.BUFFER_LOAD_F64 -> {
                VmBuffer buffer = m.buffer(m.readU16());
                long index = m.i64(m.readU16());
                set(m, m.readU16(), buffer.loadF64(index));
            }
            case ExtF64Ops.BUFFER_STORE_F64 -> {
                VmBuffer buffer = m.buffer(m.readU16());
                long index = m.i64(m.readU16());
                buffer.storeF64(index, d(m, m.readU16()));
            }
            case ExtF64Ops.BUFFER_FILL_F64 -> {
                VmBuffer buffer = m.buffer(m.readU16());
                long offset = m.i64(m.readU16());
                long length = m.i64(m.readU16());
                buffer.fillElements(offset, length, 8, m.i64(m.readU16()));
            }
            default -> throw new StatusException(StatusCode.UNIMPLEMENTED,
                    "unhandled ext_f64 opcode 0x" + Integer.toHexString(opcode));
        }
    }

    private static double d(ExtensionMachine m, int reg) {
        return Double.longBitsToDouble(m.i64(reg));
    }

    private static void set(ExtensionMachine m, int reg, double value) {
        m.setI64(reg, Double.doubleToRawLongBits(value));
    }

    private static void binary(ExtensionMachine m, int opcode) {
        double l = d(m, m.readU16());
        double r = d(m, m.readU16());
        double v = switch (opcode) {
            case ExtF64Ops.ADD_F64 -> l + r;
            case ExtF64Ops.SUB_F64 -> l - r;
            case ExtF64Ops.MUL_F64 -> l * r;
            case ExtF64Ops.DIV_F64 -> l / r;
            case ExtF64Ops.REM_F64 -> rem(l, r);
            case ExtF64Ops.ATAN2_F64 -> atan2(l, r);
            case ExtF64Ops.POW_F64 -> pow(l, r);
            case ExtF64Ops.MIN_F64 -> r < l ? r : l;
            default -> l < r ? r : l; // MAX_F64
        };
        set(m, m.readU16(), v);
    }

    private static void unary(ExtensionMachine m, int opcode) {
        double x = d(m, m.readU16());
        double v = switch (opcode) {
            case ExtF64Ops.ABS_F64 -> Math.abs(x);
            case ExtF64Ops.NEG_F64 -> -x;
            case ExtF64Ops.CEIL_F64 -> ceil(x);
            case ExtF64Ops.FLOOR_F64 -> floor(x);
            case ExtF64Ops.ROUND_F64 -> round(x);
            case ExtF64Ops.ROUND_F64_EVEN -> roundEven(x);
            case ExtF64Ops.ATAN_F64 -> atan(x);
            case ExtF64Ops.COS_F64 -> cos(x);
            case ExtF64Ops.SIN_F64 -> sin(x);
            case ExtF64Ops.EXP_F64 -> exp(x);
            case ExtF64Ops.EXP2_F64 -> exp2(x);
            case ExtF64Ops.EXP_M1_F64 -> expm1(x);
            case ExtF64Ops.LOG_F64 -> log(x);
            case ExtF64Ops.LOG10_F64 -> log10(x);
            case ExtF64Ops.LOG1P_F64 -> log1p(x);
            case ExtF64Ops.LOG2_F64 -> log2(x);
            case ExtF64Ops.RSQRT_F64 -> rsqrt(x);
            case ExtF64Ops.SQRT_F64 -> Math.sqrt(x);
            case ExtF64Ops.TANH_F64 -> tanh(x);
            default -> erf(x); // ERF_F64
        };
        set(m, m.readU16(), v);
    }

    // The value of each op that reads and writes only registers: the one definition the
    // interpreter above and compiled code (FloatOpEmitter calls them by name) share.

    public static double rem(double l, double r) {
        return VmMath.remainder(l, r);
    }

    public static double atan2(double l, double r) {
        return Math.atan2(l, r);
    }

    public static double pow(double l, double r) {
        return Math.pow(l, r);
    }

    public static double ceil(double x) {
        return Math.ceil(x);
    }

    public static double floor(double x) {
        return Math.floor(x);
    }

    public static double round(double x) {
        return VmMath.roundHalfAway(x);
    }

    public static double roundEven(double x) {
        return VmMath.roundEven(x);
    }

    public static double atan(double x) {
        return Math.atan(x);
    }

    public static double cos(double x) {
        return Math.cos(x);
    }

    public static double sin(double x) {
        return Math.sin(x);
    }

    public static double exp(double x) {
        return Math.exp(x);
    }

    public static double exp2(double x) {
        return VmMath.exp2(x);
    }

    public static double expm1(double x) {
        return Math.expm1(x);
    }

    public static double log(double x) {
        return Math.log(x);
    }

    public static double log10(double x) {
        return Math.log10(x);
    }

    public static double log1p(double x) {
        return Math.log1p(x);
    }

    public static double log2(double x) {
        return VmMath.log2(x);
    }

    public static double rsqrt(double x) {
        return 1.0 / Math.sqrt(x);
    }

    public static double tanh(double x) {
        return Math.tanh(x);
    }

    public static double erf(double x) {
        return VmMath.erf(x);
    }

    public static double powi(double base, long exponent) {
        return VmMath.powi(base, exponent);
    }

    /** {@code vm.cast.ui32.f64}. */
    public static double fromU32(int v) {
        return v & 0xFFFF_FFFFL;
    }

    /** {@code vm.cast.si64.f64}. */
    public static double fromI64(long v) {
        return v;
    }

    /** {@code vm.cast.ui64.f64}. */
    public static double fromU64(long v) {
        return VmMath.u64ToF64(v);
    }

    /** {@code vm.cast.f64.si32}: IREE rounds through lroundf, the double narrowed to float first. */
    public static int toI32(double v) {
        return VmMath.lroundfToI32((float) v);
    }

    /** {@code vm.cast.f64.ui32}: through llroundf, as {@link #toI32}. */
    public static int toU32(double v) {
        return (int) VmMath.llroundf((float) v);
    }

    /** {@code vm.cast.f64.si64} (llround). */
    public static long toI64(double v) {
        return VmMath.llround(v);
    }

    /** {@code vm.cast.f64.ui64}: llround too, as IREE's runtime. */
    public static long toU64(double v) {
        return VmMath.llround(v);
    }
}
