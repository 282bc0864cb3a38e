package dev.ortho.hal.cpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Driver;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.ExecutableFunctionInfo;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The public plain-Java way to build CPU drivers and devices ({@link CpuDrivers.Builder}). */
class CpuDriversTest {
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30));

    private record Library(String name, List<KernelFunction> functions) implements KernelLibrary {}

    private static StatusException fails(StatusCode code, org.junit.jupiter.api.function.Executable call) {
        StatusException e = assertThrows(StatusException.class, call);
        assertEquals(code, e.code(), e.getMessage());
        return e;
    }

    @Test
    void aLoaderGivenToTheBuilderAddsItsFormatOnBothDevices() {
        ScaleLoader loader = new ScaleLoader();
        List<Supplier<Device>> devices = List.of(
                () -> CpuDrivers.builder().loader(loader).localSync(),
                () -> CpuDrivers.builder().loader(loader).workerCount(2).localTask());
        for (Supplier<Device> supplier : devices) {
            try (Device device = supplier.get(); ExecutableCache cache = device.createExecutableCache("t")) {
                assertEquals(1, device.queryI64("hal.executable.format", ScaleLoader.FORMAT));
                assertEquals(1, device.queryI64("hal.executable.format", "jvm-static"));
                assertEquals(1, device.queryI64("hal.executable.format", "vmvx-bytecode-fb"));
                assertEquals(0, device.queryI64("hal.executable.format", "test-scale"));
                assertTrue(cache.canPrepareFormat(ScaleLoader.FORMAT));
                assertArrayEquals(new int[] {3, -6, 9}, scale(device, cache, 3, 1, -2, 3));
                assertEquals(0, loader.live.get(), "the executable is released");
                var e = fails(StatusCode.INVALID_ARGUMENT, () -> cache.prepareExecutable(
                        new ExecutableParams(ScaleLoader.FORMAT, MemorySegment.ofArray(new byte[3]), new int[0])));
                assertTrue(e.getMessage().contains("needs 4"), e.getMessage());
                assertTrue(e.getMessage().contains("while preparing a test-scale-i32 executable in cache 't'"),
                        e.getMessage());
            }
        }
    }

    @Test
    void withoutTheLoaderTheFormatIsIncompatibleNamingItAndTheFormatsPresent() {
        try (Device device = CpuDrivers.builder().localSync(); ExecutableCache cache = device.createExecutableCache("c")) {
            assertEquals(0, device.queryI64("hal.executable.format", ScaleLoader.FORMAT));
            assertFalse(cache.canPrepareFormat(ScaleLoader.FORMAT));
            var e = fails(StatusCode.INCOMPATIBLE, () -> cache.prepareExecutable(
                    new ExecutableParams(ScaleLoader.FORMAT, MemorySegment.ofArray(new byte[4]), new int[0])));
            assertTrue(e.getMessage().contains("'" + ScaleLoader.FORMAT + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("(formats with a loader: jvm-static, vmvx-bytecode-fb)"), e.getMessage());
        }
    }

    @Test
    void kernelLibrariesGivenToTheBuilderResolveBesideTheBuiltinOne() {
        KernelLibrary mine = new Library("mine", List.of(new KernelFunction(
                new ExecutableFunctionInfo("noop", 0, 0, 1, 1, 1, 0), (d, w) -> { })));
        try (Device device = CpuDrivers.builder().kernelLibrary(mine).localSync();
                ExecutableCache cache = device.createExecutableCache("c");
                Executable own = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode("mine"), new int[0]));
                Executable builtin = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS, "add_f32"), new int[0]))) {
            assertEquals(0, own.lookupFunction("noop"));
            assertEquals(0, builtin.lookupFunction("add_f32"));
        }
        fails(StatusCode.ALREADY_EXISTS, () -> CpuDrivers.builder().kernelLibrary(mine)
                .kernelLibrary(new Library("mine", List.of())).localSyncFactory());
    }

    @Test
    void localTaskOptionsReachTheDeviceAndUriParametersOverrideThem() {
        try (Device device = CpuDrivers.builder().queueCount(2).workerCount(1).localTask()) {
            assertEquals(2, device.queryI64("hal.device", "concurrency"));
            assertEquals(1, device.queryI64("hal.dispatch", "concurrency"));
        }
        try (CpuDriverFactory factory = CpuDrivers.builder().queueCount(2).workerCount(1).localTaskFactory();
                Driver driver = factory.createDriver("local-task");
                Device device = driver.createDevice(DeviceUri.parse("local-task://?queue_count=3"))) {
            assertEquals(3, device.queryI64("hal.device", "concurrency"));
            assertEquals(1, device.queryI64("hal.dispatch", "concurrency"));
        }
    }

    @Test
    void optionsOutsideTheirRangeAreInvalidArgumentNamingTheOption() {
        var queues = fails(StatusCode.INVALID_ARGUMENT, () -> CpuDrivers.builder().queueCount(0).localTask());
        assertTrue(queues.getMessage().contains("queue_count = 0"), queues.getMessage());
        var workers = fails(StatusCode.INVALID_ARGUMENT, () -> CpuDrivers.builder().workerCount(-1).localTaskFactory());
        assertTrue(workers.getMessage().contains("task_topology_group_count = -1"), workers.getMessage());
        var compile = fails(StatusCode.INVALID_ARGUMENT, () -> CpuDrivers.builder().vmvxCompile("turbo"));
        assertTrue(compile.getMessage().contains("vmvx_compile='turbo'"), compile.getMessage());
    }

    @Test
    void theLocalTaskFactoryTracksItsDevicesAndClosingTearsThemDown() {
        CpuDriverFactory factory = CpuDrivers.builder().workerCount(1).localTaskFactory();
        Driver driver = factory.createDriver("local-task");
        Device device = driver.createDevice(DeviceUri.parse("local-task://"));
        assertEquals(1, factory.liveDevices());
        Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4096);
        assertTrue(factory.liveBytes() >= 4096, "live bytes " + factory.liveBytes());
        buffer.release();
        factory.close();
        assertEquals(0, factory.liveDevices());
        fails(StatusCode.UNAVAILABLE, () -> factory.createDriver("local-task"));
        device.release();
        driver.close();
    }

    @Test
    void theVmvxModuleIsAvailableWithoutAFramework() {
        assertEquals("vmvx", CpuDrivers.vmvxModule().name());
    }

    /** Prepares a {@link ScaleLoader} executable of {@code factor} and runs it over {@code values} on {@code device}. */
    static int[] scale(Device device, ExecutableCache cache, int factor, int... values) {
        MemorySegment data = MemorySegment.ofArray(new byte[4]);
        data.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0, factor);
        long bytes = 4L * values.length;
        try (Executable executable = cache.prepareExecutable(new ExecutableParams(ScaleLoader.FORMAT, data, new int[0]));
                Buffer in = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
                Buffer out = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
                Semaphore done = device.createSemaphore(0)) {
            assertEquals(ScaleLoader.FORMAT, executable.format());
            in.write(0, MemorySegment.ofArray(values));
            device.queueDispatch(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), executable,
                    executable.lookupFunction("scale"), DispatchConfig.ofCount(1, 1, 1),
                    MemorySegment.ofArray(new int[] {values.length}), new BufferRef[] {BufferRef.of(in), BufferRef.of(out)},
                    0);
            done.await(1, GUARD);
            int[] result = new int[values.length];
            out.read(0, MemorySegment.ofArray(result));
            return result;
        }
    }
}
