package dev.ortho.vm.internal.isa;

import static dev.ortho.vm.internal.isa.CoreOps.*;

import dev.ortho.vm.spi.OpDescriptor;
import dev.ortho.vm.spi.OperandKind;
import dev.ortho.vm.spi.OperandSpec;
import java.util.List;

/**
 * Operand layouts of the core opcode set ({@link CoreOps}): for each instruction its mnemonic,
 * IREE's op name and its operands in encoding order, read by the assembler, the disassembler and
 * the round-trip tests. IREE bytecode 17.0 facts ({@code vm/bytecode/isa/isa.json}), transcribed
 * mechanically from it: change it only to follow IREE.
 */
final class CoreOpDescriptors {
    /** Descriptors of every instruction with a mnemonic, in opcode order. */
    static final List<OpDescriptor> DESCRIPTORS = List.of(
            new OpDescriptor(GLOBAL_LOAD_I32, "global.load.i32", "GlobalLoadI32", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(GLOBAL_STORE_I32, "global.store.i32", "GlobalStoreI32", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(GLOBAL_LOAD_INDIRECT_I32, "global.load.indirect.i32", "GlobalLoadIndirectI32", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(GLOBAL_STORE_INDIRECT_I32, "global.store.indirect.i32", "GlobalStoreIndirectI32", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(GLOBAL_LOAD_I64, "global.load.i64", "GlobalLoadI64", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(GLOBAL_STORE_I64, "global.store.i64", "GlobalStoreI64", List.of(
                    new OperandSpec("byte_offset", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i64", false, false))),
            new OpDescriptor(GLOBAL_LOAD_INDIRECT_I64, "global.load.indirect.i64", "GlobalLoadIndirectI64", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(GLOBAL_STORE_INDIRECT_I64, "global.store.indirect.i64", "GlobalStoreIndirectI64", List.of(
                    new OperandSpec("byte_offset", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i64", false, false))),
            new OpDescriptor(GLOBAL_LOAD_REF, "global.load.ref", "GlobalLoadRef", List.of(
                    new OperandSpec("global", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("type_def", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(GLOBAL_STORE_REF, "global.store.ref", "GlobalStoreRef", List.of(
                    new OperandSpec("global", OperandKind.GLOBAL_ATTR, null, false, false),
                    new OperandSpec("type_def", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "ref", false, true))),
            new OpDescriptor(GLOBAL_LOAD_INDIRECT_REF, "global.load.indirect.ref", "GlobalLoadIndirectRef", List.of(
                    new OperandSpec("global", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("type_def", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(GLOBAL_STORE_INDIRECT_REF, "global.store.indirect.ref", "GlobalStoreIndirectRef", List.of(
                    new OperandSpec("global", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("type_def", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "ref", false, true))),
            new OpDescriptor(CONST_I32_ZERO, "const.i32.zero", "ConstI32Zero", List.of(
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CONST_I32, "const.i32", "ConstI32", List.of(
                    new OperandSpec("value", OperandKind.ATTRIBUTE, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CONST_I64_ZERO, "const.i64.zero", "ConstI64Zero", List.of(
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(CONST_I64, "const.i64", "ConstI64", List.of(
                    new OperandSpec("value", OperandKind.ATTRIBUTE, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(CONST_REF_ZERO, "const.ref.zero", "ConstRefZero", List.of(
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(CONST_REF_RODATA, "const.ref.rodata", "ConstRefRodata", List.of(
                    new OperandSpec("rodata", OperandKind.RODATA_ATTR, null, false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(LIST_ALLOC, "list.alloc", "ListAlloc", List.of(
                    new OperandSpec("element_type", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("initial_capacity", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(LIST_RESERVE, "list.reserve", "ListReserve", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("minimum_capacity", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(LIST_SIZE, "list.size", "ListSize", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(LIST_RESIZE, "list.resize", "ListResize", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("new_size", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(LIST_GET_I32, "list.get.i32", "ListGetI32", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(LIST_SET_I32, "list.set.i32", "ListSetI32", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(LIST_GET_I64, "list.get.i64", "ListGetI64", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(LIST_SET_I64, "list.set.i64", "ListSetI64", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i64", false, false))),
            new OpDescriptor(LIST_GET_REF, "list.get.ref", "ListGetRef", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("type_def", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(LIST_SET_REF, "list.set.ref", "ListSetRef", List.of(
                    new OperandSpec("list", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "ref", false, true))),
            new OpDescriptor(SELECT_I32, "select.i32", "SelectI32", List.of(
                    new OperandSpec("condition", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("true_value", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("false_value", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(SELECT_I64, "select.i64", "SelectI64", List.of(
                    new OperandSpec("condition", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("true_value", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("false_value", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(SELECT_REF, "select.ref", "SelectRef", List.of(
                    new OperandSpec("condition", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("true_value_type_def", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("true_value", OperandKind.REGISTER, "ref", false, true),
                    new OperandSpec("false_value", OperandKind.REGISTER, "ref", false, true),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(SWITCH_I32, "switch.i32", "SwitchI32", List.of(
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("default_value", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("values", OperandKind.VARIADIC_OPERANDS, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(SWITCH_I64, "switch.i64", "SwitchI64", List.of(
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("default_value", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("values", OperandKind.VARIADIC_OPERANDS, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(SWITCH_REF, "switch.ref", "SwitchRef", List.of(
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("type_def", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("default_value", OperandKind.REGISTER, "ref", false, true),
                    new OperandSpec("values", OperandKind.VARIADIC_OPERANDS, "ref", false, true),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(ADD_I32, "add.i32", "AddI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(SUB_I32, "sub.i32", "SubI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(MUL_I32, "mul.i32", "MulI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(DIV_I32_S, "div.i32.s", "DivI32S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(DIV_I32_U, "div.i32.u", "DivI32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(REM_I32_S, "rem.i32.s", "RemI32S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(REM_I32_U, "rem.i32.u", "RemI32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(FMAI32, "fma.i32", "FMAI32", List.of(
                    new OperandSpec("first", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("second", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("third", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(ADD_I64, "add.i64", "AddI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(SUB_I64, "sub.i64", "SubI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(MUL_I64, "mul.i64", "MulI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(DIV_I64_S, "div.i64.s", "DivI64S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(DIV_I64_U, "div.i64.u", "DivI64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(REM_I64_S, "rem.i64.s", "RemI64S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(REM_I64_U, "rem.i64.u", "RemI64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(FMAI64, "fma.i64", "FMAI64", List.of(
                    new OperandSpec("first", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("second", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("third", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(NOT_I32, "not.i32", "NotI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(AND_I32, "and.i32", "AndI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(OR_I32, "or.i32", "OrI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(XOR_I32, "xor.i32", "XorI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(NOT_I64, "not.i64", "NotI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(AND_I64, "and.i64", "AndI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(OR_I64, "or.i64", "OrI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(XOR_I64, "xor.i64", "XorI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(SHL_I32, "shl.i32", "ShlI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("amount", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(SHR_I32_S, "shr.i32.s", "ShrI32S", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("amount", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(SHR_I32_U, "shr.i32.u", "ShrI32U", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("amount", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(SHL_I64, "shl.i64", "ShlI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("amount", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(SHR_I64_S, "shr.i64.s", "ShrI64S", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("amount", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(SHR_I64_U, "shr.i64.u", "ShrI64U", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("amount", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(TRUNC_I32_I8, "trunc.i32.i8", "TruncI32I8", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(TRUNC_I32_I16, "trunc.i32.i16", "TruncI32I16", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(TRUNC_I64_I32, "trunc.i64.i32", "TruncI64I32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(EXT_I8_I32_S, "ext.i8.i32.s", "ExtI8I32S", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(EXT_I8_I32_U, "ext.i8.i32.u", "ExtI8I32U", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(EXT_I16_I32_S, "ext.i16.i32.s", "ExtI16I32S", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(EXT_I16_I32_U, "ext.i16.i32.u", "ExtI16I32U", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(EXT_I32_I64_S, "ext.i32.i64.s", "ExtI32I64S", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(EXT_I32_I64_U, "ext.i32.i64.u", "ExtI32I64U", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(CMP_EQI32, "cmp.eq.i32", "CmpEQI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NEI32, "cmp.ne.i32", "CmpNEI32", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTI32_S, "cmp.lt.i32.s", "CmpLTI32S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTI32_U, "cmp.lt.i32.u", "CmpLTI32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NZI32, "cmp.nz.i32", "CmpNZI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_EQI64, "cmp.eq.i64", "CmpEQI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NEI64, "cmp.ne.i64", "CmpNEI64", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTI64_S, "cmp.lt.i64.s", "CmpLTI64S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_LTI64_U, "cmp.lt.i64.u", "CmpLTI64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NZI64, "cmp.nz.i64", "CmpNZI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_EQREF, "cmp.eq.ref", "CmpEQRef", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NEREF, "cmp.ne.ref", "CmpNERef", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CMP_NZREF, "cmp.nz.ref", "CmpNZRef", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BRANCH, "br", "Branch", List.of(
                    new OperandSpec("dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("operands", OperandKind.BRANCH_OPERANDS, null, false, false))),
            new OpDescriptor(COND_BRANCH, "cond_br", "CondBranch", List.of(
                    new OperandSpec("condition", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("true_dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("true_operands", OperandKind.BRANCH_OPERANDS, null, false, false),
                    new OperandSpec("false_dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("false_operands", OperandKind.BRANCH_OPERANDS, null, false, false))),
            new OpDescriptor(CALL, "call", "Call", List.of(
                    new OperandSpec("callee_ordinal", OperandKind.FUNC_ATTR, null, false, false),
                    new OperandSpec("operands", OperandKind.VARIADIC_OPERANDS, "any", false, false),
                    new OperandSpec("results", OperandKind.VARIADIC_RESULTS, "any", false, false))),
            new OpDescriptor(CALL_VARIADIC, "call.variadic", "CallVariadic", List.of(
                    new OperandSpec("callee_ordinal", OperandKind.FUNC_ATTR, null, false, false),
                    new OperandSpec("segment_sizes", OperandKind.VARIADIC_OPERANDS, "i32", false, false),
                    new OperandSpec("operands", OperandKind.VARIADIC_OPERANDS, "any", false, false),
                    new OperandSpec("results", OperandKind.VARIADIC_RESULTS, "any", false, false))),
            new OpDescriptor(RETURN, "return", "Return", List.of(
                    new OperandSpec("operands", OperandKind.VARIADIC_OPERANDS, "any", false, false))),
            new OpDescriptor(FAIL, "fail", "Fail", List.of(
                    new OperandSpec("status", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("message", OperandKind.STRING_ATTR, null, false, false))),
            new OpDescriptor(IMPORT_RESOLVED, "import.resolved", "ImportResolved", List.of(
                    new OperandSpec("import_ordinal", OperandKind.FUNC_ATTR, null, false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(YIELD, "yield", "Yield", List.of(
                    new OperandSpec("dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("operands", OperandKind.BRANCH_OPERANDS, null, false, false))),
            new OpDescriptor(TRACE, "trace", "Trace", List.of(
                    new OperandSpec("event_name", OperandKind.STRING_ATTR, null, false, false),
                    new OperandSpec("operands", OperandKind.VARIADIC_OPERANDS, "any", false, false))),
            new OpDescriptor(PRINT, "print", "Print", List.of(
                    new OperandSpec("event_name", OperandKind.STRING_ATTR, null, false, false),
                    new OperandSpec("operands", OperandKind.VARIADIC_OPERANDS, "any", false, false))),
            new OpDescriptor(COND_BREAK, "cond_break", "CondBreak", List.of(
                    new OperandSpec("condition", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("operands", OperandKind.BRANCH_OPERANDS, null, false, false))),
            new OpDescriptor(BREAK, "break", "Break", List.of(
                    new OperandSpec("dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("operands", OperandKind.BRANCH_OPERANDS, null, false, false))),
            new OpDescriptor(BUFFER_LOAD_I8_U, "buffer.load.i8.u", "BufferLoadI8U", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_LOAD_I8_S, "buffer.load.i8.s", "BufferLoadI8S", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_LOAD_I16_U, "buffer.load.i16.u", "BufferLoadI16U", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_LOAD_I16_S, "buffer.load.i16.s", "BufferLoadI16S", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_LOAD_I32, "buffer.load.i32", "BufferLoadI32", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_LOAD_I64, "buffer.load.i64", "BufferLoadI64", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(BUFFER_STORE_I8, "buffer.store.i8", "BufferStoreI8", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(BUFFER_STORE_I16, "buffer.store.i16", "BufferStoreI16", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(BUFFER_STORE_I32, "buffer.store.i32", "BufferStoreI32", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(BUFFER_STORE_I64, "buffer.store.i64", "BufferStoreI64", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i64", false, false))),
            new OpDescriptor(BUFFER_ALLOC, "buffer.alloc", "BufferAlloc", List.of(
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("alignment", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(BUFFER_CLONE, "buffer.clone", "BufferClone", List.of(
                    new OperandSpec("source", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("alignment", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(BUFFER_LENGTH, "buffer.length", "BufferLength", List.of(
                    new OperandSpec("buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(BUFFER_COPY, "buffer.copy", "BufferCopy", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false))),
            new OpDescriptor(BUFFER_COMPARE, "buffer.compare", "BufferCompare", List.of(
                    new OperandSpec("lhs_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("lhs_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("rhs_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("rhs_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(BUFFER_FILL_I8, "buffer.fill.i8", "BufferFillI8", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(BUFFER_FILL_I16, "buffer.fill.i16", "BufferFillI16", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(BUFFER_FILL_I32, "buffer.fill.i32", "BufferFillI32", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i32", false, false))),
            new OpDescriptor(BUFFER_FILL_I64, "buffer.fill.i64", "BufferFillI64", List.of(
                    new OperandSpec("target_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("target_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("value", OperandKind.REGISTER, "i64", false, false))),
            new OpDescriptor(CTLZ_I32, "ctlz.i32", "CtlzI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(CTLZ_I64, "ctlz.i64", "CtlzI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(ABS_I32, "abs.i32", "AbsI32", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(ABS_I64, "abs.i64", "AbsI64", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(MIN_I32_S, "min.i32.s", "MinI32S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(MIN_I32_U, "min.i32.u", "MinI32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(MAX_I32_S, "max.i32.s", "MaxI32S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(MAX_I32_U, "max.i32.u", "MaxI32U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i32", true, false))),
            new OpDescriptor(MIN_I64_S, "min.i64.s", "MinI64S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(MIN_I64_U, "min.i64.u", "MinI64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(MAX_I64_S, "max.i64.s", "MaxI64S", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(MAX_I64_U, "max.i64.u", "MaxI64U", List.of(
                    new OperandSpec("left", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("right", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(CAST_ANY_REF, "cast.any.ref", "CastAnyRef", List.of(
                    new OperandSpec("operand", OperandKind.REGISTER, "ref", false, true),
                    new OperandSpec("result_type", OperandKind.TYPE_OF, null, false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(BRANCH_TABLE, "br_table", "BranchTable", List.of(
                    new OperandSpec("index", OperandKind.REGISTER, "i32", false, false),
                    new OperandSpec("default_dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("default_operands", OperandKind.BRANCH_OPERANDS, null, false, false),
                    new OperandSpec("table_size", OperandKind.CONST_I16, null, false, false),
                    new OperandSpec("cases", OperandKind.BRANCH_TABLE_CASES, null, false, false))),
            new OpDescriptor(BUFFER_HASH, "buffer.hash", "BufferHash", List.of(
                    new OperandSpec("source_buffer", OperandKind.REGISTER, "ref", false, false),
                    new OperandSpec("source_offset", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("length", OperandKind.REGISTER, "i64", false, false),
                    new OperandSpec("result", OperandKind.REGISTER, "i64", true, false))),
            new OpDescriptor(DISCARD_REFS, "discard.refs", "DiscardRefs", List.of(
                    new OperandSpec("refs", OperandKind.VARIADIC_OPERANDS, "any", false, false))),
            new OpDescriptor(ASSIGN_REF, "assign.ref", "AssignRef", List.of(
                    new OperandSpec("source", OperandKind.REGISTER, "ref", false, true),
                    new OperandSpec("result", OperandKind.REGISTER, "ref", true, true))),
            new OpDescriptor(CALL_YIELDABLE, "call.yieldable", "CallYieldable", List.of(
                    new OperandSpec("callee_ordinal", OperandKind.FUNC_ATTR, null, false, false),
                    new OperandSpec("operands", OperandKind.VARIADIC_OPERANDS, "any", false, false),
                    new OperandSpec("dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("results", OperandKind.VARIADIC_RESULTS, "any", false, false))),
            new OpDescriptor(CALL_VARIADIC_YIELDABLE, "call.variadic.yieldable", "CallVariadicYieldable", List.of(
                    new OperandSpec("callee_ordinal", OperandKind.FUNC_ATTR, null, false, false),
                    new OperandSpec("segment_sizes", OperandKind.VARIADIC_OPERANDS, "i32", false, false),
                    new OperandSpec("operands", OperandKind.VARIADIC_OPERANDS, "any", false, false),
                    new OperandSpec("dest_pc", OperandKind.BRANCH_TARGET, null, false, false),
                    new OperandSpec("results", OperandKind.VARIADIC_RESULTS, "any", false, false))));

    private CoreOpDescriptors() {
    }
}
