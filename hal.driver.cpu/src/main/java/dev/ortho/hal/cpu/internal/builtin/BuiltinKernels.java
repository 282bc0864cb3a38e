package dev.ortho.hal.cpu.internal.builtin;

import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The builtin kernel library {@value #NAME}, registered by the CPU driver bundle. Elements are
 * little-endian 32-bit values; {@code n} is an element count (constant 0 unless noted).
 *
 * <ul>
 *   <li>{@code fill_x32} (bindings: out; constants: n, value) — {@code out[i] = value};
 *   <li>{@code copy_x32} (bindings: in, out; constants: n) — {@code out[i] = in[i]};
 *   <li>{@code add_f32}, {@code mul_f32}, {@code add_i32}, {@code mul_i32} (bindings: lhs, rhs,
 *       out; constants: n) — elementwise, integer ops wrap;
 *   <li>{@code matmul_f32} (bindings: A, B, C; constants: M, N, K) — row-major
 *       {@code C[M][N] = A[M][K] · B[K][N]}; {@code matmul_f32_scalar} is the same without the
 *       Vector API (the fallback, kept callable as a reference and benchmark peer).
 * </ul>
 * One-dimensional kernels give workgroup {@code x} the elements
 * {@code [x·sizeX, (x+1)·sizeX)} (default size {@value #ELEMENTS_PER_WORKGROUP}); dispatch
 * {@code ceil(n / sizeX)} workgroups. The matmul gives workgroup {@code (x, y)} the output tile of
 * columns {@code [x·sizeX, …)} and rows {@code [y·sizeY, …)} (default 32×32); dispatch
 * {@code (ceil(N / sizeX), ceil(M / sizeY), 1)}. Surplus workgroups do nothing. Kernels check the
 * binding lengths against the constants (OUT_OF_RANGE) and allocate nothing. The matmul uses a
 * register-blocked Vector API microkernel when {@code jdk.incubator.vector} is present and a
 * scalar i-k-j loop otherwise.
 *
 * <p>Immutable and thread-safe.
 */
public final class BuiltinKernels implements KernelLibrary {
    /** The library name. */
    public static final String NAME = "builtin";
    /** Default elements per workgroup of the one-dimensional kernels. */
    public static final int ELEMENTS_PER_WORKGROUP = 1024;
    /** Default matmul output tile edge. */
    public static final int MATMUL_TILE = 32;

    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final List<KernelFunction> FUNCTIONS = List.of(
            linear("fill_x32", 2, 1, BuiltinKernels::fill),
            linear("copy_x32", 1, 2, BuiltinKernels::copy),
            linear("add_f32", 1, 3, BuiltinKernels::addF32),
            linear("mul_f32", 1, 3, BuiltinKernels::mulF32),
            linear("add_i32", 1, 3, BuiltinKernels::addI32),
            linear("mul_i32", 1, 3, BuiltinKernels::mulI32),
            new KernelFunction(new ExecutableFunctionInfo("matmul_f32", 3, 3, MATMUL_TILE, MATMUL_TILE, 1,
                    MatmulF32.LOCAL_MEMORY), MatmulF32.select()),
            new KernelFunction(new ExecutableFunctionInfo("matmul_f32_scalar", 3, 3, MATMUL_TILE, MATMUL_TILE, 1, 0),
                    MatmulF32::run));

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<KernelFunction> functions() {
        return FUNCTIONS;
    }

    private static KernelFunction linear(String name, int constants, int bindings, Kernel kernel) {
        return new KernelFunction(new ExecutableFunctionInfo(name, constants, bindings, ELEMENTS_PER_WORKGROUP, 1, 1, 0),
                kernel);
    }

    /** Element count, checked against every binding: n·4 bytes each. */
    private static long count(DispatchState dispatch) {
        long n = Integer.toUnsignedLong(dispatch.constant(0));
        for (int i = 0; i < dispatch.bindingCount(); i++) {
            dispatch.requireBinding(i, n * 4);
        }
        return n;
    }

    private static long begin(DispatchState dispatch, WorkgroupState workgroup) {
        return (long) workgroup.workgroupIdX() * dispatch.workgroupSizeX();
    }

    /**
     * End of the workgroup starting at {@code begin}: one workgroup size further, capped at the
     * element count (which also checks that every binding holds that many elements).
     */
    private static long end(DispatchState dispatch, long begin) {
        return Math.min(count(dispatch), begin + dispatch.workgroupSizeX());
    }

    private static void fill(DispatchState dispatch, WorkgroupState workgroup) {
        int value = dispatch.constant(1);
        MemorySegment out = dispatch.binding(0);
        long begin = begin(dispatch, workgroup);
        long end = end(dispatch, begin);
        for (long i = begin; i < end; i++) {
            out.setAtIndex(I32, i, value);
        }
    }

    private static void copy(DispatchState dispatch, WorkgroupState workgroup) {
        long begin = begin(dispatch, workgroup);
        long end = end(dispatch, begin);
        if (begin < end) {
            MemorySegment.copy(dispatch.binding(0), begin * 4, dispatch.binding(1), begin * 4, (end - begin) * 4);
        }
    }

    private static void addF32(DispatchState dispatch, WorkgroupState workgroup) {
        MemorySegment lhs = dispatch.binding(0);
        MemorySegment rhs = dispatch.binding(1);
        MemorySegment out = dispatch.binding(2);
        long begin = begin(dispatch, workgroup);
        long end = end(dispatch, begin);
        for (long i = begin; i < end; i++) {
            out.setAtIndex(F32, i, lhs.getAtIndex(F32, i) + rhs.getAtIndex(F32, i));
        }
    }

    private static void mulF32(DispatchState dispatch, WorkgroupState workgroup) {
        MemorySegment lhs = dispatch.binding(0);
        MemorySegment rhs = dispatch.binding(1);
        MemorySegment out = dispatch.binding(2);
        long begin = begin(dispatch, workgroup);
        long end = end(dispatch, begin);
        for (long i = begin; i < end; i++) {
            out.setAtIndex(F32, i, lhs.getAtIndex(F32, i) * rhs.getAtIndex(F32, i));
        }
    }

    private static void addI32(DispatchState dispatch, WorkgroupState workgroup) {
        MemorySegment lhs = dispatch.binding(0);
        MemorySegment rhs = dispatch.binding(1);
        MemorySegment out = dispatch.binding(2);
        long begin = begin(dispatch, workgroup);
        long end = end(dispatch, begin);
        for (long i = begin; i < end; i++) {
            out.setAtIndex(I32, i, lhs.getAtIndex(I32, i) + rhs.getAtIndex(I32, i));
        }
    }

    private static void mulI32(DispatchState dispatch, WorkgroupState workgroup) {
        MemorySegment lhs = dispatch.binding(0);
        MemorySegment rhs = dispatch.binding(1);
        MemorySegment out = dispatch.binding(2);
        long begin = begin(dispatch, workgroup);
        long end = end(dispatch, begin);
        for (long i = begin; i < end; i++) {
            out.setAtIndex(I32, i, lhs.getAtIndex(I32, i) * rhs.getAtIndex(I32, i));
        }
    }
}
