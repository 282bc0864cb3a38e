package dev.ortho.itest.hal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.itest.OrthoFramework;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * Issue 17 §3: executable loaders are whiteboard services. A loader bundle (format
 * {@code itest-negate-i32}, built with TinyBundles in {@link #config()}) installed into the running
 * framework is usable at once on {@code local-sync} and {@code local-task} devices created before
 * the install: their {@code hal.executable.format} query answers 1, their executable caches
 * prepare its executables, and a dispatch runs its kernel. When the bundle is uninstalled the
 * format goes away again (query 0, preparation INCOMPATIBLE naming the format).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ExecutableLoaderInstallIT {
    private static final String FORMAT = "itest-negate-i32";
    /** Hang guard only. */
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30));

    @Inject
    private BundleContext context;

    @Inject
    private DriverRegistry drivers;

    @Configuration
    public Option[] config() throws Exception {
        return new Option[] {
            composite(OrthoFramework.provisioning()),
            systemProperty("it.hal.loader.bundle").value(LoaderBundles.build()),
        };
    }

    @Test
    public void aLoaderBundleInstalledAtRuntimeServesExistingDevicesAndItsFormatLeavesWithIt() throws Exception {
        List<Device> devices = List.of(drivers.createDevice("local-sync://"),
                drivers.createDevice("local-task://?task_topology_group_count=2"));
        try {
            for (Device device : devices) {
                assertEquals(0, device.queryI64("hal.executable.format", FORMAT));
                assertIncompatible(device);
            }
            Bundle bundle = context.installBundle(System.getProperty("it.hal.loader.bundle"));
            try {
                bundle.start();
                for (Device device : devices) {
                    OrthoFramework.awaitTrue("loader of " + device.info().name(),
                            () -> device.queryI64("hal.executable.format", FORMAT) == 1);
                    assertEquals("the builtin formats stay", 1, device.queryI64("hal.executable.format", "jvm-static"));
                    try (ExecutableCache cache = device.createExecutableCache("it")) {
                        assertTrue(cache.canPrepareFormat(FORMAT));
                        assertArrayEquals(new int[] {-1, 2, -3, 0}, negate(device, cache, 1, -2, 3, 0));
                    }
                }
            } finally {
                bundle.uninstall();
            }
            for (Device device : devices) {
                OrthoFramework.awaitTrue("loader of " + device.info().name() + " gone",
                        () -> device.queryI64("hal.executable.format", FORMAT) == 0);
                assertIncompatible(device);
            }
        } finally {
            devices.forEach(Device::release);
        }
    }

    private static void assertIncompatible(Device device) {
        try (ExecutableCache cache = device.createExecutableCache("it")) {
            assertFalse(cache.canPrepareFormat(FORMAT));
            cache.prepareExecutable(params()).release();
            fail("no loader for " + FORMAT + " is installed");
        } catch (StatusException e) {
            assertEquals(e.toString(), StatusCode.INCOMPATIBLE, e.code());
            assertTrue(e.getMessage(), e.getMessage().contains("'" + FORMAT + "'"));
        }
    }

    private static ExecutableParams params() {
        return new ExecutableParams(FORMAT, MemorySegment.ofArray("negate".getBytes(StandardCharsets.US_ASCII)),
                new int[0]);
    }

    private static int[] negate(Device device, ExecutableCache cache, int... values) {
        long bytes = 4L * values.length;
        try (Executable executable = cache.prepareExecutable(params());
                Buffer in = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
                Buffer out = device.allocator().allocateBuffer(BufferParams.hostLocal(), bytes);
                Semaphore done = device.createSemaphore(0)) {
            assertEquals(FORMAT, executable.format());
            in.write(0, MemorySegment.ofArray(values));
            device.queueDispatch(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), executable,
                    executable.lookupFunction("negate"), DispatchConfig.ofCount(1, 1, 1),
                    MemorySegment.ofArray(new int[] {values.length}),
                    new BufferRef[] {BufferRef.of(in), BufferRef.of(out)}, 0);
            done.await(1, GUARD);
            int[] result = new int[values.length];
            out.read(0, MemorySegment.ofArray(result));
            return result;
        }
    }
}
