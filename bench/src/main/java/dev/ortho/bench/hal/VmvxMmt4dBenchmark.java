package dev.ortho.bench.hal;

import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * f32 matmul of {@code size × size × size}: the {@code vmvx.mmt4d} microkernel called through
 * the VM on pre-packed operands (tiles M0=8, N0=8, K0=4 as {@code vmvx.query_tile_sizes.2d}
 * answers) against the plain-Java i-k-j loop over heap arrays (DESIGN.md §6's ~6 GFLOP/s
 * reference). Time per matmul; GFLOP/s = 2·size³ / time.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class VmvxMmt4dBenchmark {
    private static final int M0 = 8;
    private static final int N0 = 8;
    private static final int K0 = 4;
    private static final int RW = VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST;

    @Param({"vmvx-mmt4d", "java-ikj"})
    public String impl;

    @Param({"64", "256"})
    public int size;

    private Context context;
    private Function mmt4d;
    private VmList args;
    private float[] a;
    private float[] b;
    private float[] c;

    @Setup
    public void setup() {
        a = new float[size * size];
        b = new float[size * size];
        c = new float[size * size];
        for (int i = 0; i < a.length; i++) {
            a[i] = (i % 17) * 0.125f - 1;
            b[i] = (i % 13) * 0.25f - 1.5f;
        }
        Module module = CpuDrivers.vmvxModule();
        context = Context.create(new Instance(), module);
        mmt4d = module.lookupExport("mmt4d");
        int tiles = size / M0;
        int kTiles = size / K0;
        VmBuffer lhs = VmBuffer.allocate(RW, 4L * size * size, 64);
        VmBuffer rhs = VmBuffer.allocate(RW, 4L * size * size, 64);
        VmBuffer out = VmBuffer.allocate(RW, 4L * size * size, 64);
        for (int i = 0; i < size * size; i++) { // contents do not matter for timing; keep them finite
            lhs.storeF32(i, a[i]);
            rhs.storeF32(i, b[i]);
        }
        args = VmList.ofVariants(16);
        args.pushRefRetain(lhs);
        args.pushI64(0);
        args.pushI64((long) kTiles * M0 * K0);
        args.pushRefRetain(rhs);
        args.pushI64(0);
        args.pushI64((long) kTiles * N0 * K0);
        args.pushRefRetain(out);
        args.pushI64(0);
        args.pushI64((long) (size / N0) * M0 * N0);
        args.pushI64(tiles);
        args.pushI64(size / N0);
        args.pushI64(kTiles);
        args.pushI32(M0);
        args.pushI32(N0);
        args.pushI32(K0);
        args.pushI32(1);
    }

    @TearDown
    public void tearDown() {
        args.clear();
        context.close();
    }

    @Benchmark
    public Object matmul() {
        if (impl.equals("vmvx-mmt4d")) {
            Invocation.invoke(context, mmt4d, args, null);
            return args;
        }
        int n = size;
        java.util.Arrays.fill(c, 0f);
        for (int i = 0; i < n; i++) {
            for (int p = 0; p < n; p++) {
                float aip = a[i * n + p];
                int bRow = p * n;
                int cRow = i * n;
                for (int j = 0; j < n; j++) {
                    c[cRow + j] += aip * b[bRow + j];
                }
            }
        }
        return c;
    }
}
