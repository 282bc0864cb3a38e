package dev.ortho.hal.cpu.internal.vmvx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntBinaryOperator;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Every export of the {@code vmvx} module, called through the VM against plain-Java references. */
class VmvxModuleTest {
    private static final int RW = VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST;

    private final Module module = VmvxModule.create();
    private final Context context = Context.create(new Instance(), module);

    @AfterEach
    void closeContext() {
        context.close();
    }

    /** Calls export {@code name}; Integer arguments are i32, Long i64, refs as given. Returns the results. */
    private VmList call(String name, Object... args) {
        Function function = module.lookupExport(name);
        VmList inputs = VmList.ofVariants(args.length);
        for (Object arg : args) {
            switch (arg) {
                case Integer i -> inputs.pushI32(i);
                case Long l -> inputs.pushI64(l);
                case null -> inputs.pushRefRetain(null);
                default -> inputs.pushRefRetain((RefObject) arg);
            }
        }
        VmList outputs = VmList.ofVariants(2);
        Invocation.invoke(context, function, inputs, outputs);
        return outputs;
    }

    private static StatusException fails(StatusCode code, org.junit.jupiter.api.function.Executable body) {
        StatusException e = assertThrows(StatusException.class, body);
        assertEquals(code, e.code(), e.getMessage());
        return e;
    }

    private static VmBuffer ints(int... values) {
        VmBuffer buffer = VmBuffer.allocate(RW, 4L * values.length, 16);
        for (int i = 0; i < values.length; i++) {
            buffer.storeI32(i, values[i]);
        }
        return buffer;
    }

    private static int[] ints(VmBuffer buffer) {
        int[] values = new int[(int) (buffer.length() / 4)];
        for (int i = 0; i < values.length; i++) {
            values[i] = buffer.loadI32(i);
        }
        return values;
    }

    private static int f(float value) {
        return Float.floatToRawIntBits(value);
    }

    @Test
    void exportsHaveIreeNamesAndCallingConventions() {
        Map<String, String> expected = new TreeMap<>();
        String binary = "0rIIIrIIIrIIIII_v";
        String unary = "0rIIIrIIIII_v";
        for (String op : new String[] {"add.2d.f32", "add.2d.i32", "and.2d.i32", "div.2d.f32", "divs.2d.i32",
                "divu.2d.i32", "mul.2d.f32", "mul.2d.i32", "or.2d.i32", "shl.2d.i32", "shrs.2d.i32", "shru.2d.i32",
                "sub.2d.f32", "sub.2d.i32", "xor.2d.i32"}) {
            expected.put(op, binary);
        }
        for (String op : new String[] {"abs.2d.f32", "ceil.2d.f32", "ctlz.2d.i32", "exp.2d.f32", "floor.2d.f32",
                "log.2d.f32", "neg.2d.f32", "rsqrt.2d.f32", "copy.2d.x8", "copy.2d.x16", "copy.2d.x32", "copy.2d.x64"}) {
            expected.put(op, unary);
        }
        expected.put("fill.2d.x32", "0irIIII_v");
        expected.put("mmt4d", "0rIIrIIrIIIIIiiii_v");
        expected.put("pack", "0rIIIrIIIIIIIIIIi_v");
        expected.put("unpack", "0rIIIrIIIIIIIIIi_v");
        expected.put("query_tile_sizes.2d", "0IIi_II");
        Map<String, String> actual = new TreeMap<>();
        module.exports().forEach(f -> actual.put(f.name(), f.cconv().text()));
        assertEquals(expected, actual);
        assertEquals("vmvx", module.name());
        assertEquals(0, module.version());
    }

