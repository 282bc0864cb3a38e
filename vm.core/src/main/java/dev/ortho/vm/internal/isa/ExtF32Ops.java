package dev.ortho.vm.internal.isa;

import dev.ortho.vm.spi.OpDescriptor;
import dev.ortho.vm.spi.OperandKind;
import dev.ortho.vm.spi.OperandSpec;
import java.util.List;

/**
 * The f32 extension opcode set (after prefix {@link CoreOps#PREFIX_EXT_F32}, feature EXT_F32).
 * Opcode numbers, mnemonics and field layouts are IREE bytecode 17.0 facts
 * ({@code vm/bytecode/isa/isa.json}), transcribed mechanically from it: change it only to follow IREE.
 */
public final class ExtF32Ops {
    public static final int GLOBAL_LOAD_F32 = 0x00;
    public static final int GLOBAL_STORE_F32 = 0x01;
    public static final int GLOBAL_LOAD_INDIRECT_F32 = 0x02;
    public static final int GLOBAL_STORE_INDIRECT_F32 = 0x03;
    public static final int CONST_F32_ZERO = 0x04;
    public static final int CONST_F32 = 0x05;
    public static final int LIST_GET_F32 = 0x06;
    public static final int LIST_SET_F32 = 0x07;
    public static final int SELECT_F32 = 0x08;
    public static final int SWITCH_F32 = 0x09;
    public static final int ADD_F32 = 0x0A;
    public static final int SUB_F32 = 0x0B;
    public static final int MUL_F32 = 0x0C;
    public static final int DIV_F32 = 0x0D;
    public static final int REM_F32 = 0x0E;
    public static final int FMAF32 = 0x0F;
    public static final int ABS_F32 = 0x10;
    public static final int NEG_F32 = 0x11;
    public static final int CEIL_F32 = 0x12;
    public static final int FLOOR_F32 = 0x13;
    public static final int CAST_SI32_F32 = 0x14;
    public static final int CAST_UI32_F32 = 0x15;
    public static final int CAST_F32_SI32 = 0x16;
    public static final int CAST_F32_UI32 = 0x17;
    public static final int BITCAST_I32_F32 = 0x18;
    public static final int BITCAST_F32_I32 = 0x19;
    public static final int ATAN_F32 = 0x1A;
    public static final int ATAN2_F32 = 0x1B;
    public static final int COS_F32 = 0x1C;
    public static final int SIN_F32 = 0x1D;
    public static final int EXP_F32 = 0x1E;
    public static final int EXP2_F32 = 0x1F;
    public static final int EXP_M1_F32 = 0x20;
    public static final int LOG_F32 = 0x21;
    public static final int LOG10_F32 = 0x22;
    public static final int LOG1P_F32 = 0x23;
    public static final int LOG2_F32 = 0x24;
    public static final int POW_F32 = 0x25;
    public static final int RSQRT_F32 = 0x26;
    public static final int SQRT_F32 = 0x27;
    public static final int TANH_F32 = 0x28;
    public static final int ERF_F32 = 0x29;
    public static final int CMP_EQF32_O = 0x2A;
    public static final int CMP_EQF32_U = 0x2B;
    public static final int CMP_NEF32_O = 0x2C;
    public static final int CMP_NEF32_U = 0x2D;
    public static final int CMP_LTF32_O = 0x2E;
    public static final int CMP_LTF32_U = 0x2F;
    public static final int CMP_LTEF32_O = 0x30;
    public static final int CMP_LTEF32_U = 0x31;
    public static final int CMP_NA_NF32 = 0x32;
    public static final int BUFFER_LOAD_F32 = 0x33;
    public static final int BUFFER_STORE_F32 = 0x34;
    public static final int BUFFER_FILL_F32 = 0x35;
    public static final int ROUND_F32 = 0x36;
    public static final int MIN_F32 = 0x37;
    public static final int MAX_F32 = 0x38;
    public static final int ROUND_F32_EVEN = 0x39;
    public static final int CAST_F32_SI64 = 0x3A;
    public static final int CAST_F32_UI64 = 0x3B;
    public static final int CAST_SI64_F32 = 0x3C;
    public static final int CAST_UI64_F32 = 0x3D;
    /**
     * {@code vm.fpowi.f32}: an f32 raised to an i64 power. Added by IREE after the 17.0
     * {@code isa.json} snapshot (iree-compile 3.12 emits it for integer-exponent {@code Pow}).
     */
    public static final int FPOWI_F32 = 0x3E;

