package dev.ortho.hal.cpu.internal.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.JvmStaticLoader;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import java.util.List;
import org.junit.jupiter.api.Test;

class LocalSyncDriverTest {
    private final JvmStaticLoader jvmStatic = new JvmStaticLoader(List.of(new BuiltinKernels()));
    private final ExecutableLoaders libraries = TestLoaders.of(jvmStatic, List.of());

    private static StatusCode code(org.junit.jupiter.api.function.Executable call) {
        return assertThrows(StatusException.class, call).code();
    }

    @Test
    void theRegistryCreatesLocalSyncDevicesByUri() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new LocalSyncDriverFactory(libraries));
        assertEquals(LocalSyncDriver.DESCRIPTION, registry.enumerate().getFirst().description());
        try (Device device = registry.createDevice("local-sync://")) {
            assertEquals(1, device.queryI64("hal.device.id", "local-sync"));
            assertEquals(1, device.queryI64("hal.device.id", "local-*"));
            assertEquals(0, device.queryI64("hal.device.id", "local-task"));
            assertEquals(1, device.queryI64("hal.executable.format", JvmStaticFormat.FORMAT));
        }
    }

    @Test
    void unknownPathsParametersAndClosedDriversAreRefused() {
        LocalSyncDriver driver = new LocalSyncDriver(libraries);
        assertEquals(1, driver.queryAvailableDevices().size());
        assertEquals(StatusCode.NOT_FOUND, code(() -> driver.createDevice(DeviceUri.parse("local-sync://7"))));
        assertEquals(StatusCode.INVALID_ARGUMENT, code(() -> driver.createDevice(DeviceUri.parse("local-sync://?x=1"))));
        StatusException mode = assertThrows(StatusException.class,
                () -> driver.createDevice(DeviceUri.parse("local-sync://?vmvx_compile=sometimes")));
        assertEquals(StatusCode.INVALID_ARGUMENT, mode.code());
        assertTrue(mode.getMessage().contains("local-sync device parameter vmvx_compile='sometimes' is not one of off,"
                + " lazy, eager"), mode.getMessage());
        driver.createDevice(DeviceUri.parse("local-sync://?vmvx_compile=LAZY")).close();
        driver.close();
        assertEquals(StatusCode.UNAVAILABLE, code(driver::queryAvailableDevices));
        assertEquals(StatusCode.NOT_FOUND, code(() -> new LocalSyncDriverFactory(libraries).createDriver("local-task")));
    }

    @Test
    void executablesResolveAgainstTheLibrariesPresentWhenPrepared() {
        try (LocalSyncDriver driver = new LocalSyncDriver(libraries);
                Device device = driver.createDevice(DeviceUri.parse("local-sync://"));
                ExecutableCache cache = device.createExecutableCache("test")) {
            ExecutableParams mine = new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode("mine"), new int[0]);
            StatusException missing = assertThrows(StatusException.class, () -> cache.prepareExecutable(mine));
            assertEquals(StatusCode.NOT_FOUND, missing.code());
            assertTrue(missing.getMessage().contains("mine"), missing.getMessage());
            KernelLibrary library = new KernelLibrary() {
                @Override
                public String name() {
                    return "mine";
                }

                @Override
                public List<KernelFunction> functions() {
                    return List.of(new KernelFunction(new ExecutableFunctionInfo("noop", 0, 0, 1, 1, 1, 0), (d, w) -> { }));
                }
            };
            jvmStatic.add(library);
            try (var executable = cache.prepareExecutable(mine)) {
                assertEquals(0, executable.lookupFunction("noop"));
            }
            ExecutableParams absent = new ExecutableParams(JvmStaticFormat.FORMAT,
                    JvmStaticFormat.encode("builtin", "add_f32", "nope"), new int[0]);
            assertEquals(StatusCode.NOT_FOUND, code(() -> cache.prepareExecutable(absent)));
            jvmStatic.remove(library);
            assertEquals(StatusCode.NOT_FOUND, code(() -> cache.prepareExecutable(mine)));
        }
    }

    @Test
    void dispatchStateIndexErrorsAreOutOfRange() {
        var state = new dev.ortho.hal.cpu.kernel.DispatchState(new int[] {1, 1, 1}, new int[] {1, 1, 1}, new int[] {5},
                new java.lang.foreign.MemorySegment[0], 1);
        assertEquals(5, state.constant(0));
        assertEquals(StatusCode.OUT_OF_RANGE, code(() -> state.constant(1)));
        assertEquals(StatusCode.OUT_OF_RANGE, code(() -> state.binding(0)));
        assertEquals(StatusCode.INVALID_ARGUMENT, code(() -> new dev.ortho.hal.cpu.kernel.DispatchState(
                new int[] {0, 1, 1}, new int[] {1, 1, 1}, new int[0], new java.lang.foreign.MemorySegment[0], 1)));
    }
}
