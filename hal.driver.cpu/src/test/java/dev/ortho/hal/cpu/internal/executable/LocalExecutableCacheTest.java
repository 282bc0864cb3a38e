package dev.ortho.hal.cpu.internal.executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDevice;
import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.LoaderContext;
import dev.ortho.vm.bytecode.ExecutionMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** IREE's loader rules in the CPU devices' executable cache, and loaders coming and going at runtime. */
class LocalExecutableCacheTest {
    private static final String FORMAT = "test-format";
    private static final JvmStaticLoader BUILTIN = new JvmStaticLoader(List.of(new BuiltinKernels()));
    private static final ExecutableParams PARAMS = new ExecutableParams(FORMAT, JvmStaticFormat.encode("builtin"),
            new int[0]);

    /** Lists {@link #FORMAT}; fails with {@code code} or, when it is null, loads the data as jvm-static. */
    private record Loader(StatusCode code, List<LoaderContext> seen) implements ExecutableLoader {
        Loader(StatusCode code) {
            this(code, new ArrayList<>());
        }

        @Override
        public Set<String> formats() {
            return Set.of(FORMAT);
        }

        @Override
        public KernelExecutable load(ExecutableParams params, LoaderContext context) {
            seen.add(context);
            if (code != null) {
                throw new StatusException(code, "loader says " + code);
            }
            return BUILTIN.load(new ExecutableParams(JvmStaticFormat.FORMAT, params.data(), new int[0]), context);
        }
    }

    private static StatusException fails(StatusCode code, ExecutableCache cache) {
        StatusException e = assertThrows(StatusException.class, () -> cache.prepareExecutable(PARAMS));
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(code == StatusCode.INCOMPATIBLE ? "cache 'c'"
                : "while preparing a test-format executable in cache 'c'"), e.getMessage());
        return e;
    }

    @Test
    void notFoundAndCancelledPassTheExecutableToTheNextLoader() {
        for (StatusCode pass : List.of(StatusCode.NOT_FOUND, StatusCode.CANCELLED)) {
            Loader first = new Loader(pass);
            Loader second = new Loader(null);
            ExecutableCache cache = new LocalExecutableCache("c", new ExecutableLoaders(List.of(first, second), Map.of()));
            try (Executable executable = cache.prepareExecutable(PARAMS)) {
                assertEquals(1, first.seen().size());
                assertEquals(1, second.seen().size());
                assertEquals(0, executable.lookupFunction("fill_x32"));
            }
        }
    }

    @Test
    void anyOtherFailureIsFinal() {
        Loader second = new Loader(null);
        ExecutableCache cache = new LocalExecutableCache("c", new ExecutableLoaders(
                List.of(new Loader(StatusCode.INVALID_ARGUMENT), second), Map.of()));
        fails(StatusCode.INVALID_ARGUMENT, cache);
        assertEquals(0, second.seen().size());
    }

    @Test
    void whenEveryLoaderPassesTheLastNotFoundIsReported() {
        ExecutableCache cache = new LocalExecutableCache("c", new ExecutableLoaders(
                List.of(new Loader(StatusCode.CANCELLED), new Loader(StatusCode.NOT_FOUND)), Map.of()));
        assertTrue(fails(StatusCode.NOT_FOUND, cache).getMessage().contains("loader says NOT_FOUND"));
    }

    @Test
    void theDeviceOptionOverridesTheDriverDefaultInTheLoaderContext() {
        Loader loader = new Loader(null);
        ExecutableLoaders loaders = new ExecutableLoaders(List.of(loader), Map.of("vmvx_compile", "lazy"));
        new LocalExecutableCache("c", loaders).prepareExecutable(PARAMS).release();
        new LocalExecutableCache("c", loaders, ExecutionMode.OFF).prepareExecutable(PARAMS).release();
        assertEquals("lazy", loader.seen().get(0).option(LoaderContext.VMVX_COMPILE));
        assertEquals("off", loader.seen().get(1).option(LoaderContext.VMVX_COMPILE));
        assertEquals("c", loader.seen().get(1).cacheIdentifier());
        assertEquals(null, loader.seen().get(1).option("other"));
    }

    @Test
    void aLoaderAddedToALiveDeviceIsUsedAtOnceAndRemovingItTakesItsFormatAway() {
        ExecutableLoaders loaders = new ExecutableLoaders(List.of(BUILTIN), Map.of());
        try (Device device = new LocalSyncDevice(new DeviceInfo(0, "", "local-sync"), loaders);
                ExecutableCache cache = device.createExecutableCache("c")) {
            assertEquals(0, device.queryI64("hal.executable.format", FORMAT));
            StatusException before = fails(StatusCode.INCOMPATIBLE, cache);
            assertTrue(before.getMessage().contains("'test-format'") && before.getMessage().contains("jvm-static"),
                    before.getMessage());
            Loader loader = new Loader(null);
            loaders.add(loader);
            assertEquals(1, device.queryI64("hal.executable.format", FORMAT));
            assertTrue(cache.canPrepareFormat(FORMAT));
            Executable kept = cache.prepareExecutable(PARAMS);
            loaders.remove(loader);
            assertEquals(0, device.queryI64("hal.executable.format", FORMAT));
            fails(StatusCode.INCOMPATIBLE, cache);
            assertEquals(1, kept.lookupFunction("copy_x32"), "an executable prepared before stays usable");
            kept.release();
        }
    }
}
