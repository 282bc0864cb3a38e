package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.spi.ForwardingDevice;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The wrapper as applications reach it: through the registry's URI composition and default wrappers. */
class ValidationWrapperTest {

    private static DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(ValidationTestBase.LOCAL_SYNC);
        registry.registerWrapper(new ValidationWrapper());
        return registry;
    }

    @Test
    void validationPlusLocalSyncWrapsALocalSyncDevice() {
        try (Device device = registry().createDevice("validation+local-sync://")) {
            assertTrue(device instanceof ValidatingDevice, device.toString());
            Device inner = ((ForwardingDevice) device).delegate();
            assertEquals("local-sync device '" + inner.info().name() + "'", inner.toString());
            assertEquals(inner.info(), device.info());
            try (Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16)) {
                assertTrue(buffer instanceof ValidatingBuffer, "every object handed out is a validating proxy");
            }
        }
    }

    @Test
    void withoutTheWrapperInTheUriTheDeviceIsNotWrapped() {
        try (Device device = registry().createDevice("local-sync://")) {
            assertFalse(device instanceof ForwardingDevice, "zero cost when not requested: " + device);
        }
    }

    @Test
    void theRegistryCanWrapEveryDeviceItCreates() {
        DriverRegistry registry = registry();
        registry.setDefaultWrappers(List.of(ValidationWrapper.NAME));
        try (Device device = registry.createDevice("local-sync://")) {
            assertTrue(device instanceof ValidatingDevice, device.toString());
        }
        try (Device device = registry.createDevice("validation+local-sync://")) {
            assertFalse(((ForwardingDevice) device).delegate() instanceof ValidatingDevice, "not validated twice");
        }
    }

    @Test
    void unknownWrappersAndDriversAreNotFoundAndEnumerationIsUnaffected() {
        DriverRegistry registry = registry();
        StatusException wrapper = assertThrows(StatusException.class, () -> registry.createDevice("tracing+local-sync"));
        assertEquals(StatusCode.NOT_FOUND, wrapper.code());
        assertTrue(wrapper.getMessage().contains("'tracing'") && wrapper.getMessage().contains("validation"),
                wrapper.getMessage());
        StatusException driver = assertThrows(StatusException.class, () -> registry.createDevice("validation+nope://"));
        assertEquals(StatusCode.NOT_FOUND, driver.code());
        assertEquals(List.of("local-sync"), registry.enumerate().stream().map(DriverInfo::name).toList());
    }
}
