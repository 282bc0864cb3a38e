package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import java.lang.foreign.Arena;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.vm.bytecode.ExecutionMode;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * VMVX executables written in VMASM, prepared and dispatched through the HAL of a CPU device and
 * compared with plain-Java reference results. Subclasses name the device.
 */
@org.junit.jupiter.api.Timeout(value = 60, threadMode = ThreadMode.SEPARATE_THREAD)
abstract class VmvxDispatchSuite {
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;

    Device device;
    ExecutableCache cache;

    /** A fresh device whose executable caches use {@link VmvxFixtures#registry()}. */
    abstract Device createDevice();

    /** How the device runs dispatch functions (its {@code vmvx_compile}; the loader's default EAGER unless the URI says). */
    ExecutionMode kernelExecution() {
        return ExecutionMode.EAGER;
    }

    @BeforeEach
    void open() {
        device = createDevice();
        cache = device.createExecutableCache("vmvx-test");
    }

    @AfterEach
    void close() {
        cache.release();
        device.close();
    }

    Buffer floats(float... values) {
        Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * values.length);
        MemorySegment data = MemorySegment.ofArray(new byte[4 * values.length]);
        for (int i = 0; i < values.length; i++) {
            data.setAtIndex(F32, i, values[i]);
        }
        buffer.write(0, data);
        return buffer;
    }

    Buffer nans(int count) {
        Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * count);
        buffer.fill(0, Buffer.WHOLE_BUFFER, 0x7FC00000, 4);
        return buffer;
    }

    static float[] read(Buffer buffer, int count) {
        MemorySegment data = MemorySegment.ofArray(new byte[4 * count]);
        buffer.read(0, data);
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = data.getAtIndex(F32, i);
        }
        return values;
    }

    static MemorySegment constants(int... values) {
        MemorySegment data = MemorySegment.ofArray(new byte[4 * values.length]);
        for (int i = 0; i < values.length; i++) {
            data.setAtIndex(I32, i, values[i]);
        }
        return data;
    }

    void dispatch(Executable executable, String function, DispatchConfig config, MemorySegment constants,
            Buffer... bindings) {
        BufferRef[] refs = new BufferRef[bindings.length];
        for (int i = 0; i < refs.length; i++) {
            refs[i] = BufferRef.of(bindings[i]);
        }
        try (Semaphore done = device.createSemaphore(0)) {
            device.queueDispatch(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), executable,
                    executable.lookupFunction(function), config, constants, refs, 0);
            done.await(1, Timeout.infinite());
        }
    }

    @Test
    void simpleMulMultipliesTwoFourVectors() {
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("simple_mul.vmasm"));
        try (Buffer lhs = floats(1, 2, 3, 4); Buffer rhs = floats(0.5f, -3, 10, 1e30f); Buffer out = nans(4)) {
            dispatch(executable, "simple_mul_dispatch_0", DispatchConfig.ofCount(1, 1, 1), null, lhs, rhs, out);
            assertArrayEquals(new float[] {1 * 0.5f, 2 * -3f, 3 * 10f, 4 * 1e30f}, read(out, 4));
        } finally {
            executable.release();
        }
    }

    /** A read-only HAL buffer importing {@code values} (as a program imports rodata constants). */
    Buffer readOnlyFloats(Arena arena, float... values) {
        MemorySegment data = arena.allocate(4L * values.length, 64);
        for (int i = 0; i < values.length; i++) {
            data.setAtIndex(F32, i, values[i]);
        }
        BufferParams params = new BufferParams(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE, MemoryAccess.READ,
                BufferUsage.DISPATCH_STORAGE | BufferUsage.TRANSFER | BufferUsage.SHARING_IMMUTABLE, ANY, 0);
        return device.allocator().importBuffer(params, data.asReadOnly(), null);
    }

    @Test
    void readOnlyImportedBindingsAreReadableAndRejectWrites() {
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("simple_mul.vmasm"));
        try (Arena arena = Arena.ofShared();
             Buffer lhs = readOnlyFloats(arena, 1, 2, 3, 4);
             Buffer rhs = readOnlyFloats(arena, 2, 2, 2, 2);
             Buffer out = nans(4)) {
            dispatch(executable, "simple_mul_dispatch_0", DispatchConfig.ofCount(1, 1, 1), null, lhs, rhs, out);
            assertArrayEquals(new float[] {2, 4, 6, 8}, read(out, 4));
            StatusException e = assertThrows(StatusException.class, () -> dispatch(executable,
                    "simple_mul_dispatch_0", DispatchConfig.ofCount(1, 1, 1), null, out, rhs, lhs));
            assertEquals(StatusCode.PERMISSION_DENIED, e.code(), e.getMessage());
        } finally {
            executable.release();
        }
    }

    @Test
    void functionInfoComesFromTheExportAttributes() {
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("scale_bias.vmasm", Float.floatToIntBits(1)));
        try {
            assertEquals(VmvxLoader.FORMAT, executable.format());
            assertEquals(1, executable.functionCount(), "__set_constants is not a dispatch function");
            assertEquals(new ExecutableFunctionInfo("scale_bias", 1, 2, 1, 1, 1, 16), executable.functionInfo(0));
            assertEquals(1, device.queryI64("hal.executable.format", VmvxLoader.FORMAT));
            assertTrue(cache.canPrepareFormat(VmvxLoader.FORMAT));
            assertEquals(StatusCode.NOT_FOUND, assertThrows(StatusException.class,
                    () -> executable.lookupFunction("__set_constants")).code());
        } finally {
            executable.release();
        }
    }

    @Test
    void matmulThroughPackMmt4dUnpackMatchesAReferenceProduct() {
        int m = 5;
        int k = 7;
        int n = 6;
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (i % 9) * 0.25f - 1;
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (i % 7) * 0.5f - 1.5f;
        }
        float[] expected = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float sum = 0;
                for (int p = 0; p < k; p++) {
                    sum += a[i * k + p] * b[p * n + j];
                }
                expected[i * n + j] = sum;
            }
        }
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("matmul_mmt4d.vmasm"));
        try (Buffer ab = floats(a); Buffer bb = floats(b); Buffer cb = nans(m * n); Buffer packedA = nans(3 * 3 * 2 * 3);
                Buffer packedB = nans(2 * 3 * 4 * 3)) {
            dispatch(executable, "matmul", DispatchConfig.ofCount(1, 1, 1), null, ab, bb, cb, packedA, packedB);
            float[] c = read(cb, m * n);
            for (int i = 0; i < c.length; i++) {
                assertEquals(expected[i], c[i], 1e-5f, "C[" + i / n + "][" + i % n + "]");
            }
        } finally {
            executable.release();
        }
    }

    @Test
    void scaleBiasReadsDispatchConstantsExecutableConstantsAndLocalMemory() {
        int groups = 5;
        float[] in = new float[4 * groups];
        for (int i = 0; i < in.length; i++) {
            in[i] = i - 7.5f;
        }
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("scale_bias.vmasm", Float.floatToIntBits(0.25f)));
        try (Buffer input = floats(in); Buffer out = nans(in.length)) {
            for (float scale : new float[] {3f, -0.5f}) { // the second dispatch must see new constants
                dispatch(executable, "scale_bias", DispatchConfig.ofCount(groups, 1, 1),
                        constants(Float.floatToIntBits(scale)), input, out);
                float[] result = read(out, in.length);
                for (int i = 0; i < in.length; i++) {
                    assertEquals(in[i] * scale + 0.25f, result[i], "element " + i + " with scale " + scale);
                }
            }
        } finally {
            executable.release();
        }
    }

    /**
     * Issue 16: the device's {@code vmvx_compile} decides: EAGER compiles when the executable is
     * prepared, LAZY once the workgroups (on whichever thread or worker runs them) have called
     * the module {@link ExecutionMode#LAZY_THRESHOLD} times, OFF never; the results are the same.
     */
    @Test
    void dispatchFunctionsRunAsTheDeviceSays() {
        int groups = 4 * ExecutionMode.LAZY_THRESHOLD;
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("scale_bias.vmasm", Float.floatToIntBits(1f)));
        try {
            List<String> report = ((VmvxExecutable) executable).compilationReport();
            assertEquals(kernelExecution() == ExecutionMode.EAGER, report.contains(null), report.toString());
            float[] in = new float[4 * groups];
            for (int i = 0; i < in.length; i++) {
                in[i] = i;
            }
            try (Buffer input = floats(in); Buffer out = nans(in.length)) {
                for (int round = 0; round < 2; round++) {
                    dispatch(executable, "scale_bias", DispatchConfig.ofCount(groups, 1, 1),
                            constants(Float.floatToIntBits(3f)), input, out);
                    float[] result = read(out, in.length);
                    for (int i = 0; i < in.length; i++) {
                        assertEquals(in[i] * 3f + 1f, result[i], "round " + round + " element " + i);
                    }
                }
            }
            report = ((VmvxExecutable) executable).compilationReport();
            assertEquals(kernelExecution() != ExecutionMode.OFF, report.contains(null), report.toString());
        } finally {
            executable.release();
        }
    }

    @Test
    void manyWorkgroupsAndConcurrentSubmittersEachGetTheirOwnWorkerContext() throws Exception {
        int groups = 256;
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("scale_bias.vmasm", Float.floatToIntBits(1f)));
        try {
            Thread[] threads = new Thread[3];
            Throwable[] failures = new Throwable[threads.length];
            for (int t = 0; t < threads.length; t++) {
                int id = t;
                threads[t] = new Thread(() -> {
                    float[] in = new float[4 * groups];
                    for (int i = 0; i < in.length; i++) {
                        in[i] = i * (id + 1);
                    }
                    try (Buffer input = floats(in); Buffer out = nans(in.length)) {
                        for (int round = 0; round < 20; round++) {
                            float scale = id + round;
                            dispatch(executable, "scale_bias", DispatchConfig.ofCount(groups, 1, 1),
                                    constants(Float.floatToIntBits(scale)), input, out);
                            float[] result = read(out, in.length);
                            for (int i = 0; i < in.length; i++) {
                                assertEquals(in[i] * scale + 1f, result[i], "thread " + id + " round " + round
                                        + " element " + i);
                            }
                        }
                    } catch (Throwable e) {
                        failures[id] = e;
                    }
                });
                threads[t].start();
            }
            for (int t = 0; t < threads.length; t++) {
                threads[t].join();
                if (failures[t] != null) {
                    throw new AssertionError("submitter " + t + " failed", failures[t]);
                }
            }
        } finally {
            executable.release();
        }
    }

    @Test
    void aCommandBufferReplayedWithNewBindingsSeesTheNewBuffers() {
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("simple_mul.vmasm"));
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, ANY, 3);
                Buffer x = floats(1, 2, 3, 4); Buffer y = floats(2, 2, 2, 2); Buffer z = floats(-1, 5, 0.5f, 8);
                Buffer out1 = nans(4); Buffer out2 = nans(4)) {
            cb.begin();
            cb.dispatch(executable, 0, DispatchConfig.ofCount(1, 1, 1), null,
                    new BufferRef[] {BufferRef.slot(0, 0, -1), BufferRef.slot(1, 0, -1), BufferRef.slot(2, 0, -1)}, 0);
            cb.end();
            try (Semaphore done = device.createSemaphore(0)) {
                device.queueExecute(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), cb, BindingTable.of(x, y, out1), 0);
                device.queueExecute(ANY, SemaphoreList.of(done, 1), SemaphoreList.of(done, 2), cb,
                        BindingTable.of(x, z, out2), 0);
                done.await(2, Timeout.infinite());
            }
            assertArrayEquals(new float[] {2, 4, 6, 8}, read(out1, 4));
            assertArrayEquals(new float[] {-1, 10, 1.5f, 32}, read(out2, 4));
        } finally {
            executable.release();
        }
    }

    @Test
    void aKernelErrorFailsTheDispatchWithTheVmStatusAndBacktrace() {
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("simple_mul.vmasm"));
        try (Buffer lhs = floats(1, 2, 3, 4); Buffer rhs = floats(1, 1, 1, 1); Buffer shortOut = nans(2)) {
            StatusException e = assertThrows(StatusException.class, () -> dispatch(executable, "simple_mul_dispatch_0",
                    DispatchConfig.ofCount(1, 1, 1), null, lhs, rhs, shortOut));
            assertEquals(StatusCode.OUT_OF_RANGE, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("vmvx: out range [0, 16) exceeds its buffer length 8"), e.getMessage());
            assertTrue(e.getMessage().contains("simple_mul.simple_mul_dispatch_0"), "backtrace: " + e.getMessage());
            // the worker is usable again afterwards
            try (Buffer out = nans(4)) {
                dispatch(executable, "simple_mul_dispatch_0", DispatchConfig.ofCount(1, 1, 1), null, lhs, rhs, out);
                assertArrayEquals(new float[] {1, 2, 3, 4}, read(out, 4));
            }
        } finally {
            executable.release();
        }
    }

    @Test
    void aKernelThatYieldsFailsTheDispatchInsteadOfHanging() {
        String source = """
                vm.module @yields version 0
                vm.export @d
                vm.func @d(%r0: !vm.buffer, %r1: !vm.buffer, %r2: !vm.list<!vm.buffer>, %i0: i32, %i1: i32, %i2: i32, %i3: i32, %i4: i32, %i5: i32, %i6: i32, %i7: i32, %i8: i32) -> () {
                ^bb0:
                  vm.yield ^bb1()
                ^bb1:
                  vm.return
                }
                """;
        Executable executable = cache.prepareExecutable(new ExecutableParams(VmvxLoader.FORMAT,
                MemorySegment.ofArray(VmvxFixtures.archive(source)), new int[0]));
        try {
            for (int attempt = 0; attempt < 2; attempt++) { // the worker's stack is clean again afterwards
                StatusException e = assertThrows(StatusException.class,
                        () -> dispatch(executable, "d", DispatchConfig.ofCount(2, 1, 1), null));
                assertEquals(StatusCode.FAILED_PRECONDITION, e.code(), e.getMessage());
                assertTrue(e.getMessage().contains("dispatch function 'd' yielded"), e.getMessage());
            }
        } finally {
            executable.release();
        }
    }

    @Test
    void aDispatchWithTheWrongBindingCountIsRejected() {
        Executable executable = cache.prepareExecutable(VmvxFixtures.params("simple_mul.vmasm"));
        try (Buffer lhs = floats(1, 2, 3, 4)) {
            StatusException e = assertThrows(StatusException.class, () -> dispatch(executable,
                    "simple_mul_dispatch_0", DispatchConfig.ofCount(1, 1, 1), null, lhs));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("has 1 bindings; the function uses 3"), e.getMessage());
        } finally {
            executable.release();
        }
    }
}
