package dev.ortho.hal.cpu.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.cpu.internal.task.LocalTaskDevice;
import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code local-task} ConfigAdmin properties (PID {@code dev.ortho.hal.driver.local_task}) reach its devices. */
class LocalTaskConfigTest {
    /** A configuration as DS builds it: {@code properties} by property name, every other attribute at its default. */
    private static LocalTaskConfig config(Map<String, Object> properties) {
        return (LocalTaskConfig) Proxy.newProxyInstance(LocalTaskConfig.class.getClassLoader(),
                new Class<?>[] {LocalTaskConfig.class}, (proxy, method, args) -> {
                    String property = method.getName().replace("__", "_");
                    return properties.containsKey(property) ? properties.get(property) : method.getDefaultValue();
                });
    }

    private static boolean waiterHelps(LocalTaskConfig config, String uri) {
        LocalTaskDriverComponent component = new LocalTaskDriverComponent(config);
        try (Driver driver = component.createDriver("local-task");
                Device device = driver.createDevice(DeviceUri.parse(uri))) {
            return ((LocalTaskDevice) device).waiterHelps(0);
        } finally {
            component.deactivate();
        }
    }

    @Test
    void taskWaiterHelpsIsAPropertyOnByDefaultThatTheUriOverrides() {
        String plain = "local-task://?task_topology_group_count=1";
        assertTrue(waiterHelps(config(Map.of()), plain), "on by default");
        assertFalse(waiterHelps(config(Map.of("task_waiter_helps", false)), plain));
        assertTrue(waiterHelps(config(Map.of("task_waiter_helps", false)), plain + "&task_waiter_helps=1"));
        assertFalse(waiterHelps(config(Map.of()), plain + "&task_waiter_helps=0"));
    }
}
