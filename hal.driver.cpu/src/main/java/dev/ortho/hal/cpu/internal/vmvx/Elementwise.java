package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 32-bit elementwise microkernels of the {@code vmvx} module (IREE's {@code x32b} binary and
 * {@code x32u} unary ukernels) over strided 2-D operands already checked by {@link Operand}.
 *
 * <p>Semantics are C's on 32-bit lanes, as IREE's generic ukernels: float ops in IEEE single
 * precision, integer add/sub/mul wrapping, shifts by the low 5 bits of the amount (the
 * well-defined part of C's shift), signed division truncating; integer division by zero fails
 * with INVALID_ARGUMENT (undefined behaviour in C). Rows whose innermost stride is 1 in every
 * operand run a dedicated loop per op over contiguous memory, which C2 vectorises; other rows go
 * element by element. Stateless; allocates nothing.
 */
final class Elementwise {
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Binary op codes, in IREE's {@code iree_uk_x32b_opcode_t} order. */
    static final int ADDF = 0, ADDI = 1, ANDI = 2, DIVF = 3, DIVSI = 4, DIVUI = 5, MULF = 6, MULI = 7, ORI = 8,
            SHLI = 9, SHRSI = 10, SHRUI = 11, SUBF = 12, SUBI = 13, XORI = 14;
    /** Unary op codes, in IREE's {@code iree_uk_x32u_opcode_t} order. */
    static final int ABSF = 0, CEILF = 1, CTLZ = 2, EXPF = 3, FLOORF = 4, LOGF = 5, NEGF = 6, RSQRTF = 7;

    private Elementwise() {}

    /**
     * {@code out[i][j] = op(lhs[i][j], rhs[i][j])}; offsets in bytes, strides in elements.
     *
     * @throws StatusException INVALID_ARGUMENT for an integer division by zero
     */
    static void binary(int op, MemorySegment lhs, long lhsBase, long lhsStride0, long lhsStride1,
            MemorySegment rhs, long rhsBase, long rhsStride0, long rhsStride1,
            MemorySegment out, long outBase, long outStride0, long outStride1, long size0, long size1) {
        boolean contiguous = lhsStride1 == 1 && rhsStride1 == 1 && outStride1 == 1;
        for (long i = 0; i < size0; i++) {
            long l = lhsBase + 4 * i * lhsStride0;
            long r = rhsBase + 4 * i * rhsStride0;
            long o = outBase + 4 * i * outStride0;
            if (contiguous) {
                binaryRow(op, lhs, l, rhs, r, out, o, size1);
            } else {
                for (long j = 0; j < size1; j++) {
                    out.set(I32, o + 4 * j * outStride1,
                            apply(op, lhs.get(I32, l + 4 * j * lhsStride1), rhs.get(I32, r + 4 * j * rhsStride1)));
                }
            }
        }
    }

    /** {@code out[i][j] = op(in[i][j])}; offsets in bytes, strides in elements. */
    static void unary(int op, MemorySegment in, long inBase, long inStride0, long inStride1,
            MemorySegment out, long outBase, long outStride0, long outStride1, long size0, long size1) {
        boolean contiguous = inStride1 == 1 && outStride1 == 1;
        for (long i = 0; i < size0; i++) {
            long s = inBase + 4 * i * inStride0;
            long o = outBase + 4 * i * outStride0;
            if (contiguous) {
                unaryRow(op, in, s, out, o, size1);
            } else {
                for (long j = 0; j < size1; j++) {
                    out.set(I32, o + 4 * j * outStride1, apply(op, in.get(I32, s + 4 * j * inStride1)));
                }
            }
        }
    }

    /**
     * One contiguous row, a dedicated loop per op. The loops are spread over a few small methods:
     * C1's profiling compile (tier 3) of one method holding all fourteen runs out of virtual
     * registers (each segment access inlines a chain of accessors), and a method HotSpot first
     * compiled at tier 2 then never leaves C1 code.
     */
    private static void binaryRow(int op, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment c, long co,
            long n) {
        long end = 4 * n;
        switch (op) {
            case ADDF, SUBF, MULF, DIVF -> floatRow(op, a, ao, b, bo, c, co, end);
            case ADDI, SUBI, MULI -> arithmeticRow(op, a, ao, b, bo, c, co, end);
            case ANDI, ORI, XORI -> bitwiseRow(op, a, ao, b, bo, c, co, end);
            case SHLI, SHRSI, SHRUI -> shiftRow(op, a, ao, b, bo, c, co, end);
            default -> { // DIVSI, DIVUI: the zero check keeps these scalar
                for (long x = 0; x < end; x += 4) {
                    c.set(I32, co + x, apply(op, a.get(I32, ao + x), b.get(I32, bo + x)));
                }
            }
        }
    }

    private static void floatRow(int op, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment c, long co,
            long end) {
        switch (op) {
            case ADDF -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, a.get(F32, ao + x) + b.get(F32, bo + x)); }
            case SUBF -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, a.get(F32, ao + x) - b.get(F32, bo + x)); }
            case MULF -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, a.get(F32, ao + x) * b.get(F32, bo + x)); }
            default -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, a.get(F32, ao + x) / b.get(F32, bo + x)); }
        }
    }

    private static void arithmeticRow(int op, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment c,
            long co, long end) {
        switch (op) {
            case ADDI -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) + b.get(I32, bo + x)); }
            case SUBI -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) - b.get(I32, bo + x)); }
            default -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) * b.get(I32, bo + x)); }
        }
    }

    private static void bitwiseRow(int op, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment c, long co,
            long end) {
        switch (op) {
            case ANDI -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) & b.get(I32, bo + x)); }
            case ORI -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) | b.get(I32, bo + x)); }
            default -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) ^ b.get(I32, bo + x)); }
        }
    }

    private static void shiftRow(int op, MemorySegment a, long ao, MemorySegment b, long bo, MemorySegment c, long co,
            long end) {
        switch (op) {
            case SHLI -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) << b.get(I32, bo + x)); }
            case SHRSI -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) >> b.get(I32, bo + x)); }
            default -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, a.get(I32, ao + x) >>> b.get(I32, bo + x)); }
        }
    }

    private static void unaryRow(int op, MemorySegment a, long ao, MemorySegment c, long co, long n) {
        long end = 4 * n;
        switch (op) {
            case ABSF -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, Math.abs(a.get(F32, ao + x))); }
            case NEGF -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, -a.get(F32, ao + x)); }
            case CEILF -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, (float) Math.ceil(a.get(F32, ao + x))); }
            case FLOORF -> { for (long x = 0; x < end; x += 4) c.set(F32, co + x, (float) Math.floor(a.get(F32, ao + x))); }
            case CTLZ -> { for (long x = 0; x < end; x += 4) c.set(I32, co + x, Integer.numberOfLeadingZeros(a.get(I32, ao + x))); }
            default -> { // EXPF, LOGF, RSQRTF: transcendental, one call per element
                for (long x = 0; x < end; x += 4) {
                    c.set(I32, co + x, apply(op, a.get(I32, ao + x)));
                }
            }
        }
    }

    /** One binary op on raw 32-bit lanes. */
    static int apply(int op, int a, int b) {
        return switch (op) {
            case ADDF -> f(Float.intBitsToFloat(a) + Float.intBitsToFloat(b));
            case SUBF -> f(Float.intBitsToFloat(a) - Float.intBitsToFloat(b));
            case MULF -> f(Float.intBitsToFloat(a) * Float.intBitsToFloat(b));
            case DIVF -> f(Float.intBitsToFloat(a) / Float.intBitsToFloat(b));
            case ADDI -> a + b;
            case SUBI -> a - b;
            case MULI -> a * b;
            case ANDI -> a & b;
            case ORI -> a | b;
            case XORI -> a ^ b;
            case SHLI -> a << b;
            case SHRSI -> a >> b;
            case SHRUI -> a >>> b;
            case DIVSI -> {
                if (b == 0) {
                    throw divisionByZero(op);
                }
                yield a / b;
            }
            case DIVUI -> {
                if (b == 0) {
                    throw divisionByZero(op);
                }
                yield Integer.divideUnsigned(a, b);
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "illegal x32b ukernel op " + op);
        };
    }

    /** One unary op on a raw 32-bit lane. */
    static int apply(int op, int a) {
        float x = Float.intBitsToFloat(a);
        return switch (op) {
            case ABSF -> f(Math.abs(x));
            case NEGF -> f(-x);
            case CEILF -> f((float) Math.ceil(x));
            case FLOORF -> f((float) Math.floor(x));
            case CTLZ -> Integer.numberOfLeadingZeros(a);
            case EXPF -> f((float) Math.exp(x));
            case LOGF -> f((float) Math.log(x));
            case RSQRTF -> f(1.0f / (float) Math.sqrt(x));
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT, "illegal x32u ukernel op " + op);
        };
    }

    private static int f(float value) {
        return Float.floatToRawIntBits(value);
    }

    private static StatusException divisionByZero(int op) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: integer division by zero in "
                + (op == DIVSI ? "divs.2d.i32" : "divu.2d.i32"));
    }
}
