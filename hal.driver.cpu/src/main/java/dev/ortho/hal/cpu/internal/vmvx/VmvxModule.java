package dev.ortho.hal.cpu.internal.vmvx;

import static dev.ortho.hal.cpu.internal.vmvx.Elementwise.*;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.VmBuffer;

/**
 * The {@code vmvx} microkernel module (IREE's {@code modules/vmvx}, version 0): the exports VMVX
 * dispatch functions import, with IREE's names, calling conventions and argument order — each
 * 2-D operand is {@code (buffer, offset, stride0, stride1)} in elements, followed by the sizes.
 *
 * <ul>
 * <li>binary {@code add|sub|mul|div.2d.f32}, {@code add|sub|mul|and|or|xor|shl|shrs|shru|divs|divu.2d.i32}
 *     ({@code 0rIIIrIIIrIIIII_v});</li>
 * <li>unary {@code abs|ceil|exp|floor|log|neg|rsqrt.2d.f32}, {@code ctlz.2d.i32} and
 *     {@code copy.2d.x8|x16|x32|x64} ({@code 0rIIIrIIIII_v});</li>
 * <li>{@code fill.2d.x32} ({@code 0irIIII_v}: value, out, offset, row stride, sizes);</li>
 * <li>{@code mmt4d} ({@code 0rIIrIIrIIIIIiiii_v}: f32·f32→f32 and s8·s8→s32, optional accumulate);</li>
 * <li>{@code pack} ({@code 0rIIIrIIIIIIIIIIi_v}) and {@code unpack} ({@code 0rIIIrIIIIIIIIIi_v});</li>
 * <li>{@code query_tile_sizes.2d} ({@code 0IIi_II}: IREE's generic matmul tiles M=8, K=4, N=8).</li>
 * </ul>
 *
 * <p>Arguments are checked as IREE's shims check them ({@link Operand}): overflowing shapes fail
 * INVALID_ARGUMENT, ranges past a buffer OUT_OF_RANGE naming the operand, writes to read-only
 * buffers PERMISSION_DENIED, unsupported type flags INVALID_ARGUMENT "unhandled flags". The
 * module has no imports; each context gets a scratch state (forking is UNIMPLEMENTED, as in
 * IREE). The module object is immutable and thread-safe; build one per process with
 * {@link #create()}.
 */
public final class VmvxModule {
    /** The module name. */
    public static final String NAME = "vmvx";
    /** IREE's {@code IREE_VMVX_MODULE_VERSION_LATEST}. */
    public static final int VERSION = 0;

    static final int MMT4D_TYPE_MASK = 0xFF;
    static final int MMT4D_TYPE_F32F32F32 = 0x01;
    static final int MMT4D_TYPE_S8S8S32 = 0x02;
    static final int MMT4D_ACCUMULATE = 0x100;
    private static final int MMT4D_KNOWN_FLAGS = MMT4D_TYPE_MASK | MMT4D_ACCUMULATE | 0x200 | 0x400;
    static final int PACK_TYPE_F32F32 = 0x01;
    static final int PACK_TYPE_I8I8 = 0x02;
    static final int PACK_TYPE_I32I32 = 0x03;
    private static final int PACK_KNOWN_FLAGS = 0xFF | Packing.TRANSPOSE_INNER | Packing.TRANSPOSE_OUTER;

    private static final String BINARY = "0rIIIrIIIrIIIII_v";
    private static final String UNARY = "0rIIIrIIIII_v";

    private VmvxModule() {}

