package dev.ortho.bench.hal;

import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.MemorySegment;
import java.util.List;
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
 * One elementwise f32 multiply dispatch of {@code workgroups × 1024} elements on {@code local-sync}
 * (queue dispatch + semaphore wait), as a VMVX executable (a bytecode function per workgroup
 * calling {@code vmvx.mul.2d.f32} on its 1024 elements) against the {@code jvm-static} builtin
 * {@code mul_f32} (a Java kernel per workgroup of the same 1024 elements). The difference is the
 * cost of running each workgroup through the VM; {@code -prof gc} shows what it allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class VmvxDispatchBenchmark {
    private static final int ELEMENTS = 1024;
    private static final String SOURCE = """
            vm.module @mul version 0
            vm.type !vm.buffer
            vm.import @vmvx.mul.2d.f32 cconv "0rIIIrIIIrIIIII_v"
            vm.export @mul
            vm.func @mul(%r0: !vm.buffer, %r1: !vm.buffer, %r2: !vm.list<!vm.buffer>, %i0: i32, %i1: i32, %i2: i32, %i3: i32, %i4: i32, %i5: i32, %i6: i32, %i7: i32, %i8: i32) -> () attributes {binding_count = "3"} {
            ^bb0:
              %i9 = vm.const.i32 0
              %i10 = vm.const.i32 1
              %i11 = vm.const.i32 2
              %r3 = vm.list.get.ref %r2, %i9 : !vm.buffer
              %r4 = vm.list.get.ref %r2, %i10 : !vm.buffer
              %r5 = vm.list.get.ref %r2, %i11 : !vm.buffer
              %i12 = vm.const.i32 1024
              %i13 = vm.mul.i32 %i0, %i12
              %i14:15 = vm.ext.i32.i64.u %i13
              %i16:17 = vm.const.i64 1
              %i18:19 = vm.const.i64 1024
              vm.call @vmvx.mul.2d.f32(%r3, %i14:15, %i18:19, %i16:17, %r4, %i14:15, %i18:19, %i16:17, %r5, %i14:15, %i18:19, %i16:17, %i16:17, %i18:19)
              vm.discard.refs %r3, %r4, %r5
              vm.return
            }
            """;

    @Param({"vmvx", "jvm-static"})
    public String impl;

    @Param({"1", "64"})
    public int workgroups;

    private Device device;
    private ExecutableCache cache;
    private Executable executable;
    private Buffer lhs;
    private Buffer rhs;
    private Buffer out;
    private Semaphore done;
    private MemorySegment constants;
    private BufferRef[] bindings;
    private long value;

    @Setup
    public void setup() {
        List<InstructionExtension> extensions = List.of(new ExtF32Extension());
        device = CpuDrivers.builder().extensions(extensions).localSync();
        cache = device.createExecutableCache("bench");
        long bytes = 4L * ELEMENTS * workgroups;
        lhs = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
        rhs = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
        out = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
        lhs.fill(0, Buffer.WHOLE_BUFFER, Float.floatToIntBits(1.5f), 4);
        rhs.fill(0, Buffer.WHOLE_BUFFER, Float.floatToIntBits(2f), 4);
        bindings = new BufferRef[] {BufferRef.of(lhs), BufferRef.of(rhs), BufferRef.of(out)};
        if (impl.equals("vmvx")) {
            byte[] archive = BytecodeArchive.write(new Assembler(extensions).assemble(SOURCE, "mul.vmasm"));
            executable = cache.prepareExecutable(new ExecutableParams("vmvx-bytecode-fb", MemorySegment.ofArray(archive),
                    new int[0]));
            constants = MemorySegment.NULL;
        } else {
            executable = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                    JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS, "mul_f32"), new int[0]));
            constants = MemorySegment.ofArray(new int[] {ELEMENTS * workgroups});
        }
        done = device.createSemaphore(0);
    }

    @TearDown
    public void tearDown() {
        done.close();
        executable.release();
        cache.release();
        lhs.close();
        rhs.close();
        out.close();
        device.close();
    }

    @Benchmark
    public long dispatch() {
        value++;
        device.queueDispatch(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, value),
                executable, 0, DispatchConfig.ofCount(workgroups, 1, 1), constants, bindings, 0);
        done.await(value, Timeout.infinite());
        return value;
    }
}
