package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.vm.Instance;
import java.lang.annotation.Annotation;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16: how {@code vm:load} executes modules comes from the component's configuration
 * ({@code dev.ortho.launcher.vm}, property {@code vm_compile}) unless {@code --vm_compile} says;
 * the results are the same either way.
 */
class VmShellCommandsTest {
    private static final String MODULE = """
            vm.module @loop version 3
            vm.type i32
            vm.export @sum
            vm.func @sum(%i0: i32) -> (i32) {
            ^bb0:
              %i1 = vm.const.i32 0
              %i2 = vm.const.i32 1
              vm.br ^bb1(%i1 -> %i3)
            ^bb1:
              %i3 = vm.add.i32 %i3, %i0
              %i0 = vm.sub.i32 %i0, %i2
              %i4 = vm.cmp.nz.i32 %i0
              vm.cond_br %i4, ^bb1(), ^bb2()
            ^bb2:
              vm.return %i3
            }
            """;

    @TempDir
    Path dir;

    private static VmShellCommands.Config config(String mode) {
        return new VmShellCommands.Config() {
            @Override
            public Class<? extends Annotation> annotationType() {
                return VmShellCommands.Config.class;
            }

            @Override
            public String vm__compile() {
                return mode;
            }
        };
    }

    @Test
    void loadRunsModulesAsConfiguredUnlessItsFlagSays() throws Exception {
        Path file = Files.writeString(dir.resolve("loop.vmasm"), MODULE);
        VmShellCommands lazy = new VmShellCommands(new Instance(), new DriverRegistry(), config("lazy"));
        try {
            assertEquals("loaded module 'loop' version 3 (vm_compile=lazy), exports [sum]", lazy.load(file.toString()));
            assertEquals("EXEC @sum\nresult[0]: i32=5050", lazy.invoke("loop.sum", "100"));
            assertEquals("loaded module 'loop' version 3 (vm_compile=eager), exports [sum]",
                    lazy.load("--vm_compile=eager", file.toString()));
            assertEquals("EXEC @sum\nresult[0]: i32=5050", lazy.invoke("loop.sum", "100"));
            StatusException bad = assertThrows(StatusException.class, () -> lazy.load("--vm_compile=quick", file.toString()));
            assertEquals(StatusCode.INVALID_ARGUMENT, bad.code());
            assertTrue(bad.getMessage().contains("--vm_compile must be one of [`off`, `lazy`, `eager`], got 'quick'"),
                    bad.getMessage());
            assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, () -> lazy.load()).code());
            assertEquals(StatusCode.INVALID_ARGUMENT,
                    assertThrows(StatusException.class, () -> lazy.load("a.vmfb", "b.vmfb")).code());
        } finally {
            lazy.deactivate();
        }
    }

    @Test
    void aBadConfiguredModeFailsActivationNamingTheValue() {
        StatusException e = assertThrows(StatusException.class,
                () -> new VmShellCommands(new Instance(), new DriverRegistry(), config("always")));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("configuration property vm_compile must be one of [`off`, `lazy`, `eager`],"
                + " got 'always'"), e.getMessage());
    }
}