    /** Builds the module. */
    public static NativeModule<Mmt4d.Scratch> create() {
        NativeModule.Builder<Mmt4d.Scratch> b = NativeModule.<Mmt4d.Scratch>builder(NAME, VERSION)
                .state(context -> new Mmt4d.Scratch(), null, null);
        binary(b, "add.2d.f32", ADDF);
        binary(b, "add.2d.i32", ADDI);
        binary(b, "and.2d.i32", ANDI);
        binary(b, "div.2d.f32", DIVF);
        binary(b, "divs.2d.i32", DIVSI);
        binary(b, "divu.2d.i32", DIVUI);
        binary(b, "mul.2d.f32", MULF);
        binary(b, "mul.2d.i32", MULI);
        binary(b, "or.2d.i32", ORI);
        binary(b, "shl.2d.i32", SHLI);
        binary(b, "shrs.2d.i32", SHRSI);
        binary(b, "shru.2d.i32", SHRUI);
        binary(b, "sub.2d.f32", SUBF);
        binary(b, "sub.2d.i32", SUBI);
        binary(b, "xor.2d.i32", XORI);
        unary(b, "abs.2d.f32", ABSF);
        unary(b, "ceil.2d.f32", CEILF);
        unary(b, "ctlz.2d.i32", CTLZ);
        unary(b, "exp.2d.f32", EXPF);
        unary(b, "floor.2d.f32", FLOORF);
        unary(b, "log.2d.f32", LOGF);
        unary(b, "neg.2d.f32", NEGF);
        unary(b, "rsqrt.2d.f32", RSQRTF);
        copy(b, "copy.2d.x8", 1);
        copy(b, "copy.2d.x16", 2);
        copy(b, "copy.2d.x32", 4);
        copy(b, "copy.2d.x64", 8);
        b.export("fill.2d.x32", "0irIIII_v", (scratch, call) -> fill(call.args()));
        b.export("mmt4d", "0rIIrIIrIIIIIiiii_v", (scratch, call) -> mmt4d(scratch, call.args()));
        b.export("pack", "0rIIIrIIIIIIIIIIi_v", (scratch, call) -> pack(call.args()));
        b.export("unpack", "0rIIIrIIIIIIIIIi_v", (scratch, call) -> unpack(call.args()));
        b.export("query_tile_sizes.2d", "0IIi_II", (scratch, call) -> queryTileSizes(call));
        return b.build();
    }

    private static void binary(NativeModule.Builder<Mmt4d.Scratch> b, String name, int op) {
        b.export(name, BINARY, (scratch, call) -> {
            CallBuffer a = call.args();
            long size0 = a.i64(9);
            long size1 = a.i64(10);
            VmBuffer lhs = Operand.buffer("lhs", a.ref(0));
            VmBuffer rhs = Operand.buffer("rhs", a.ref(1));
            VmBuffer out = Operand.buffer("out", a.ref(2));
            long l = Operand.map2d("lhs", lhs, 4, a.i64(0), a.i64(1), a.i64(2), size0, size1, false);
            long r = Operand.map2d("rhs", rhs, 4, a.i64(3), a.i64(4), a.i64(5), size0, size1, false);
            long o = Operand.map2d("out", out, 4, a.i64(6), a.i64(7), a.i64(8), size0, size1, true);
            Elementwise.binary(op, lhs.segment(), l, a.i64(1), a.i64(2), rhs.segment(), r, a.i64(4), a.i64(5),
                    out.segment(), o, a.i64(7), a.i64(8), size0, size1);
            return CallOutcome.COMPLETED;
        });
    }

    private static void unary(NativeModule.Builder<Mmt4d.Scratch> b, String name, int op) {
        b.export(name, UNARY, (scratch, call) -> {
            CallBuffer a = call.args();
            long size0 = a.i64(6);
            long size1 = a.i64(7);
            VmBuffer in = Operand.buffer("in", a.ref(0));
            VmBuffer out = Operand.buffer("out", a.ref(1));
            long s = Operand.map2d("in", in, 4, a.i64(0), a.i64(1), a.i64(2), size0, size1, false);
            long o = Operand.map2d("out", out, 4, a.i64(3), a.i64(4), a.i64(5), size0, size1, true);
            Elementwise.unary(op, in.segment(), s, a.i64(1), a.i64(2), out.segment(), o, a.i64(4), a.i64(5),
                    size0, size1);
            return CallOutcome.COMPLETED;
        });
    }

    private static void copy(NativeModule.Builder<Mmt4d.Scratch> b, String name, int width) {
        b.export(name, UNARY, (scratch, call) -> {
            CallBuffer a = call.args();
            long size0 = a.i64(6);
            long size1 = a.i64(7);
            VmBuffer in = Operand.buffer("in", a.ref(0));
            VmBuffer out = Operand.buffer("out", a.ref(1));
            long s = Operand.map2d("in", in, width, a.i64(0), a.i64(1), a.i64(2), size0, size1, false);
            long o = Operand.map2d("out", out, width, a.i64(3), a.i64(4), a.i64(5), size0, size1, true);
            Copy.copy2d(width, in.segment(), s, a.i64(1), a.i64(2), out.segment(), o, a.i64(4), a.i64(5),
                    size0, size1);
            return CallOutcome.COMPLETED;
        });
    }

