package dev.ortho.vm.internal.isa;

import dev.ortho.vm.spi.OpDescriptor;
import dev.ortho.vm.spi.OperandKind;
import dev.ortho.vm.spi.OperandSpec;
import java.util.List;

/**
 * The f64 extension opcode set (after prefix {@link CoreOps#PREFIX_EXT_F64}, feature EXT_F64).
 * Opcode numbers, mnemonics and field layouts are IREE bytecode 17.0 facts
 * ({@code vm/bytecode/isa/isa.json}), transcribed mechanically from it: change it only to follow IREE.
 */
public final class ExtF64Ops {
    public static final int GLOBAL_LOAD_F64 = 0x00;
    public static final int GLOBAL_STORE_F64 = 0x01;
    public static final int GLOBAL_LOAD_INDIRECT_F64 = 0x02;
    public static final int GLOBAL_STORE_INDIRECT_F64 = 0x03;
    public static final int CONST_F64_ZERO = 0x04;
    public static final int CONST_F64 = 0x05;
    public static final int LIST_GET_F64 = 0x06;
    public static final int LIST_SET_F64 = 0x07;
    public static final int SELECT_F64 = 0x08;
    public static final int SWITCH_F64 = 0x09;
    public static final int ADD_F64 = 0x0A;
    public static final int SUB_F64 = 0x0B;
    public static final int MUL_F64 = 0x0C;
    public static final int DIV_F64 = 0x0D;
    public static final int REM_F64 = 0x0E;
    public static final int FMAF64 = 0x0F;
    public static final int ABS_F64 = 0x10;
    public static final int NEG_F64 = 0x11;
    public static final int CEIL_F64 = 0x12;
    public static final int FLOOR_F64 = 0x13;
    public static final int TRUNC_F64_F32 = 0x14;
    public static final int EXT_F32_F64 = 0x15;
    public static final int CAST_SI32_F64 = 0x16;
    public static final int CAST_UI32_F64 = 0x17;
    public static final int CAST_F64_SI32 = 0x18;
    public static final int CAST_F64_UI32 = 0x19;
    public static final int CAST_SI64_F64 = 0x1A;
    public static final int CAST_UI64_F64 = 0x1B;
    public static final int CAST_F64_SI64 = 0x1C;
    public static final int CAST_F64_UI64 = 0x1D;
    public static final int BITCAST_I64_F64 = 0x1E;
    public static final int BITCAST_F64_I64 = 0x1F;
    public static final int ATAN_F64 = 0x20;
    public static final int ATAN2_F64 = 0x21;
    public static final int COS_F64 = 0x22;
    public static final int SIN_F64 = 0x23;
    public static final int EXP_F64 = 0x24;
    public static final int EXP2_F64 = 0x25;
    public static final int EXP_M1_F64 = 0x26;
    public static final int LOG_F64 = 0x27;
    public static final int LOG10_F64 = 0x28;
    public static final int LOG1P_F64 = 0x29;
    public static final int LOG2_F64 = 0x2A;
    public static final int POW_F64 = 0x2B;
    public static final int RSQRT_F64 = 0x2C;
    public static final int SQRT_F64 = 0x2D;
    public static final int TANH_F64 = 0x2E;
    public static final int ERF_F64 = 0x2F;
    public static final int CMP_EQF64_O = 0x30;
    public static final int CMP_EQF64_U = 0x31;
    public static final int CMP_NEF64_O = 0x32;
    public static final int CMP_NEF64_U = 0x33;
    public static final int CMP_LTF64_O = 0x34;
    public static final int CMP_LTF64_U = 0x35;
    public static final int CMP_LTEF64_O = 0x36;
    public static final int CMP_LTEF64_U = 0x37;
    public static final int CMP_NA_NF64 = 0x38;
    public static final int BUFFER_LOAD_F64 = 0x39;
    public static final int BUFFER_STORE_F64 = 0x3A;
    public static final int BUFFER_FILL_F64 = 0x3B;
    public static final int ROUND_F64 = 0x3C;
    public static final int MIN_F64 = 0x3D;
    public static final int MAX_F64 = 0x3E;
    public static final int ROUND_F64_EVEN = 0x3F;
    /** {@code vm.fpowi.f64}: an f64 raised to an i64 power (after the 17.0 snapshot, as FPOWI_F32). */
    public static final int FPOWI_F64 = 0x40;

