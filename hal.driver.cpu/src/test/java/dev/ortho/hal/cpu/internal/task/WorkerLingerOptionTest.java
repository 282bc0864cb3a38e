package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Driver;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDriverFactory;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout.ThreadMode;

/**
 * Issue 18: {@code task_worker_linger_us} defaults to {@code auto}, the adaptive linger (a worker
 * keeps polling after work only while work keeps coming back within 50 µs; the executor's
 * behaviour is tested in {@code AdaptiveLingerTest}, without timing), and a default device's
 * workers still park once it is idle; explicit values keep their meaning (N µs after every work
 * phase, 0 never).
 */
@org.junit.jupiter.api.Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class WorkerLingerOptionTest {
    private record Library(String name, List<KernelFunction> functions) implements KernelLibrary {}

    @Test
    void theDefaultIsTheAdaptiveLinger() {
        assertTrue(LocalTaskOptions.DEFAULTS.adaptiveLinger());
        assertEquals(LocalTaskOptions.LINGER_AUTO, LocalTaskOptions.DEFAULTS.lingerMicros());
        assertTrue(LocalTaskOptions.DEFAULTS.with(Map.of()).adaptiveLinger());
    }

    @Test
    void explicitValuesParseAsBefore() {
        LocalTaskOptions fixed = LocalTaskOptions.DEFAULTS.with(Map.of("task_worker_linger_us", "50"));
        assertFalse(fixed.adaptiveLinger());
        assertEquals(50, fixed.lingerMicros());
        LocalTaskOptions never = LocalTaskOptions.DEFAULTS.with(Map.of("task_worker_linger_us", " 0 "));
        assertFalse(never.adaptiveLinger());
        assertEquals(0, never.lingerMicros());
        assertTrue(fixed.with(Map.of("task_worker_linger_us", "auto")).adaptiveLinger());
        // ConfigAdmin's typed property spells auto as -1; a URI keeps rejecting negative numbers
        assertTrue(new LocalTaskOptions(1, 0, 64, 0, Long.MAX_VALUE, 0, null, false, LocalTaskOptions.LINGER_AUTO,
                false, true).adaptiveLinger());
    }

    @Test
    void badValuesAreInvalidArgumentsNamingTheOption() {
        for (String bad : new String[] {"-1", "-2", "soon", "10000001", "Auto"}) {
            StatusException e = assertThrows(StatusException.class,
                    () -> LocalTaskOptions.DEFAULTS.with(Map.of("task_worker_linger_us", bad)), bad);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("task_worker_linger_us") && e.getMessage().contains(bad.strip()),
                    e.getMessage());
        }
    }

    @Test
    void anIdleDefaultDevicesWorkersEndUpParked() {
        withDevice("", device -> {
            submitBackToBack(device, 200);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!device.executorStats().workers().stream().allMatch(w -> w.state().equals("PARKED"))) {
                assertTrue(System.nanoTime() < deadline, "workers never parked: " + device.executorStats());
                Thread.onSpinWait();
            }
        });
    }

    /** Submits {@code n} 1-tile dispatches back to back, each awaited. */
    private static void submitBackToBack(LocalTaskDevice device, int n) {
        try (ExecutableCache cache = device.createExecutableCache("c");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode("linger"), new int[0]));
                Semaphore s = device.createSemaphore(0)) {
            CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
            try {
                cb.begin();
                cb.dispatch(exe, 0, DispatchConfig.ofCount(1, 1, 1), MemorySegment.NULL, new BufferRef[0], 0);
                cb.end();
                for (int i = 1; i <= n; i++) {
                    device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(s, i), cb,
                            BindingTable.empty(), 0);
                    s.await(i, Timeout.of(Duration.ofSeconds(30)));
                }
            } finally {
                cb.release();
            }
        }
    }

    private static void withDevice(String params, java.util.function.Consumer<LocalTaskDevice> body) {
        KernelLibrary library = new Library("linger", List.of(
                new KernelFunction(new ExecutableFunctionInfo("nothing", 0, 0, 1, 1, 1, 0), (d, w) -> { })));
        try (CpuDriverFactory factory = CpuDrivers.builder().kernelLibrary(library).workerCount(2).localTaskFactory();
                Driver driver = factory.createDriver("local-task");
                Device device = driver.createDevice(DeviceUri.parse("local-task://" + params))) {
            body.accept((LocalTaskDevice) device);
        }
    }
}
