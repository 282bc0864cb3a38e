package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.frontier.Axis;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 §3: a {@code local-task} device created through the registry (as the OSGi component
 * and {@code ortho serve-device} create them) can carry a machine index in its queue axes.
 */
class Issue20MachineIndexTest {
    private final DriverRegistry registry = new DriverRegistry();

    Issue20MachineIndexTest() {
        registry.register(new LocalTaskDriverFactory(TestLoaders.standard(), LocalTaskOptions.DEFAULTS));
    }

    @Test
    void theMachineIndexParameterGoesIntoEveryQueueAxis() {
        try (Device a = registry.createDevice("local-task://?machine_index=7&queue_count=2");
                Device b = registry.createDevice("local-task://?machine_index=7");
                Device plain = registry.createDevice("local-task://")) {
            LocalTaskDevice first = (LocalTaskDevice) a;
            assertEquals(2, first.queueCount());
            assertEquals(7, Axis.machine(first.queueAxis(0)));
            assertEquals(7, Axis.machine(first.queueAxis(1)));
            assertEquals(7, Axis.machine(((LocalTaskDevice) b).queueAxis(0)));
            assertNotEquals(first.queueAxis(0), ((LocalTaskDevice) b).queueAxis(0), "axes are never reused");
            assertEquals(0, Axis.machine(((LocalTaskDevice) plain).queueAxis(0)));
        }
    }

    @Test
    void aMachineIndexOutsideTheRangeIsRefusedNamingTheValue() {
        for (String bad : new String[] {"256", "-1", "x"}) {
            StatusException e = assertThrows(StatusException.class,
                    () -> registry.createDevice("local-task://?machine_index=" + bad).close());
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("machine_index='" + bad + "'"), e.getMessage());
        }
    }
}
