package dev.ortho.hal.spi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DeviceQueriesTest {

    @Test
    void patternsMatchAsIreesDeviceIdQuery() {
        assertTrue(DeviceQueries.matchesPattern("local-sync", "local-sync"));
        assertTrue(DeviceQueries.matchesPattern("local-sync", "local-*"));
        assertTrue(DeviceQueries.matchesPattern("local-sync", "*"));
        assertTrue(DeviceQueries.matchesPattern("local-sync", "local-?ync"));
        assertTrue(DeviceQueries.matchesPattern("local-sync", "*sync"));
        assertTrue(DeviceQueries.matchesPattern("", "*"));
        assertFalse(DeviceQueries.matchesPattern("local-sync", "local-task"));
        assertFalse(DeviceQueries.matchesPattern("local-sync", "local-"));
        assertFalse(DeviceQueries.matchesPattern("local-sync", "?"));
        assertFalse(DeviceQueries.matchesPattern("local-sync", "vulkan*"));
        assertFalse(DeviceQueries.matchesPattern("", "?"));
    }

    @Test
    void tooManyWildcardsNeverMatchAndHostilePatternsStayFast() {
        assertFalse(DeviceQueries.matchesPattern("a", "*".repeat(17)));
        assertTrue(DeviceQueries.matchesPattern("a", "*".repeat(16)));
        String value = "a".repeat(10_000);
        String pattern = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertFalse(DeviceQueries.matchesPattern(value, pattern)));
    }
}
