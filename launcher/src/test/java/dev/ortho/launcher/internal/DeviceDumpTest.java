package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;
import dev.ortho.hal.cpu.CpuDrivers;

/** {@code hal:dump} and {@code --dump_devices} against a real local-sync device. */
class DeviceDumpTest {
    private final DriverRegistry registry = new DriverRegistry();

    DeviceDumpTest() {
        registry.register(CpuDrivers.builder().localSyncFactory());
    }

    @Test
    void dumpDescribesTheDeviceInIreesBannerStyle() {
        String text = new HalCommands(registry).dump("local-sync://");
        List<String> lines = text.lines().toList();
        assertEquals("# ===-----------------------------------------------------------------------===", lines.get(0));
        assertEquals("# --device=local-sync://", lines.get(1));
        assertTrue(lines.get(2).startsWith("#   "), lines.get(2));
        assertEquals(lines.get(0), lines.get(3));
        assertTrue(lines.contains("id: 0"), text);
        assertTrue(lines.contains(
                "capabilities: TIMELINE_SEMAPHORES|UNIFIED_MEMORY|HOST_COHERENT|HOST_ZERO_COPY_OK|CONCURRENT_SAFE"), text);
        assertTrue(lines.contains("  hal.device.id :: local-sync = 1"), text);
        assertTrue(lines.contains("  hal.device :: concurrency = 1"), text);
        assertTrue(lines.contains("  hal.dispatch :: concurrency = 1"), text);
        assertTrue(lines.contains("  hal.executable.format :: jvm-static = 1"), text);
        assertTrue(lines.contains("  hal.executable.format :: vmvx-bytecode-fb = 1"), text);
        assertTrue(text.contains("heaps:\n  [0] type DEVICE_LOCAL"), text);
        assertTrue(text.contains("; alignment 64B"), text);
        assertTrue(text.contains("allocator statistics:\n  ALL: "), text);
        assertTrue(text.endsWith("B live"), "trailing newline stripped for the shell: " + text);
    }

    @Test
    void dumpOfAnUnknownDriverOrMalformedUriFailsWithTheStatus() {
        HalCommands commands = new HalCommands(registry);
        StatusException missing = assertThrows(StatusException.class, () -> commands.dump("warp://"));
        assertEquals(StatusCode.NOT_FOUND, missing.code());
        assertTrue(missing.getMessage().contains("warp"), missing.getMessage());
        assertEquals(StatusCode.NOT_FOUND,
                assertThrows(StatusException.class, () -> commands.dump("local-sync://9")).code());
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> commands.dump("")).code());
    }

    @Test
    void dumpDevicesListsEveryDeviceOfEveryDriver() {
        String text = DeviceDump.dumpDevices(registry, null);
        assertTrue(text.startsWith("""
                # ============================================================================
                # Enumerated devices for driver 'local-sync'
                # ============================================================================

                # ===---"""), text);
        assertTrue(text.contains("# --device=local-sync://\n"), text);
        assertEquals(text, DeviceDump.dumpDevices(registry, "local-sync"));
    }
}