    /** Descriptors of every instruction with a mnemonic, in opcode order. */
    public static final List<OpDescriptor> DESCRIPTORS = List.of(
            new OpDescriptor(GLOBAL_LOAD_F64, "global.load.f64", "GlobalLoadF64", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(GLOBAL_STORE_F64, "global.store.f64", "GlobalStoreF64", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f64", false, false))),
            new OpDescriptor(GLOBAL_LOAD_INDIRECT_F64, "global.load.indirect.f64", "GlobalLoadIndirectF64", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(GLOBAL_STORE_INDIRECT_F64, "global.store.indirect.f64", "GlobalStoreIndirectF64", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f64", false, false))),
            new OpDescriptor(CONST_F64_ZERO, "const.f64.zero", "ConstF64Zero", List.of(
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CONST_F64, "const.f64", "ConstF64", List.of(
                    new OperandSpec("value", OperandKind.ATTRIBUTE, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(LIST_GET_F64, "list.get.f64", "ListGetF64", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(LIST_SET_F64, "list.set.f64", "ListSetF64", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f64", false, false))),
            new OpDescriptor(SELECT_F64, "select.f64", "SelectF64", List.of(
                    new OperandSpec("condition", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("true_value", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("false_value", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(SWITCH_F64, "switch.f64", "SwitchF64", List.of(
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("default_value", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("values", OperandKind.VARIADIC_OPERANDS, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(ADD_F64, "add.f64", "AddF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(SUB_F64, "sub.f64", "SubF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(MUL_F64, "mul.f64", "MulF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(DIV_F64, "div.f64", "DivF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(REM_F64, "rem.f64", "RemF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(FMAF64, "fma.f64", "FMAF64", List.of(
                    new OperandSpec("first", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("second", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("third", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(ABS_F64, "abs.f64", "AbsF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(NEG_F64, "neg.f64", "NegF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CEIL_F64, "ceil.f64", "CeilF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(FLOOR_F64, "floor.f64", "FloorF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(TRUNC_F64_F32, "trunc.f64.f32", "TruncF64F32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f32", true, false))),
            new OpDescriptor(EXT_F32_F64, "ext.f32.f64", "ExtF32F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CAST_SI32_F64, "cast.si32.f64", "CastSI32F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CAST_UI32_F64, "cast.ui32.f64", "CastUI32F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CAST_F64_SI32, "cast.f64.si32", "CastF64SI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CAST_F64_UI32, "cast.f64.ui32", "CastF64UI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CAST_SI64_F64, "cast.si64.f64", "CastSI64F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CAST_UI64_F64, "cast.ui64.f64", "CastUI64F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CAST_F64_SI64, "cast.f64.si64", "CastF64SI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(CAST_F64_UI64, "cast.f64.ui64", "CastF64UI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(BITCAST_I64_F64, "bitcast.i64.f64", "BitcastI64F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(BITCAST_F64_I64, "bitcast.f64.i64", "BitcastF64I64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(ATAN_F64, "atan.f64", "AtanF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(ATAN2_F64, "atan2.f64", "Atan2F64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(COS_F64, "cos.f64", "CosF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(SIN_F64, "sin.f64", "SinF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(EXP_F64, "exp.f64", "ExpF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(EXP2_F64, "exp2.f64", "Exp2F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(EXP_M1_F64, "expm1.f64", "ExpM1F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(LOG_F64, "log.f64", "LogF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(LOG10_F64, "log10.f64", "Log10F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(LOG1P_F64, "log1p.f64", "Log1pF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(LOG2_F64, "log2.f64", "Log2F64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(POW_F64, "pow.f64", "PowF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(RSQRT_F64, "rsqrt.f64", "RsqrtF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(SQRT_F64, "sqrt.f64", "SqrtF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(TANH_F64, "tanh.f64", "TanhF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(ERF_F64, "erf.f64", "ErfF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(CMP_EQF64_O, "cmp.eq.f64.o", "CmpEQF64O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_EQF64_U, "cmp.eq.f64.u", "CmpEQF64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NEF64_O, "cmp.ne.f64.o", "CmpNEF64O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NEF64_U, "cmp.ne.f64.u", "CmpNEF64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTF64_O, "cmp.lt.f64.o", "CmpLTF64O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTF64_U, "cmp.lt.f64.u", "CmpLTF64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTEF64_O, "cmp.lte.f64.o", "CmpLTEF64O", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTEF64_U, "cmp.lte.f64.u", "CmpLTEF64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NA_NF64, "cmp.nan.f64", "CmpNaNF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_LOAD_F64, "buffer.load.f64", "BufferLoadF64", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(BUFFER_STORE_F64, "buffer.store.f64", "BufferStoreF64", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f64", false, false))),
            new OpDescriptor(BUFFER_FILL_F64, "buffer.fill.f64", "BufferFillF64", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "f64", false, false))),
            new OpDescriptor(ROUND_F64, "round.f64", "RoundF64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(MIN_F64, "min.f64", "MinF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(MAX_F64, "max.f64", "MaxF64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(ROUND_F64_EVEN, "round.f64.even", "RoundF64Even", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))),
            new OpDescriptor(FPOWI_F64, "fpowi.f64", "FPowI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "f64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "f64", true, false))));

    private ExtF64Ops() {
    }
}
