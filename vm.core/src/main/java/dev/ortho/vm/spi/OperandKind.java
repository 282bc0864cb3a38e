package dev.ortho.vm.spi;

/**
 * How one operand field of a VM instruction is encoded and what it means — the field kinds of
 * IREE's bytecode ISA ({@code vm/bytecode/isa/isa.json}). Byte widths are those of IREE's
 * bytecode 17.0 encoding.
 */
public enum OperandKind {
    /** A register ordinal (u16) in the operand's bank; 64-bit banks name the low register of an aligned pair. */
    REGISTER,
    /** A signed 16-bit immediate (e.g. a branch table size). */
    CONST_I16,
    /** An immediate of the operand's type ({@code i32}/{@code i64}/{@code f32}/{@code f64}). */
    ATTRIBUTE,
    /** A rodata segment ordinal (i32). */
    RODATA_ATTR,
    /** A function ordinal (i32): internal, or import with the high bit set. */
    FUNC_ATTR,
    /** A global byte offset or ref ordinal (i32). */
    GLOBAL_ATTR,
    /** An inline string: u16 length then bytes. */
    STRING_ATTR,
    /** A type ordinal (i32) into the module's type table. */
    TYPE_OF,
    /** A block entry pc (i32). */
    BRANCH_TARGET,
    /** Register remapping for a branch: u16 count then (source, destination) u16 pairs. */
    BRANCH_OPERANDS,
    /** Branch table cases: for each of {@code table_size} entries a target and its operands. */
    BRANCH_TABLE_CASES,
    /** A variadic register list: u16 count then u16 registers. */
    VARIADIC_OPERANDS,
    /** A variadic result register list: u16 count then u16 registers. */
    VARIADIC_RESULTS
}
