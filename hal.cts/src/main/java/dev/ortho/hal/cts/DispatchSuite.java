package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DispatchFlags;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Dispatch and executable conformance against the CTS test executable ({@link #testExecutable()}). */
public abstract class DispatchSuite extends DeviceTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private ExecutableCache cache;
    private Executable executable;

    @BeforeEach
    final void prepare() {
        ExecutableParams params = testExecutable();
        org.junit.jupiter.api.Assumptions.assumeTrue(params != null, "device provides no CTS test executable");
        cache = device.createExecutableCache("cts");
        executable = cache.prepareExecutable(params);
    }

    @AfterEach
    final void releaseExecutable() {
        if (executable != null) {
            executable.release();
            cache.release();
        }
    }

    private void dispatch(String function, DispatchConfig config, MemorySegment constants, Buffer... bindings) {
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
    void theCacheReportsItsFormatAndFunctionsAreFoundByName() {
        assertEquals(true, cache.canPrepareFormat(executable.format()));
        assertEquals(false, cache.canPrepareFormat("no-such-format"));
        assertEquals(1, device.queryI64("hal.executable.format", executable.format()));
        int add = executable.lookupFunction("add_f32");
        assertEquals("add_f32", executable.functionInfo(add).name());
        assertEquals(3, executable.functionInfo(add).bindingCount());
        assertStatus(StatusCode.NOT_FOUND, () -> executable.lookupFunction("no_such_function"));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> executable.functionInfo(executable.functionCount()));
        assertStatus(StatusCode.INCOMPATIBLE, () -> cache.prepareExecutable(
                new ExecutableParams("no-such-format", MemorySegment.ofArray(new byte[1]), new int[0])));
    }

    @Test
    void elementwiseAddCoversEveryElementOfARaggedGrid() {
        int n = 3000;
        int size = executable.functionInfo(executable.lookupFunction("add_f32")).workgroupSizeX();
        try (Buffer lhs = allocate(n * 4L); Buffer rhs = allocate(n * 4L); Buffer out = allocate(n * 4L)) {
            MemorySegment l = MemorySegment.ofArray(new byte[n * 4]);
            MemorySegment r = MemorySegment.ofArray(new byte[n * 4]);
            for (int i = 0; i < n; i++) {
                l.setAtIndex(F32, i, i);
                r.setAtIndex(F32, i, 0.5f);
            }
            lhs.write(0, l);
            rhs.write(0, r);
            dispatch("add_f32", DispatchConfig.ofCount((n + size - 1) / size, 1, 1), i32(n), lhs, rhs, out);
            MemorySegment result = MemorySegment.ofArray(new byte[n * 4]);
            out.read(0, result);
            for (int i = 0; i < n; i++) {
                assertEquals(i + 0.5f, result.getAtIndex(F32, i), "element " + i);
            }
        }
    }

    @Test
    void matmulMatchesAReferenceProduct() {
        int m = 37;
        int n = 45;
        int k = 29;
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        for (int i = 0; i < a.length; i++) {
            a[i] = (i % 7) - 3;
        }
        for (int i = 0; i < b.length; i++) {
            b[i] = (i % 5) - 2;
        }
        var info = executable.functionInfo(executable.lookupFunction("matmul_f32"));
        try (Buffer ab = allocate(a.length * 4L); Buffer bb = allocate(b.length * 4L); Buffer cb = allocate(m * n * 4L)) {
            ab.write(0, f32(a));
            bb.write(0, f32(b));
            cb.fill(0, Buffer.WHOLE_BUFFER, 0x7FC00000, 4); // NaN: the kernel must overwrite, not accumulate
            dispatch("matmul_f32", DispatchConfig.ofCount((n + info.workgroupSizeX() - 1) / info.workgroupSizeX(),
                    (m + info.workgroupSizeY() - 1) / info.workgroupSizeY(), 1), i32(m, n, k), ab, bb, cb);
            MemorySegment c = MemorySegment.ofArray(new byte[m * n * 4]);
            cb.read(0, c);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    float expected = 0;
                    for (int p = 0; p < k; p++) {
                        expected += a[i * k + p] * b[p * n + j];
                    }
                    assertEquals(expected, c.getAtIndex(F32, (long) i * n + j), "C[" + i + "][" + j + "]");
                }
            }
        }
    }

    @Test
    void indirectWorkgroupCountsAreReadWhenTheDispatchRuns() {
        // IREE requires DISPATCH_INDIRECT_PARAMETERS usage of a workgroup count buffer (the validation wrapper checks it)
        BufferParams countParams = new BufferParams(BufferParams.hostLocal().type(), MemoryAccess.ALL,
                BufferUsage.DEFAULT | BufferUsage.MAPPING | BufferUsage.DISPATCH_INDIRECT_PARAMETERS, 0, 0);
        try (Buffer count = device.allocator().allocateBuffer(countParams, 12); Buffer out = allocate(8);
                Semaphore done = device.createSemaphore(0)) {
            count.write(0, i32(1, 1, 1));
            BufferRef countRef = BufferRef.of(count);
            device.queueDispatch(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), executable,
                    executable.lookupFunction("fill_x32"), DispatchConfig.indirect(countRef), i32(2, 77),
                    new BufferRef[] {BufferRef.of(out)}, DispatchFlags.STATIC_INDIRECT_PARAMETERS);
            done.await(1, Timeout.infinite());
            assertArrayEquals(new int[] {77, 77}, readInts(out));
        }
    }

    @Test
    void dispatchesInCommandBuffersUseBindingTableSlots() {
        try (CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, ANY, 3);
                Buffer x = ints(2, 3, 4); Buffer y = ints(5, 6, 7); Buffer out = allocate(12);
                Semaphore done = device.createSemaphore(0)) {
            cb.begin();
            cb.dispatch(executable, executable.lookupFunction("mul_i32"), DispatchConfig.ofCount(1, 1, 1), i32(3),
                    new BufferRef[] {BufferRef.slot(0, 0, -1), BufferRef.slot(1, 0, -1), BufferRef.slot(2, 0, -1)}, 0);
            cb.end();
            device.queueExecute(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), cb, BindingTable.of(x, y, out), 0);
            done.await(1, Timeout.infinite());
            assertArrayEquals(new int[] {10, 18, 28}, readInts(out));
        }
    }

    @Test
    void wrongConstantOrBindingCountsAreInvalidArgument() {
        try (Buffer out = allocate(8)) {
            BufferRef[] one = {BufferRef.of(out)};
            int fill = executable.lookupFunction("fill_x32");
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queueDispatch(ANY, SemaphoreList.empty(),
                    SemaphoreList.empty(), executable, fill, DispatchConfig.ofCount(1, 1, 1), i32(2), one, 0));
            assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queueDispatch(ANY, SemaphoreList.empty(),
                    SemaphoreList.empty(), executable, fill, DispatchConfig.ofCount(1, 1, 1), i32(2, 1),
                    new BufferRef[0], 0));
            assertStatus(StatusCode.OUT_OF_RANGE, () -> device.queueDispatch(ANY, SemaphoreList.empty(),
                    SemaphoreList.empty(), executable, 1 << 20, DispatchConfig.ofCount(1, 1, 1), i32(2, 1), one, 0));
        }
    }

    @Test
    void aKernelFailureFailsTheSignalSemaphores() {
        try (Buffer out = allocate(8); Semaphore done = device.createSemaphore(0)) {
            device.queueDispatch(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), executable,
                    executable.lookupFunction("fill_x32"), DispatchConfig.ofCount(1, 1, 1), i32(1000, 1),
                    new BufferRef[] {BufferRef.of(out)}, 0);
            assertStatus(StatusCode.OUT_OF_RANGE, () -> done.await(1, Timeout.infinite()));
        }
    }

    private static MemorySegment f32(float[] values) {
        MemorySegment segment = MemorySegment.ofArray(new byte[values.length * 4]);
        for (int i = 0; i < values.length; i++) {
            segment.setAtIndex(F32, i, values[i]);
        }
        return segment;
    }
}