    @Test
    void binaryOpsMatchJavaOnContiguousAndStridedOperands() {
        Map<String, IntBinaryOperator> ops = new LinkedHashMap<>();
        ops.put("add.2d.f32", (a, b) -> f(Float.intBitsToFloat(a) + Float.intBitsToFloat(b)));
        ops.put("sub.2d.f32", (a, b) -> f(Float.intBitsToFloat(a) - Float.intBitsToFloat(b)));
        ops.put("mul.2d.f32", (a, b) -> f(Float.intBitsToFloat(a) * Float.intBitsToFloat(b)));
        ops.put("div.2d.f32", (a, b) -> f(Float.intBitsToFloat(a) / Float.intBitsToFloat(b)));
        ops.put("add.2d.i32", (a, b) -> a + b);
        ops.put("sub.2d.i32", (a, b) -> a - b);
        ops.put("mul.2d.i32", (a, b) -> a * b);
        ops.put("and.2d.i32", (a, b) -> a & b);
        ops.put("or.2d.i32", (a, b) -> a | b);
        ops.put("xor.2d.i32", (a, b) -> a ^ b);
        ops.put("shl.2d.i32", (a, b) -> a << (b & 31));
        ops.put("shrs.2d.i32", (a, b) -> a >> (b & 31));
        ops.put("shru.2d.i32", (a, b) -> a >>> (b & 31));
        ops.put("divs.2d.i32", (a, b) -> a / b);
        ops.put("divu.2d.i32", Integer::divideUnsigned);
        int rows = 3;
        int cols = 5;
        for (var op : ops.entrySet()) {
            boolean isFloat = op.getKey().endsWith("f32");
            for (boolean strided : new boolean[] {false, true}) {
                // lhs: offset 2, row stride 7; rhs at offset 1: row-major, or column-major when strided
                long rhsStride0 = strided ? 1 : cols;
                long rhsStride1 = strided ? rows : 1;
                int[] lhs = new int[2 + rows * 7];
                int[] rhs = new int[1 + rows * cols];
                for (int i = 0; i < rows; i++) {
                    for (int j = 0; j < cols; j++) {
                        int k = i * cols + j;
                        lhs[2 + i * 7 + j] = isFloat ? f(k * 1.75f - 9) : k * 977 - 5000;
                        rhs[(int) (1 + i * rhsStride0 + j * rhsStride1)] = isFloat ? f(0.5f + k) : (k % 13) + 1;
                    }
                }
                VmBuffer out = ints(new int[rows * cols * 2]);
                long outStride1 = strided ? 2 : 1;
                call(op.getKey(), ints(lhs), 2L, 7L, 1L, ints(rhs), 1L, rhsStride0, rhsStride1, out, 0L,
                        cols * outStride1, outStride1, (long) rows, (long) cols);
                int[] result = ints(out);
                for (int i = 0; i < rows; i++) {
                    for (int j = 0; j < cols; j++) {
                        int expected = op.getValue().applyAsInt(lhs[2 + i * 7 + j],
                                rhs[(int) (1 + i * rhsStride0 + j * rhsStride1)]);
                        assertEquals(expected, result[(int) (i * cols * outStride1 + j * outStride1)],
                                op.getKey() + " [" + i + "][" + j + "] strided=" + strided);
                    }
                }
            }
        }
    }