    private static CallOutcome fill(CallBuffer a) {
        int value = a.i32(0);
        long size0 = a.i64(3);
        long size1 = a.i64(4);
        VmBuffer out = Operand.buffer("out", a.ref(0));
        long o = Operand.map2d("out", out, 4, a.i64(1), a.i64(2), 1, size0, size1, true);
        Copy.fill2d(out.segment(), o, a.i64(2), size0, size1, value);
        return CallOutcome.COMPLETED;
    }

    private static CallOutcome mmt4d(Mmt4d.Scratch scratch, CallBuffer a) {
        int flags = a.i32(12);
        int type = flags & MMT4D_TYPE_MASK;
        if ((type != MMT4D_TYPE_F32F32F32 && type != MMT4D_TYPE_S8S8S32) || (flags & ~MMT4D_KNOWN_FLAGS) != 0) {
            throw unhandledFlags("mmt4d", flags);
        }
        int inSize = type == MMT4D_TYPE_F32F32F32 ? 4 : 1;
        int m = Operand.unsignedBits("mmt4d M", a.i64(6), 31);
        int n = Operand.unsignedBits("mmt4d N", a.i64(7), 31);
        int k = Operand.unsignedBits("mmt4d K", a.i64(8), 31); // reassigned below when K0 = 0
        int m0 = Operand.unsignedBits("mmt4d M0", a.i32(9), 15);
        int n0 = Operand.unsignedBits("mmt4d N0", a.i32(10), 15);
        int k0 = Operand.unsignedBits("mmt4d K0", a.i32(11), 15);
        VmBuffer lhs = Operand.buffer("lhs", a.ref(0));
        VmBuffer rhs = Operand.buffer("rhs", a.ref(1));
        VmBuffer out = Operand.buffer("out", a.ref(2));
        long l = Operand.map2d("lhs", lhs, inSize, a.i64(0), a.i64(1), 1, m, (long) k * m0 * k0, false);
        long r = Operand.map2d("rhs", rhs, inSize, a.i64(2), a.i64(3), 1, n, (long) k * n0 * k0, false);
        long o = Operand.map2d("out", out, 4, a.i64(4), a.i64(5), 1, m, (long) n * m0 * n0, true);
        boolean accumulate = (flags & MMT4D_ACCUMULATE) != 0;
        if (k0 == 0) {
            k = 0; // no products: also keeps the K loop from running unbounded over empty tiles
        }
        if (m == 0 || n == 0 || m0 == 0 || n0 == 0 || (k == 0 && accumulate)) {
            return CallOutcome.COMPLETED; // nothing to write (empty output tiles cost no memory, so do no work)
        }
        if (type == MMT4D_TYPE_F32F32F32) {
            long staged = (long) k * k0 * n * n0;
            if (staged > Integer.MAX_VALUE - 16 || (long) m0 * n * n0 > Integer.MAX_VALUE - 16) {
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "vmvx: mmt4d f32 RHS of " + staged
                        + " elements (N " + n + ", K " + k + ", N0 " + n0 + ", K0 " + k0 + ") is too large to stage");
            }
            Mmt4d.f32(scratch, lhs.segment(), l, a.i64(1), rhs.segment(), r, a.i64(3), out.segment(), o, a.i64(5),
                    m, n, k, m0, n0, k0, accumulate);
        } else {
            Mmt4d.s8s8s32(lhs.segment(), l, a.i64(1), rhs.segment(), r, a.i64(3), out.segment(), o, a.i64(5),
                    m, n, k, m0, n0, k0, accumulate);
        }
        return CallOutcome.COMPLETED;
    }

    private static CallOutcome pack(CallBuffer a) {
        int flags = a.i32(13);
        int type = flags & 0xFF;
        if ((type != PACK_TYPE_F32F32 && type != PACK_TYPE_I32I32 && type != PACK_TYPE_I8I8)
                || (flags & ~PACK_KNOWN_FLAGS) != 0) {
            throw unhandledFlags("pack", flags);
        }
        int width = type == PACK_TYPE_I8I8 ? 1 : 4;
        long in0 = a.i64(6);
        long in1 = a.i64(7);
        long[] out = {a.i64(8), a.i64(9), a.i64(10), a.i64(11)};
        long tileElements = tiledShape("pack", out, a.i64(5), flags);
        VmBuffer in = Operand.buffer("in", a.ref(0));
        VmBuffer dst = Operand.buffer("out", a.ref(1));
        long s = Operand.map2d("in", in, width, a.i64(0), a.i64(1), a.i64(2), in0, in1, false);
        long o = Operand.map2d("out", dst, width, a.i64(3), a.i64(4), 1, out[0], multiply("pack", out[1], tileElements),
                true);
        checkCovers("pack", out, flags, in0, in1);
        if (out[0] == 0 || out[1] == 0 || out[2] == 0 || out[3] == 0) {
            return CallOutcome.COMPLETED;
        }
        Packing.pack(width, flags, in.segment(), s, a.i64(1), a.i64(2), in0, in1, dst.segment(), o, a.i64(4),
                out[0], out[1], out[2], out[3], a.i64(12));
        return CallOutcome.COMPLETED;
    }

    private static CallOutcome unpack(CallBuffer a) {
        int flags = a.i32(12);
        int type = flags & 0xFF;
        if ((type != PACK_TYPE_F32F32 && type != PACK_TYPE_I32I32) || (flags & ~PACK_KNOWN_FLAGS) != 0) {
            throw unhandledFlags("unpack", flags);
        }
        long[] in = {a.i64(6), a.i64(7), a.i64(8), a.i64(9)};
        long out0 = a.i64(10);
        long out1 = a.i64(11);
        long tileElements = tiledShape("unpack", in, a.i64(2), flags);
        VmBuffer src = Operand.buffer("in", a.ref(0));
        VmBuffer out = Operand.buffer("out", a.ref(1));
        long s = Operand.map2d("in", src, 4, a.i64(0), a.i64(1), 1, in[0], multiply("unpack", in[1], tileElements),
                false);
        long o = Operand.map2d("out", out, 4, a.i64(3), a.i64(4), a.i64(5), out0, out1, true);
        checkCovers("unpack", in, flags, out0, out1);
        if (out0 == 0 || out1 == 0) {
            return CallOutcome.COMPLETED;
        }
        Packing.unpack(4, flags, src.segment(), s, a.i64(1), in[0], in[1], in[2], in[3], out.segment(), o,
                a.i64(4), a.i64(5), out0, out1);
        return CallOutcome.COMPLETED;
    }

    /** Checks the tiled side's sizes and its inner stride (IREE: the tile size); returns the tile size. */
    private static long tiledShape(String op, long[] sizes, long innerStride, int flags) {
        for (int i = 0; i < 4; i++) {
            if (sizes[i] < 0 || sizes[i] > 0xFFFF_FFFFL) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: " + op + " tiled size " + i + " = "
                        + sizes[i] + " is outside [0, 2^32)");
            }
        }
        long tile = multiply(op, sizes[2], sizes[3]);
        if (innerStride != tile) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: " + op + " tiled stride1 " + innerStride
                    + " must equal the tile size " + sizes[2] + " x " + sizes[3]);
        }
        return tile;
    }

    /** IREE's shape rule: the tiles (after the transpose flags) cover the untiled matrix. */
    private static void checkCovers(String op, long[] tiled, int flags, long size0, long size1) {
        long outer0 = tiled[0];
        long outer1 = tiled[1];
        long tile0 = tiled[2];
        long tile1 = tiled[3];
        if ((flags & Packing.TRANSPOSE_OUTER) != 0) {
            long t = outer0; outer0 = outer1; outer1 = t;
        }
        if ((flags & Packing.TRANSPOSE_INNER) != 0) {
            long t = tile0; tile0 = tile1; tile1 = t;
        }
        if (multiply(op, outer0, tile0) < size0 || multiply(op, outer1, tile1) < size1) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: " + op + " tiles " + outer0 + "x" + tile0
                    + " by " + outer1 + "x" + tile1 + " do not cover the " + size0 + "x" + size1 + " matrix");
        }
    }

    private static long multiply(String op, long a, long b) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: buffer overflow for " + op + " ("
                    + a + " x " + b + ")");
        }
    }

    private static CallOutcome queryTileSizes(NativeCall call) {
        int flags = call.args().i32(2);
        int operation = flags & 0xFF00;
        int role = flags & 0xFF;
        if (operation < 0x0100 || operation > 0x0600 || role < 1 || role > 3) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: query_tile_sizes.2d flags 0x"
                    + Integer.toHexString(flags) + " name no matmul operation and operand role");
        }
        long tileM = 8;
        long tileK = 4;
        long tileN = 8;
        CallBuffer results = call.results();
        results.setI64(0, role == 2 ? tileN : tileM);
        results.setI64(1, role == 3 ? tileN : tileK);
        return CallOutcome.COMPLETED;
    }

    private static StatusException unhandledFlags(String op, int flags) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "vmvx: " + op + " unhandled flags 0x"
                + Integer.toHexString(flags));
    }
}
