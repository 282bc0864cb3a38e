package dev.ortho.bench.hal;

import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * {@code vmvx.mmt4d} f32 on the exact calls IREE's compiler emits for the models of
 * {@code models/} (the {@code .vmvx-ukernels-dt} variants, tiles N0 = 8, K0 = 4), against two
 * peers over the same {@link VmBuffer} memory in the same run:
 *
 * <ul>
 * <li>{@code vmvx}: the microkernel called through the VM ({@link Invocation#invoke}, as a
 *     dispatch function's import call; includes the call and argument checks);</li>
 * <li>{@code scalar}: a plain Java loop in IREE's generic tile-function order (per output,
 *     {@code acc += lhs * rhs} over k then k0) — what IREE's C runtime runs for these tiles, as
 *     its x86 tile functions exist only for K0 = 1;</li>
 * <li>{@code vector-naive}: a straightforward Vector API loop — per output tile row, the
 *     {@code N0·K0 = 32} products of a K step multiply-added (FMA) into four lane-wise partial
 *     sums, reduced by k0 groups at the end (different summation order; results differ from IREE
 *     in the last bits).</li>
 * </ul>
 *
 * <p>Shapes ({@code M×N×K, M0}): {@code mlp} = 1×16×196, M0 = 1 (the 1×784 · 784×128 layer);
 * {@code mlp2} = 1×2×32, M0 = 1; {@code tf-ffn} = 2×32×16, M0 = 8 (transformer 16×64 · 64×256);
 * {@code tf-proj} = 2×8×64, M0 = 8 (16×256 · 256×64); {@code tf-qkv} = 2×8×16, M0 = 8.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class VmvxMmt4dShapesBenchmark {
    private static final int N0 = 8;
    private static final int K0 = 4;
    private static final int RW = VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST;
    private static final ValueLayout.OfFloat F32 =
            ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_256;

    @Param({"vmvx", "scalar", "vector-naive"})
    public String impl;

    @Param({"mlp", "mlp2", "tf-ffn", "tf-proj", "tf-qkv"})
    public String shape;

    private int m;
    private int n;
    private int k;
    private int m0;
    private Context context;
    private Function mmt4d;
    private VmList args;
    private MemorySegment lhs;
    private MemorySegment rhs;
    private MemorySegment out;

    @Setup
    public void setup() {
        int[] s = switch (shape) {
            case "mlp" -> new int[] {1, 16, 196, 1};
            case "mlp2" -> new int[] {1, 2, 32, 1};
            case "tf-ffn" -> new int[] {2, 32, 16, 8};
            case "tf-proj" -> new int[] {2, 8, 64, 8};
            case "tf-qkv" -> new int[] {2, 8, 16, 8};
            default -> throw new IllegalArgumentException("unknown shape " + shape);
        };
        m = s[0];
        n = s[1];
        k = s[2];
        m0 = s[3];
        Module module = CpuDrivers.vmvxModule();
        context = Context.create(new Instance(), module);
        mmt4d = module.lookupExport("mmt4d");
        long lhsLength = (long) m * k * m0 * K0;
        long rhsLength = (long) n * k * N0 * K0;
        long outLength = (long) m * n * m0 * N0;
        VmBuffer l = VmBuffer.allocate(RW, 4 * lhsLength, 64);
        VmBuffer r = VmBuffer.allocate(RW, 4 * rhsLength, 64);
        VmBuffer o = VmBuffer.allocate(RW, 4 * outLength, 64);
        for (long i = 0; i < lhsLength; i++) {
            l.storeF32(i, (i % 17) * 0.125f - 1);
        }
        for (long i = 0; i < rhsLength; i++) {
            r.storeF32(i, (i % 13) * 0.25f - 1.5f);
        }
        lhs = l.segment();
        rhs = r.segment();
        out = o.segment();
        args = VmList.ofVariants(16);
        args.pushRefRetain(l);
        args.pushI64(0);
        args.pushI64((long) k * m0 * K0);
        args.pushRefRetain(r);
        args.pushI64(0);
        args.pushI64((long) k * N0 * K0);
        args.pushRefRetain(o);
        args.pushI64(0);
        args.pushI64((long) n * m0 * N0);
        args.pushI64(m);
        args.pushI64(n);
        args.pushI64(k);
        args.pushI32(m0);
        args.pushI32(N0);
        args.pushI32(K0);
        args.pushI32(0x601); // f32, as the compiler emits it (skip intermediate roundings, generic fallback)
        l.release();
        r.release();
        o.release();
    }

    @TearDown
    public void tearDown() {
        args.clear();
        context.close();
    }

    @Benchmark
    public Object mmt4d() {
        switch (impl) {
            case "vmvx" -> Invocation.invoke(context, mmt4d, args, null);
            case "scalar" -> scalar();
            default -> vectorNaive();
        }
        return out;
    }

    /** IREE's generic tile function, per output element. */
    private void scalar() {
        long lhsStride = 4L * k * m0 * K0;
        long rhsStride = 4L * k * N0 * K0;
        long outStride = 4L * n * m0 * N0;
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                long lp = i * lhsStride;
                long rp = j * rhsStride;
                long op = i * outStride + 4L * j * m0 * N0;
                for (int i0 = 0; i0 < m0; i0++) {
                    for (int j0 = 0; j0 < N0; j0++) {
                        float acc = 0;
                        for (int kk = 0; kk < k; kk++) {
                            long l = lp + 4L * ((kk * m0 + i0) * K0);
                            long r = rp + 4L * ((kk * N0 + j0) * K0);
                            for (int kz = 0; kz < K0; kz++) {
                                acc += lhs.get(F32, l + 4L * kz) * rhs.get(F32, r + 4L * kz);
                            }
                        }
                        out.set(F32, op + 4L * (i0 * N0 + j0), acc);
                    }
                }
            }
        }
    }

    /**
     * Per tile row: four 8-lane FMA accumulators over the 32 products [j0][k0] of each K step
     * (the LHS row's 4 values repeated), then each output is the sum of its 4 lanes.
     */
    private void vectorNaive() {
        long lhsStride = 4L * k * m0 * K0;
        long rhsStride = 4L * k * N0 * K0;
        long outStride = 4L * n * m0 * N0;
        float[] pattern = new float[8];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                long lp = i * lhsStride;
                long rp = j * rhsStride;
                long op = i * outStride + 4L * j * m0 * N0;
                for (int i0 = 0; i0 < m0; i0++) {
                    FloatVector acc0 = FloatVector.zero(S);
                    FloatVector acc1 = acc0;
                    FloatVector acc2 = acc0;
                    FloatVector acc3 = acc0;
                    for (int kk = 0; kk < k; kk++) {
                        long l = lp + 4L * ((kk * m0 + i0) * K0);
                        for (int kz = 0; kz < K0; kz++) {
                            pattern[kz] = lhs.get(F32, l + 4L * kz);
                            pattern[kz + 4] = pattern[kz];
                        }
                        FloatVector a = FloatVector.fromArray(S, pattern, 0);
                        long r = rp + 4L * (kk * N0 * K0);
                        acc0 = FloatVector.fromMemorySegment(S, rhs, r, ByteOrder.LITTLE_ENDIAN).fma(a, acc0);
                        acc1 = FloatVector.fromMemorySegment(S, rhs, r + 32, ByteOrder.LITTLE_ENDIAN).fma(a, acc1);
                        acc2 = FloatVector.fromMemorySegment(S, rhs, r + 64, ByteOrder.LITTLE_ENDIAN).fma(a, acc2);
                        acc3 = FloatVector.fromMemorySegment(S, rhs, r + 96, ByteOrder.LITTLE_ENDIAN).fma(a, acc3);
                    }
                    long o = op + 4L * i0 * N0;
                    store(acc0, o);
                    store(acc1, o + 8);
                    store(acc2, o + 16);
                    store(acc3, o + 24);
                }
            }
        }
    }

    /** Lanes [0..3] and [4..7] of {@code acc} are the k0 partial sums of two adjacent outputs. */
    private void store(FloatVector acc, long o) {
        out.set(F32, o, acc.reduceLanes(VectorOperators.ADD, LOW_HALF));
        out.set(F32, o + 4, acc.reduceLanes(VectorOperators.ADD, HIGH_HALF));
    }

    private static final VectorMask<Float> LOW_HALF =
            VectorMask.fromArray(S, new boolean[] {true, true, true, true, false, false, false, false}, 0);
    private static final VectorMask<Float> HIGH_HALF = LOW_HALF.not();
}
