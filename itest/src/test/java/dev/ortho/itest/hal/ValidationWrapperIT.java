package dev.ortho.itest.hal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.DeviceWrapper;
import dev.ortho.itest.OrthoFramework;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Hashtable;
import java.util.List;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.ops4j.pax.exam.util.Filter;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The validation wrapper as a service (Felix and Equinox): the registry tracks the
 * {@code hal.wrapper.name=validation} {@link DeviceWrapper}, composes {@code validation+local-sync://},
 * and wraps every device once ConfigAdmin PID {@code dev.ortho.hal.registry} says so.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ValidationWrapperIT {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();
    /** Hang guard only. */
    private static final Duration GUARD = Duration.ofSeconds(30);

    @Inject
    private DriverRegistry registry;

    @Inject
    @Filter("(hal.wrapper.name=validation)")
    private DeviceWrapper validation;

    @Inject
    private ConfigurationAdmin configurations;

    @org.ops4j.pax.exam.Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    /** The validation layer's message for a bad fill pattern (local-sync words it differently). */
    private static boolean isValidationError(StatusException e) {
        return e.code() == StatusCode.INVALID_ARGUMENT && e.getMessage().contains("device.queueFill patternLength");
    }

    private static StatusException badFill(Device device) {
        try (Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16)) {
            device.queueFill(ANY, NONE, NONE, buffer, 0, 16, 0, 3, 0);
            fail("a 3-byte fill pattern was accepted");
            return null;
        } catch (StatusException e) {
            return e;
        }
    }

    @Test
    public void validationPlusLocalSyncValidatesAndRuns() {
        assertEquals("validation", validation.name());
        assertTrue(registry.wrapperNames().contains("validation"));
        assertFalse(registry.enumerate().stream().map(DriverInfo::name).anyMatch(n -> n.contains("validation")));
        try (Device device = registry.createDevice("validation+local-sync://");
                Semaphore done = device.createSemaphore(0);
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 8)) {
            device.queueFill(ANY, NONE, SemaphoreList.of(done, 1), buffer, 0, 8, 0x01020304, 4, 0);
            done.await(1, Timeout.of(GUARD));
            MemorySegment bytes = MemorySegment.ofArray(new byte[8]);
            buffer.read(0, bytes);
            assertArrayEquals(new byte[] {4, 3, 2, 1, 4, 3, 2, 1}, bytes.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            assertTrue(badFill(device).getMessage(), isValidationError(badFill(device)));
        }
        try (Device plain = registry.createDevice("local-sync://")) {
            assertFalse("no validation unless asked", isValidationError(badFill(plain)));
        }
    }

    @Test
    public void configurationWrapsEveryDevice() throws Exception {
        Configuration configuration = configurations.getConfiguration("dev.ortho.hal.registry", "?");
        try {
            Hashtable<String, Object> properties = new Hashtable<>();
            properties.put("deviceWrappers", new String[] {"validation"});
            configuration.update(properties);
            awaitDefaultWrappers(List.of("validation"));
            try (Device device = registry.createDevice("local-sync://")) {
                assertTrue(isValidationError(badFill(device)));
            }
        } finally {
            configuration.delete();
        }
        awaitDefaultWrappers(List.of());
    }

    /** ConfigAdmin delivers asynchronously: wait (hang-guarded) until the registry has the change. */
    private void awaitDefaultWrappers(List<String> expected) {
        long deadline = System.nanoTime() + GUARD.toNanos();
        while (!registry.defaultWrappers().equals(expected)) {
            if (System.nanoTime() > deadline) {
                fail("registry default wrappers stayed " + registry.defaultWrappers() + ", expected " + expected);
            }
            Thread.yield();
        }
    }
}
