package dev.ortho.hal.cpu.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

/** The CPU driver components' {@code vmvx_compile} configuration property becomes their devices' default. */
class RuntimeLoadersTest {
    @Test
    void vmvxCompilePropertyBecomesTheDevicesDefaultLoaderOption() {
        assertEquals("off", new RuntimeLoaders("off").loaders().defaultOption("vmvx_compile"));
        assertEquals("Lazy", new RuntimeLoaders(" Lazy ").loaders().defaultOption("vmvx_compile"));
        assertEquals("eager", new RuntimeLoaders("eager").loaders().defaultOption("vmvx_compile"));
    }

    @Test
    void aBadVmvxCompilePropertyFailsActivationNamingTheValue() {
        StatusException e = assertThrows(StatusException.class, () -> new RuntimeLoaders("turbo"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("driver configuration property vmvx_compile='turbo' is not one of off, lazy,"
                + " eager"), e.getMessage());
    }
}
