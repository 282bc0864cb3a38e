package dev.ortho.hal.cpu.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ExecutionMode;
import org.junit.jupiter.api.Test;

/** The CPU driver components' {@code vmvx_compile} configuration property sets their VMVX loader's default. */
class RuntimeLibrariesTest {
    @Test
    void vmvxCompilePropertySetsTheLoadersDefault() {
        assertEquals(ExecutionMode.OFF, new RuntimeLibraries(RuntimeLibrariesTest.class, "off").registry().vmvx()
                .kernelExecution());
        assertEquals(ExecutionMode.LAZY, new RuntimeLibraries(RuntimeLibrariesTest.class, " Lazy ").registry().vmvx()
                .kernelExecution());
        assertEquals(ExecutionMode.EAGER, new RuntimeLibraries(RuntimeLibrariesTest.class, "eager").registry().vmvx()
                .kernelExecution());
    }

    @Test
    void aBadVmvxCompilePropertyFailsActivationNamingTheValue() {
        StatusException e = assertThrows(StatusException.class,
                () -> new RuntimeLibraries(RuntimeLibrariesTest.class, "turbo"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("driver configuration property vmvx_compile='turbo' is not one of off, lazy,"
                + " eager"), e.getMessage());
    }
}