    /** Descriptors of every instruction with a mnemonic, in opcode order. */
    public static final List<OpDescriptor> DESCRIPTORS = List.of(
            new OpDescriptor(GLOBAL_LOAD_F32, "global.load.f32", "GlobalLoadF32", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(GLOBAL_STORE_F32, "global.store.f32", "GlobalStoreF32", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f32", false, false))),
            new OpDescriptor(GLOBAL_LOAD_INDIRECT_F32, "global.load.indirect.f32", "GlobalLoadIndirectF32", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(GLOBAL_STORE_INDIRECT_F32, "global.store.indirect.f32", "GlobalStoreIndirectF32", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f32", false, false))),
            new OpDescriptor(CONST_F32_ZERO, "const.f32.zero", "ConstF32Zero", List.of(
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CONST_F32, "const.f32", "ConstF32", List.of(
                    new OperandSpec("value", OperandKind.ATTRIBUTE, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(LIST_GET_F32, "list.get.f32", "ListGetF32", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(LIST_SET_F32, "list.set.f32", "ListSetF32", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f32", false, false))),
            new OpDescriptor(SELECT_F32, "select.f32", "SelectF32", List.of(
                    new OperandSpec("condition", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("true_value", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("false_value", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(SWITCH_F32, "switch.f32", "SwitchF32", List.of(
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("default_value", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("values", OperandKind.VARIADIC_OPERANDS, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(ADD_F32, "add.f32", "AddF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(SUB_F32, "sub.f32", "SubF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(MUL_F32, "mul.f32", "MulF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(DIV_F32, "div.f32", "DivF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(REM_F32, "rem.f32", "RemF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(FMAF32, "fma.f32", "FMAF32", List.of(
                    new OperandSpec("first", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("second", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("third", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(ABS_F32, "abs.f32", "AbsF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(NEG_F32, "neg.f32", "NegF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CEIL_F32, "ceil.f32", "CeilF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(FLOOR_F32, "floor.f32", "FloorF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CAST_SI32_F32, "cast.si32.f32", "CastSI32F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CAST_UI32_F32, "cast.ui32.f32", "CastUI32F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CAST_F32_SI32, "cast.f32.si32", "CastF32SI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CAST_F32_UI32, "cast.f32.ui32", "CastF32UI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BITCAST_I32_F32, "bitcast.i32.f32", "BitcastI32F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(BITCAST_F32_I32, "bitcast.f32.i32", "BitcastF32I32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(ATAN_F32, "atan.f32", "AtanF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(ATAN2_F32, "atan2.f32", "Atan2F32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(COS_F32, "cos.f32", "CosF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(SIN_F32, "sin.f32", "SinF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(EXP_F32, "exp.f32", "ExpF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(EXP2_F32, "exp2.f32", "Exp2F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(EXP_M1_F32, "expm1.f32", "ExpM1F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(LOG_F32, "log.f32", "LogF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(LOG10_F32, "log10.f32", "Log10F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(LOG1P_F32, "log1p.f32", "Log1pF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(LOG2_F32, "log2.f32", "Log2F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(POW_F32, "pow.f32", "PowF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(RSQRT_F32, "rsqrt.f32", "RsqrtF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(SQRT_F32, "sqrt.f32", "SqrtF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(TANH_F32, "tanh.f32", "TanhF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(ERF_F32, "erf.f32", "ErfF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CMP_EQF32_O, "cmp.eq.f32.o", "CmpEQF32O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_EQF32_U, "cmp.eq.f32.u", "CmpEQF32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NEF32_O, "cmp.ne.f32.o", "CmpNEF32O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NEF32_U, "cmp.ne.f32.u", "CmpNEF32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTF32_O, "cmp.lt.f32.o", "CmpLTF32O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTF32_U, "cmp.lt.f32.u", "CmpLTF32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTEF32_O, "cmp.lte.f32.o", "CmpLTEF32O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTEF32_U, "cmp.lte.f32.u", "CmpLTEF32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NA_NF32, "cmp.nan.f32", "CmpNaNF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_LOAD_F32, "buffer.load.f32", "BufferLoadF32", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(BUFFER_STORE_F32, "buffer.store.f32", "BufferStoreF32", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f32", false, false))),
            new OpDescriptor(BUFFER_FILL_F32, "buffer.fill.f32", "BufferFillF32", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f32", false, false))),
            new OpDescriptor(ROUND_F32, "round.f32", "RoundF32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(MIN_F32, "min.f32", "MinF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(MAX_F32, "max.f32", "MaxF32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(ROUND_F32_EVEN, "round.f32.even", "RoundF32Even", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CAST_F32_SI64, "cast.f32.si64", "CastF32SI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(CAST_F32_UI64, "cast.f32.ui64", "CastF32UI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(CAST_SI64_F32, "cast.si64.f32", "CastSI64F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(CAST_UI64_F32, "cast.ui64.f32", "CastUI64F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(FPOWI_F32, "fpowi.f32", "FPowI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))));

    private ExtF32Ops() {
    }
}
