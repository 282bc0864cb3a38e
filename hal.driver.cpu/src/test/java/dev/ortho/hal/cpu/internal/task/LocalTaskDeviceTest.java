package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.AllocaFlags;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.Pool;
import dev.ortho.hal.PoolParams;
import dev.ortho.hal.PoolStatistics;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.QueueAxes;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** local-task specifics the CTS cannot see: options, queues and axes, wait elision, pool counters, teardown. */
class LocalTaskDeviceTest {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private final ExecutableLoaders libraries = TestLoaders.standard();

    private LocalTaskDevice device(String uri) {
        try (LocalTaskDriver driver = new LocalTaskDriver(libraries, LocalTaskOptions.DEFAULTS, QueueAxes.process())) {
            return (LocalTaskDevice) driver.createDevice(DeviceUri.parse(uri));
        }
    }

    private static int[] ints(Buffer buffer) {
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, copy);
        return copy.toArray(I32);
    }

    @Test
    void theRegistryCreatesLocalTaskDevicesWithUriOptions() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new LocalTaskDriverFactory(libraries, LocalTaskOptions.DEFAULTS));
        assertEquals(LocalTaskDriver.DESCRIPTION, registry.enumerate().getFirst().description());
        try (Device d = registry.createDevice("local-task://?queue_count=2&task_topology_group_count=3")) {
            LocalTaskDevice device = (LocalTaskDevice) d;
            assertEquals(2, device.queueCount());
            assertEquals(3, device.workerCount());
            assertEquals(3, device.queryI64("hal.dispatch", "concurrency"));
            assertEquals(2, device.queryI64("hal.device", "concurrency"));
            assertEquals(1, device.queryI64("hal.executable.format", JvmStaticFormat.FORMAT));
            assertEquals(1, device.queryI64("hal.device.id", "local-*"));
            assertNotEquals(device.queueAxis(0), device.queueAxis(1));
            assertEquals(Axis.DOMAIN_QUEUE, Axis.domain(device.queueAxis(1)));
            assertEquals(1, Axis.queueIndex(device.queueAxis(1)));
        }
    }

    @Test
    void badPathsAndParametersAreRefusedNamingTheValue() {
        LocalTaskDriver driver = new LocalTaskDriver(libraries, LocalTaskOptions.DEFAULTS, QueueAxes.process());
        assertEquals(StatusCode.NOT_FOUND, assertThrows(StatusException.class,
                () -> driver.createDevice(DeviceUri.parse("local-task://3"))).code());
        StatusException unknown = assertThrows(StatusException.class,
                () -> driver.createDevice(DeviceUri.parse("local-task://?workers=2")));
        assertEquals(StatusCode.INVALID_ARGUMENT, unknown.code());
        assertTrue(unknown.getMessage().contains("workers"), unknown.getMessage());
        // the keys it lists as known are every key a local-task URI takes, machine_index included
        assertTrue(unknown.getMessage().contains("machine_index"), unknown.getMessage());
        StatusException range = assertThrows(StatusException.class,
                () -> driver.createDevice(DeviceUri.parse("local-task://?queue_count=0")));
        assertTrue(range.getMessage().contains("queue_count = 0"), range.getMessage());
        StatusException number = assertThrows(StatusException.class,
                () -> driver.createDevice(DeviceUri.parse("local-task://?pool_quota_bytes=lots")));
        assertTrue(number.getMessage().contains("lots"), number.getMessage());
        StatusException mode = assertThrows(StatusException.class,
                () -> driver.createDevice(DeviceUri.parse("local-task://?vmvx_compile=fast")));
        assertEquals(StatusCode.INVALID_ARGUMENT, mode.code());
        assertTrue(mode.getMessage().contains("local-task device parameter vmvx_compile='fast' is not one of off, lazy, eager"),
                mode.getMessage());
        driver.close();
        assertEquals(StatusCode.UNAVAILABLE, assertThrows(StatusException.class, driver::queryAvailableDevices).code());
    }

    @Test
    void affinityBitsSelectQueuesAndBitsBeyondTheQueueCountAreRefused() {
        try (LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=1");
                Semaphore s = device.createSemaphore(0)) {
            device.queueBarrier(1L, NONE, SemaphoreList.of(s, 1), 0); // bit 0 → queue 0
            device.queueBarrier(5L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), 0); // bits 0, 2 → queue 0
            device.queueBarrier(6L, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), 0); // bits 1, 2 → queue 1
            StatusException none = assertThrows(StatusException.class,
                    () -> device.queueBarrier(4L, NONE, NONE, 0));
            assertEquals(StatusCode.INVALID_ARGUMENT, none.code());
            assertTrue(none.getMessage().contains("0x4"), none.getMessage());
            s.await(3, Timeout.infinite());
            assertEquals(2, device.queueFrontier(0).epochOf(device.queueAxis(0)));
            assertEquals(1, device.queueFrontier(1).epochOf(device.queueAxis(1)));
            assertEquals(2, device.queueFrontier(1).epochOf(device.queueAxis(0)), "queue 1 imported queue 0's epoch");
        }
    }

    @Test
    void waitsTheQueueFrontierAlreadyDominatesAreElided() {
        try (LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=1");
                Semaphore s = device.createSemaphore(0)) {
            device.queueBarrier(1L, NONE, SemaphoreList.of(s, 1), 0);
            s.await(1, Timeout.infinite());
            device.queueBarrier(1L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), 0);
            s.await(2, Timeout.infinite());
            assertEquals(1, device.skippedImports(0), "queue 0 signalled s@1 itself: nothing to import");
            device.queueBarrier(2L, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), 0);
            s.await(3, Timeout.infinite());
            assertEquals(0, device.skippedImports(1), "queue 1 had to import queue 0's frontier");
        }
    }

    @Test
    void poolReuseIsFenceFreeWhenDominatedAndImportsOtherwise() {
        try (LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=1");
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0)) {
            Buffer a = device.queueAlloca(1L, NONE, SemaphoreList.of(s, 1), BufferParams.deviceLocal(), 4096, 0);
            device.queueDealloca(1L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), a, 0);
            Buffer b = device.queueAlloca(1L, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), BufferParams.deviceLocal(),
                    4096, 0);
            device.queueDealloca(1L, SemaphoreList.of(s, 3), SemaphoreList.of(s, 4), b, 0);
            s.await(4, Timeout.infinite());
            long[] counters = device.poolCounters();
            assertEquals(1, counters[2], "one block created");
            assertEquals(1, counters[3], "same-queue reuse: the queue's frontier dominates the death frontier");
            // queue 1 has never heard of queue 0: reuse imports the death frontier's entries
            Buffer c = device.queueAlloca(2L, NONE, SemaphoreList.of(t, 1), BufferParams.deviceLocal(), 4096, 0);
            t.await(1, Timeout.infinite());
            counters = device.poolCounters();
            assertEquals(1, counters[2]);
            assertEquals(1, counters[4], "cross-queue reuse without ordering imported the death frontier");
            assertTrue(device.queueFrontier(1).epochOf(device.queueAxis(0)) >= 3, device.queueFrontier(1).toString());
            a.release();
            b.release();
            c.release();
        }
    }

    @Test
    void aPoolQuotaParksTheSecondAllocaUntilTheFirstIsDeallocated() {
        try (LocalTaskDevice device = device("local-task://?queue_count=2&pool_quota_bytes=65536");
                Semaphore go = device.createSemaphore(0); Semaphore first = device.createSemaphore(0);
                Semaphore second = device.createSemaphore(0)) {
            Buffer a = device.queueAlloca(1L, NONE, SemaphoreList.of(first, 1), BufferParams.deviceLocal(), 40_000, 0);
            first.await(1, Timeout.infinite());
            Buffer b = device.queueAlloca(2L, NONE, SemaphoreList.of(second, 1), BufferParams.deviceLocal(), 40_000, 0);
            long guard = System.nanoTime() + 60_000_000_000L; // hang guard only
            while (device.poolCounters()[5] == 0) { // until queue 1 has run the alloca and parked it
                assertTrue(System.nanoTime() < guard, "the second alloca never parked");
                Thread.onSpinWait();
            }
            assertStatus(() -> second.await(1, Timeout.immediate()));
            device.queueDealloca(1L, SemaphoreList.of(go, 1), SemaphoreList.of(first, 2), a, 0);
            assertEquals(0, second.query(), "still parked: the dealloca waits for the host");
            go.signal(1);
            second.await(1, Timeout.infinite());
            long[] counters = device.poolCounters();
            assertEquals(1, counters[5], "the second alloca parked once");
            assertEquals(1, counters[2], "and then reused the first block");
            a.release();
            b.release();
        }
    }

    @Test
    void aCreatedPoolCountsDominatedAndImportedReuseSeparatelyFromTheDefaultPool() {
        try (LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=1");
                Pool pool = device.createPool(PoolParams.deviceLocal(1 << 20));
                Semaphore s = device.createSemaphore(0); Semaphore t = device.createSemaphore(0)) {
            Buffer a = device.queueAlloca(1L, NONE, SemaphoreList.of(s, 1), pool, BufferParams.deviceLocal(), 4096, 0);
            device.queueDealloca(1L, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), a, 0);
            Buffer b = device.queueAlloca(1L, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), pool,
                    BufferParams.deviceLocal(), 4096, 0);
            device.queueDealloca(1L, SemaphoreList.of(s, 3), SemaphoreList.of(s, 4), b, 0);
            s.await(4, Timeout.infinite());
            // queue 1 has never heard of queue 0: reuse imports the death frontier's entries
            Buffer c = device.queueAlloca(2L, NONE, SemaphoreList.of(t, 1), pool, BufferParams.deviceLocal(), 4096,
                    AllocaFlags.ALLOW_POOL_WAIT_FRONTIER);
            t.await(1, Timeout.infinite());
            PoolStatistics stats = pool.statistics();
            assertEquals(3, stats.reservationCount(), stats.toString());
            assertEquals(1, stats.freshCount(), stats.toString());
            assertEquals(1, stats.waitsAvoided(), "same-queue reuse was dominated: " + stats);
            assertEquals(1, stats.waitsInserted(), "cross-queue reuse imported the death frontier: " + stats);
            assertTrue(device.queueFrontier(1).epochOf(device.queueAxis(0)) >= 3, device.queueFrontier(1).toString());
            assertTrue(pool.capabilities().frontierReuse());
            assertEquals(0, device.poolCounters()[2], "the default pool created no block");
            a.release();
            b.release();
            c.release();
        }
    }

    @Test
    void closingTheDeviceCancelsAnAllocaWaitingForACreatedPoolsMemory() {
        LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=1");
        Pool pool = device.createPool(PoolParams.deviceLocal(65536));
        Semaphore first = device.createSemaphore(0);
        Semaphore second = device.createSemaphore(0);
        Buffer a = device.queueAlloca(1L, NONE, SemaphoreList.of(first, 1), pool, BufferParams.deviceLocal(), 40_000, 0);
        first.await(1, Timeout.infinite());
        Buffer b = device.queueAlloca(2L, NONE, SemaphoreList.of(second, 1), pool, BufferParams.deviceLocal(), 40_000, 0);
        long guard = System.nanoTime() + 60_000_000_000L; // hang guard only
        while (pool.statistics().overBudgetCount() == 0) {
            assertTrue(System.nanoTime() < guard, "the second alloca never waited for memory");
            Thread.onSpinWait();
        }
        device.close();
        assertEquals(StatusCode.CANCELLED,
                assertThrows(StatusException.class, () -> second.await(1, Timeout.infinite())).code());
        a.release(); // gives the block back: the cancelled waiter is not woken on the dead device
        assertEquals(0, pool.statistics().bytesReserved(), pool.statistics().toString());
        pool.trim();
        assertEquals(0, pool.statistics().bytesCommitted(), pool.statistics().toString());
        pool.release();
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, pool::trim).code());
        b.release();
        first.release();
        second.release();
    }

    private static void assertStatus(org.junit.jupiter.api.function.Executable call) {
        assertEquals(StatusCode.DEADLINE_EXCEEDED, assertThrows(StatusException.class, call).code());
    }

    @Test
    void regionsOfACommandBufferRunInOrderWithTheirTilesSpreadOverTheWorkers() {
        int n = 64 * 1024;
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=4");
                ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                Buffer x = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * n);
                Buffer y = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * n);
                Buffer z = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * n);
                CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 0);
                Semaphore done = device.createSemaphore(0)) {
            MemorySegment constants = MemorySegment.ofArray(new int[] {n, Float.floatToIntBits(1.5f)});
            MemorySegment count = MemorySegment.ofArray(new int[] {n});
            int groups = n / BuiltinKernels.ELEMENTS_PER_WORKGROUP;
            cb.begin();
            // region 0: two independent dispatches of 64 tiles each
            cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(groups, 1, 1), constants,
                    new BufferRef[] {BufferRef.of(x)}, 0);
            cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(groups, 1, 1), constants,
                    new BufferRef[] {BufferRef.of(y)}, 0);
            cb.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.DISPATCH, 0);
            // region 1: z = x + y, then region 2: x = z * z (reads region 1's output)
            cb.dispatch(exe, exe.lookupFunction("add_f32"), DispatchConfig.ofCount(groups, 1, 1), count,
                    new BufferRef[] {BufferRef.of(x), BufferRef.of(y), BufferRef.of(z)}, 0);
            cb.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.DISPATCH, 0);
            cb.dispatch(exe, exe.lookupFunction("mul_f32"), DispatchConfig.ofCount(groups, 1, 1), count,
                    new BufferRef[] {BufferRef.of(z), BufferRef.of(z), BufferRef.of(x)}, 0);
            cb.end();
            for (int round = 1; round <= 3; round++) { // reusable: the cached dispatch states serve every round
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, round), cb,
                        BindingTable.empty(), 0);
                done.await(round, Timeout.infinite());
                MemorySegment out = MemorySegment.ofArray(new byte[4 * n]);
                x.read(0, out);
                for (int i = 0; i < n; i += 997) {
                    assertEquals(9f, out.getAtIndex(F32, i), "element " + i + " round " + round);
                }
                assertEquals(9f, out.getAtIndex(F32, n - 1));
            }
        }
    }

    /**
     * Regression: the completer re-read the cursor after publishing the next region; when the
     * other worker had meanwhile finished the last region, the re-read indexed past the region
     * array, the exception ended the queue's compute process and every later submission hung.
     * Many 1-tile regions on 2 workers make that interleaving common.
     */
    @Test
    void manyOneTileRegionsSubmittedRepeatedlyNeverStallTheQueue() {
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=2");
                ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                Buffer out = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4 * 100);
                CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 0);
                Semaphore done = device.createSemaphore(0)) {
            cb.begin();
            for (int i = 0; i < 100; i++) {
                if (i > 0) {
                    cb.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.DISPATCH, 0);
                }
                cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(1, 1, 1),
                        MemorySegment.ofArray(new int[] {i + 1, i}), new BufferRef[] {BufferRef.of(out)}, 0);
            }
            cb.end();
            for (int round = 1; round <= 20_000; round++) {
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, round), cb,
                        BindingTable.empty(), 0);
                done.await(round, Timeout.ofNanos(60_000_000_000L)); // hang guard only
            }
            int[] values = ints(out);
            for (int i = 0; i < 100; i++) {
                assertEquals(99, values[i], "element " + i + " was last written by the 100th region");
            }
        }
    }

    @Test
    void transfersAboveTheInlineThresholdStreamInChunks() {
        int bytes = 3 * 1024 * 1024 + 12;
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=2");
                Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
                Buffer b = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
                Semaphore s = device.createSemaphore(0)) {
            device.queueFill(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1), a, 4, bytes - 8, 0x0102, 2, 0);
            device.queueCopy(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), a, 0, b, 0,
                    bytes, 0);
            s.await(2, Timeout.infinite());
            int[] out = ints(b);
            assertEquals(0, out[0]);
            assertEquals(0x01020102, out[1]);
            assertEquals(0x01020102, out[out.length / 2]);
            assertEquals(0x01020102, out[out.length - 2]);
            assertEquals(0, out[out.length - 1]);
        }
    }

    @Test
    void aKernelFailureStopsTheLaterRegionsAndFailsTheSignals() {
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=2");
                ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                Buffer small = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                Buffer after = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 0);
                Semaphore done = device.createSemaphore(0)) {
            cb.begin();
            // n = 1000 elements but the buffer holds 4: the kernel's binding check fails
            cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(1, 1, 1),
                    MemorySegment.ofArray(new int[] {1000, 5}), new BufferRef[] {BufferRef.of(small)}, 0);
            cb.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.TRANSFER, 0);
            cb.fillBuffer(BufferRef.of(after), 7, 4, 0);
            cb.end();
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, 1), cb, BindingTable.empty(), 0);
            StatusException e = assertThrows(StatusException.class, () -> done.await(1, Timeout.infinite()));
            assertEquals(StatusCode.OUT_OF_RANGE, e.code());
            assertTrue(e.getMessage().contains("fill_x32"), e.getMessage());
            assertArrayEquals(new int[4], ints(after), "the region after the failure never ran");
        }
    }

    @Test
    void closingWithWorkInFlightCancelsItAndStopsEveryWorker() throws InterruptedException {
        Set<Thread> before = workers();
        LocalTaskDevice device = device("local-task://?queue_count=2&task_topology_group_count=2");
        Set<Thread> mine = workers();
        mine.removeAll(before);
        assertEquals(2, mine.size(), "the device started its two workers");
        Semaphore never = device.createSemaphore(0);
        Semaphore out = device.createSemaphore(0);
        Semaphore dispatched = device.createSemaphore(0);
        int m = 384;
        try (ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * m * m);
                Buffer c = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * m * m)) {
            for (int i = 0; i < 4; i++) { // some of this is running when the device closes
                device.queueDispatch(2L, NONE, SemaphoreList.of(dispatched, i + 1L), exe,
                        exe.lookupFunction("matmul_f32_scalar"),
                        DispatchConfig.ofCount(m / 32, m / 32, 1), MemorySegment.ofArray(new int[] {m, m, m}),
                        new BufferRef[] {BufferRef.of(a), BufferRef.of(a), BufferRef.of(c)}, 0);
            }
            device.queueBarrier(1L, SemaphoreList.of(never, 1), SemaphoreList.of(out, 1), 0);
            assertTrue(device.liveOperations() >= 1);
        }
        device.close();
        StatusException e = assertThrows(StatusException.class, () -> out.await(1, Timeout.infinite()));
        assertEquals(StatusCode.CANCELLED, e.code());
        // The dispatches either finished before the close or were cancelled; none is left pending.
        StatusException failure = dispatched.failure();
        if (failure != null) {
            assertEquals(StatusCode.CANCELLED, failure.code(), failure.getMessage());
        } else {
            assertEquals(4, dispatched.query(), "all four finished before the close");
        }
        assertEquals(0, device.liveOperations());
        for (Thread t : mine) {
            t.join(10_000);
            assertFalse(t.isAlive(), t.getName() + " still running after close");
        }
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class,
                () -> device.queueBarrier(1L, NONE, NONE, 0)).code());
        never.signal(1);
        never.release();
        out.release();
        dispatched.release();
    }

    private static Set<Thread> workers() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("ortho-worker-"))
                .collect(Collectors.toSet());
    }
}