    @Test
    void contiguousRowsTakeTheSameValuesAsTheStridedPath() {
        int n = 1000;
        int[] a = new int[n];
        int[] b = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = f((float) Math.sin(i) * 100);
            b[i] = f((float) Math.cos(i) * 3 + 4);
        }
        for (String op : new String[] {"add.2d.f32", "sub.2d.f32", "mul.2d.f32", "div.2d.f32"}) {
            VmBuffer contiguous = ints(new int[n]);
            VmBuffer strided = ints(new int[n]);
            call(op, ints(a), 0L, (long) n, 1L, ints(b), 0L, (long) n, 1L, contiguous, 0L, (long) n, 1L, 1L, (long) n);
            call(op, ints(a), 0L, 1L, 0L, ints(b), 0L, 1L, 0L, strided, 0L, 1L, 0L, (long) n, 1L); // n rows of 1
            assertArrayEquals(ints(strided), ints(contiguous), op);
        }
    }

    @Test
    void unaryOpsMatchJava() {
        Map<String, IntUnaryOperator> ops = new LinkedHashMap<>();
        ops.put("abs.2d.f32", a -> f(Math.abs(Float.intBitsToFloat(a))));
        ops.put("neg.2d.f32", a -> f(-Float.intBitsToFloat(a)));
        ops.put("ceil.2d.f32", a -> f((float) Math.ceil(Float.intBitsToFloat(a))));
        ops.put("floor.2d.f32", a -> f((float) Math.floor(Float.intBitsToFloat(a))));
        ops.put("exp.2d.f32", a -> f((float) Math.exp(Float.intBitsToFloat(a))));
        ops.put("log.2d.f32", a -> f((float) Math.log(Float.intBitsToFloat(a))));
        ops.put("rsqrt.2d.f32", a -> f(1f / (float) Math.sqrt(Float.intBitsToFloat(a))));
        ops.put("ctlz.2d.i32", Integer::numberOfLeadingZeros);
        int[] in = new int[12];
        for (int i = 0; i < in.length; i++) {
            in[i] = f(0.3f + i * 1.6f);
        }
        in[11] = 0; // ctlz(0) = 32, log(0) = -inf, rsqrt(0) = inf
        for (var op : ops.entrySet()) {
            for (long stride1 : new long[] {1, 2}) {
                VmBuffer out = ints(new int[12]);
                long cols = 6 / stride1;
                call(op.getKey(), ints(in), 0L, 6L, stride1, out, 0L, 6L, stride1, 2L, cols);
                int[] result = ints(out);
                for (int i = 0; i < 2; i++) {
                    for (int j = 0; j < cols; j++) {
                        int at = (int) (i * 6 + j * stride1);
                        assertEquals(op.getValue().applyAsInt(in[at]), result[at], op.getKey() + " element " + at);
                    }
                }
            }
        }
    }

    @Test
    void copiesMoveEveryElementWidthIncludingTransposes() {
        for (int width : new int[] {1, 2, 4, 8}) {
            int rows = 3;
            int cols = 4;
            VmBuffer in = VmBuffer.allocate(RW, (long) width * rows * cols, 16);
            for (int i = 0; i < rows * cols * width; i++) {
                in.storeI8(i, (byte) (i * 7 + 1));
            }
            VmBuffer out = VmBuffer.allocate(RW, (long) width * rows * cols, 16);
            // transpose: out[j][i] = in[i][j]
            call("copy.2d.x" + width * 8, in, 0L, (long) cols, 1L, out, 0L, 1L, (long) rows, (long) rows, (long) cols);
            for (int i = 0; i < rows; i++) {
                for (int j = 0; j < cols; j++) {
                    for (int b = 0; b < width; b++) {
                        assertEquals(in.loadI8((long) (i * cols + j) * width + b), out.loadI8((long) (j * rows + i) * width + b),
                                "x" + width * 8 + " [" + i + "][" + j + "] byte " + b);
                    }
                }
            }
            VmBuffer same = VmBuffer.allocate(RW, (long) width * rows * cols, 16);
            call("copy.2d.x" + width * 8, in, 0L, (long) cols, 1L, same, 0L, (long) cols, 1L, (long) rows, (long) cols);
            assertTrue(VmBuffer.compareBytes(in, 0, same, 0, in.length()), "contiguous x" + width * 8);
        }
    }

    @Test
    void fillWritesTheValueIntoEveryRowAndNothingElse() {
        VmBuffer out = ints(new int[20]);
        call("fill.2d.x32", 0x12345678, out, 1L, 6L, 3L, 4L);
        int[] result = ints(out);
        for (int i = 0; i < 20; i++) {
            int row = (i - 1) / 6;
            int col = (i - 1) % 6;
            boolean filled = i >= 1 && row < 3 && col < 4;
            assertEquals(filled ? 0x12345678 : 0, result[i], "element " + i);
        }
    }

    /** Row-major tiled [outer][K][tile][K0] data, as {@code pack} produces. */
    private static float lhsAt(float[] lhs, int m0, int k0, int kTiles, int i, int kk, int i0, int kz) {
        return lhs[((i * kTiles + kk) * m0 + i0) * k0 + kz];
    }

    @Test
    void mmt4dF32MatchesAReferenceWithAndWithoutAccumulate() {
        int m = 3, n = 2, k = 4, m0 = 4, n0 = 8, k0 = 3;
        float[] lhs = new float[m * k * m0 * k0];
        float[] rhs = new float[n * k * n0 * k0];
        for (int i = 0; i < lhs.length; i++) {
            lhs[i] = (i % 11) * 0.5f - 2;
        }
        for (int i = 0; i < rhs.length; i++) {
            rhs[i] = (i % 7) * 0.25f - 0.75f;
        }
        float[] expected = new float[m * n * m0 * n0];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                for (int i0 = 0; i0 < m0; i0++) {
                    for (int j0 = 0; j0 < n0; j0++) {
                        float acc = 0;
                        for (int kk = 0; kk < k; kk++) {
                            for (int kz = 0; kz < k0; kz++) {
                                acc += lhsAt(lhs, m0, k0, k, i, kk, i0, kz) * lhsAt(rhs, n0, k0, k, j, kk, j0, kz);
                            }
                        }
                        expected[((i * n + j) * m0 + i0) * n0 + j0] = acc;
                    }
                }
            }
        }
        VmBuffer l = floats(lhs);
        VmBuffer r = floats(rhs);
        VmBuffer out = floats(new float[expected.length]);
        Object[] args = {l, 0L, (long) k * m0 * k0, r, 0L, (long) k * n0 * k0, out, 0L, (long) n * m0 * n0,
                (long) m, (long) n, (long) k, m0, n0, k0, 1};
        call("mmt4d", args);
        assertArrayEquals(expected, floats(out));
        args[15] = 1 | 0x100; // accumulate: out += lhs . rhs^T
        call("mmt4d", args);
        float[] twice = new float[expected.length];
        for (int i = 0; i < twice.length; i++) {
            twice[i] = expected[i] + expected[i];
        }
        assertArrayEquals(twice, floats(out));
    }

    @Test
    void mmt4dS8S8S32MatchesAReference() {
        int m = 2, n = 3, k = 2, m0 = 2, n0 = 2, k0 = 4;
        byte[] lhs = new byte[m * k * m0 * k0];
        byte[] rhs = new byte[n * k * n0 * k0];
        VmBuffer l = VmBuffer.allocate(RW, lhs.length, 16);
        VmBuffer r = VmBuffer.allocate(RW, rhs.length, 16);
        for (int i = 0; i < lhs.length; i++) {
            lhs[i] = (byte) (i * 37 - 100);
            l.storeI8(i, lhs[i]);
        }
        for (int i = 0; i < rhs.length; i++) {
            rhs[i] = (byte) (i * 53 + 7);
            r.storeI8(i, rhs[i]);
        }
        VmBuffer out = ints(new int[m * n * m0 * n0]);
        call("mmt4d", l, 0L, (long) k * m0 * k0, r, 0L, (long) k * n0 * k0, out, 0L, (long) n * m0 * n0,
                (long) m, (long) n, (long) k, m0, n0, k0, 2);
        int[] result = ints(out);
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                for (int i0 = 0; i0 < m0; i0++) {
                    for (int j0 = 0; j0 < n0; j0++) {
                        int acc = 0;
                        for (int kk = 0; kk < k; kk++) {
                            for (int kz = 0; kz < k0; kz++) {
                                acc += lhs[((i * k + kk) * m0 + i0) * k0 + kz] * rhs[((j * k + kk) * n0 + j0) * k0 + kz];
                            }
                        }
                        assertEquals(acc, result[((i * n + j) * m0 + i0) * n0 + j0]);
                    }
                }
            }
        }
    }

    @Test
    void packMatchesTheTiledLayoutForEveryTransposeAndUnpackInvertsIt() {
        int in0 = 5, in1 = 7;
        int[] source = new int[in0 * in1];
        for (int i = 0; i < source.length; i++) {
            source[i] = 1000 + i;
        }
        int pad = -77;
        // logical tiles over (in0, in1): odd sizes, the one-row tiles of a one-row matmul's LHS,
        // and the 8x4 / 8x8 tiles of VMVX's data tiling (rows and columns padded)
        for (int[] tile : new int[][] {{2, 3}, {1, 4}, {1, 8}, {8, 4}, {8, 8}})
        for (int flags : new int[] {0, 0x100, 0x200, 0x300}) {
            boolean ti = (flags & 0x100) != 0;
            boolean to = (flags & 0x200) != 0;
            int tile0 = tile[0], tile1 = tile[1];
            int outer0 = (in0 + tile0 - 1) / tile0, outer1 = (in1 + tile1 - 1) / tile1;
            long[] o = {to ? outer1 : outer0, to ? outer0 : outer1, ti ? tile1 : tile0, ti ? tile0 : tile1};
            int total = (int) (o[0] * o[1] * o[2] * o[3]);
            VmBuffer packed = ints(new int[total]);
            call("pack", ints(source), 0L, (long) in1, 1L, packed, 0L, o[1] * o[2] * o[3], o[2] * o[3],
                    (long) in0, (long) in1, o[0], o[1], o[2], o[3], (long) pad, 3 | flags);
            int[] result = ints(packed);
            for (int p0 = 0; p0 < o[0]; p0++) {
                for (int p1 = 0; p1 < o[1]; p1++) {
                    for (int q0 = 0; q0 < o[2]; q0++) {
                        for (int q1 = 0; q1 < o[3]; q1++) {
                            int a = to ? p1 : p0, b = to ? p0 : p1, r = ti ? q1 : q0, c = ti ? q0 : q1;
                            int i0 = a * tile0 + r, i1 = b * tile1 + c;
                            int expected = i0 < in0 && i1 < in1 ? source[i0 * in1 + i1] : pad;
                            int at = (int) (((p0 * o[1] + p1) * o[2] + q0) * o[3] + q1);
                            assertEquals(expected, result[at], "tile " + tile0 + "x" + tile1 + " flags 0x"
                                    + Integer.toHexString(flags) + " at " + at);
                        }
                    }
                }
            }
            VmBuffer back = ints(new int[source.length]);
            call("unpack", packed, 0L, o[1] * o[2] * o[3], o[2] * o[3], back, 0L, (long) in1, 1L,
                    o[0], o[1], o[2], o[3], (long) in0, (long) in1, 1 | flags);
            assertArrayEquals(source, ints(back), "unpack tile " + tile0 + "x" + tile1 + " flags 0x"
                    + Integer.toHexString(flags));
        }
    }

    @Test
    void packOfBytesPadsWithTheLowByte() {
        VmBuffer in = VmBuffer.allocate(RW, 3, 16);
        in.storeI8(0, (byte) 1);
        in.storeI8(1, (byte) 2);
        in.storeI8(2, (byte) 3);
        VmBuffer out = VmBuffer.allocate(RW, 4, 16);
        call("pack", in, 0L, 3L, 1L, out, 0L, 4L, 4L, 1L, 3L, 1L, 1L, 1L, 4L, 0x1AB5L, 2);
        assertEquals(1, out.loadI8(0));
        assertEquals(2, out.loadI8(1));
        assertEquals(3, out.loadI8(2));
        assertEquals((byte) 0xB5, out.loadI8(3));
    }

    @Test
    void queryTileSizesReturnsIreeGenericMatmulTiles() {
        int matmulF32 = 0x0100;
        assertEquals(8L, call("query_tile_sizes.2d", 100L, 200L, matmulF32 | 1).getI64(0)); // LHS: M, K
        assertEquals(4L, call("query_tile_sizes.2d", 100L, 200L, matmulF32 | 1).getI64(1));
        assertEquals(8L, call("query_tile_sizes.2d", 100L, 200L, matmulF32 | 2).getI64(0)); // RHS: N, K
        assertEquals(4L, call("query_tile_sizes.2d", 100L, 200L, matmulF32 | 2).getI64(1));
        assertEquals(8L, call("query_tile_sizes.2d", 100L, 200L, matmulF32 | 3).getI64(1)); // RESULT: M, N
        fails(StatusCode.INVALID_ARGUMENT, () -> call("query_tile_sizes.2d", 1L, 1L, 0x0701));
        fails(StatusCode.INVALID_ARGUMENT, () -> call("query_tile_sizes.2d", 1L, 1L, 0x0104));
    }

    @Test
    void badOperandsFailWithStatusesNamingTheOperand() {
        VmBuffer four = ints(1, 2, 3, 4);
        VmBuffer out = ints(0, 0, 0, 0);
        StatusException range = fails(StatusCode.OUT_OF_RANGE,
                () -> call("add.2d.i32", four, 1L, 4L, 1L, four, 0L, 4L, 1L, out, 0L, 4L, 1L, 1L, 4L));
        assertTrue(range.getMessage().contains("vmvx: lhs range [4, 20) exceeds its buffer length 16"),
                range.getMessage());
        StatusException overflow = fails(StatusCode.INVALID_ARGUMENT,
                () -> call("add.2d.i32", four, 0L, -1L, 1L, four, 0L, 4L, 1L, out, 0L, 4L, 1L, 2L, 2L));
        assertTrue(overflow.getMessage().contains("buffer overflow for lhs"), overflow.getMessage());
        fails(StatusCode.INVALID_ARGUMENT,
                () -> call("abs.2d.f32", four, 0L, 1L << 40, 1L, out, 0L, 4L, 1L, 1L << 33, 1L));
        StatusException nullBuffer = fails(StatusCode.INVALID_ARGUMENT,
                () -> call("neg.2d.f32", null, 0L, 4L, 1L, out, 0L, 4L, 1L, 1L, 4L));
        assertTrue(nullBuffer.getMessage().contains("in operand is null"), nullBuffer.getMessage());
        VmBuffer readOnly = VmBuffer.wrap(VmBuffer.ACCESS_ORIGIN_HOST, four.segment().asReadOnly(), four);
        fails(StatusCode.PERMISSION_DENIED, () -> call("copy.2d.x32", four, 0L, 4L, 1L, readOnly, 0L, 4L, 1L, 1L, 4L));
        StatusException zero = fails(StatusCode.INVALID_ARGUMENT,
                () -> call("divs.2d.i32", four, 0L, 4L, 1L, ints(1, 0, 1, 1), 0L, 4L, 1L, out, 0L, 4L, 1L, 1L, 4L));
        assertTrue(zero.getMessage().contains("division by zero"), zero.getMessage());
        fails(StatusCode.INVALID_ARGUMENT, () -> call("mmt4d", four, 0L, 1L, four, 0L, 1L, out, 0L, 1L, 1L, 1L, 1L,
                1, 1, 1, 3)); // f16 is not a VMVX type
        fails(StatusCode.INVALID_ARGUMENT, () -> call("mmt4d", four, 0L, 1L, four, 0L, 1L, out, 0L, 1L, 1L, 1L, 1L,
                -1, 1, 1, 1));
        StatusException mmt4dRange = fails(StatusCode.OUT_OF_RANGE, () -> call("mmt4d", four, 0L, 4L, four, 0L, 4L,
                ints(0, 0), 0L, 4L, 1L, 1L, 1L, 2, 2, 2, 1));
        assertTrue(mmt4dRange.getMessage().contains("vmvx: out range"), mmt4dRange.getMessage());
        fails(StatusCode.INVALID_ARGUMENT, () -> call("pack", four, 0L, 2L, 1L, out, 0L, 4L, 4L, 2L, 2L, 1L, 1L,
                2L, 2L, 0L, 4)); // f16 pack is not a VMVX type
        StatusException cover = fails(StatusCode.INVALID_ARGUMENT, () -> call("pack", ints(new int[6]), 0L, 2L, 1L,
                out, 0L, 4L, 4L, 3L, 2L, 1L, 1L, 2L, 2L, 0L, 1)); // one 2x2 tile cannot hold 3 rows
        assertTrue(cover.getMessage().contains("do not cover the 3x2 matrix"), cover.getMessage());
        fails(StatusCode.INVALID_ARGUMENT, () -> call("unpack", four, 0L, 4L, 3L, out, 0L, 2L, 1L, 1L, 1L, 2L, 2L,
                2L, 2L, 1)); // inner stride must be the tile size
        fails(StatusCode.INVALID_ARGUMENT, () -> call("unpack", four, 0L, 4L, 4L, out, 0L, 2L, 1L, 1L, 1L, 2L, 2L,
                2L, 2L, 2)); // i8 unpack is not supported
    }

    @Test
    @org.junit.jupiter.api.Timeout(60) // hang guard only: this used to loop over 2^62 empty tiles
    void emptyTilesWithHugeCountsFinishAtOnce() {
        VmBuffer out = ints(7, 7);
        VmBuffer panel = ints(new int[32]);
        long huge = Integer.MAX_VALUE;
        // M0 = 0 or N0 = 0: no output elements, however many tiles (rows alias: stride 0)
        call("mmt4d", panel, 0L, 0L, panel, 0L, 0L, out, 0L, 0L, huge, huge, 1L, 0, 8, 4, 1);
        call("mmt4d", panel, 0L, 0L, panel, 0L, 0L, out, 0L, 0L, huge, huge, 1L, 8, 0, 4, 1);
        // K0 = 0: no products, however large K
        call("mmt4d", out, 0L, 0L, out, 0L, 0L, out, 0L, 1L, 1L, 1L, huge, 1, 1, 0, 1 | 0x100);
        assertArrayEquals(new int[] {7, 7}, ints(out));
        call("mmt4d", out, 0L, 0L, out, 0L, 0L, out, 0L, 1L, 1L, 1L, huge, 1, 1, 0, 1);
        assertArrayEquals(new int[] {0, 7}, ints(out), "K0 = 0 without accumulate writes zeros");
    }

    @Test
    void zeroSizedOperandsTouchNothing() {
        VmBuffer out = ints(5, 5);
        call("fill.2d.x32", 9, out, 2L, 1L, 0L, 100L);
        call("add.2d.f32", out, 0L, 1L, 1L, out, 0L, 1L, 1L, out, 2L, 1L, 1L, 3L, 0L);
        assertArrayEquals(new int[] {5, 5}, ints(out));
    }

    private static VmBuffer floats(float[] values) {
        VmBuffer buffer = VmBuffer.allocate(RW, 4L * values.length, 16);
        for (int i = 0; i < values.length; i++) {
            buffer.storeF32(i, values[i]);
        }
        return buffer;
    }

    private static float[] floats(VmBuffer buffer) {
        float[] values = new float[(int) (buffer.length() / 4)];
        for (int i = 0; i < values.length; i++) {
            values[i] = buffer.loadF32(i);
        }
        return values;
    }
}
