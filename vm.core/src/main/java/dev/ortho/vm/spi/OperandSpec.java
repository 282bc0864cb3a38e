package dev.ortho.vm.spi;

/**
 * One operand field of an instruction, in encoding order.
 *
 * @param name the field name from IREE's ISA ({@code lhs}, {@code callee_ordinal}, …)
 * @param kind how it is encoded
 * @param type register bank or immediate/element type: {@code i32}, {@code i64}, {@code f32},
 *     {@code f64}, {@code ref}, or {@code any} (variadic lists of mixed banks); null when the
 *     kind has no type
 * @param write true for registers the instruction writes (results)
 * @param moveAllowed true where the register encoding may carry the ref move bit
 */
public record OperandSpec(String name, OperandKind kind, String type, boolean write, boolean moveAllowed) {
}
