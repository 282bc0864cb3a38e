package dev.ortho.launcher.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;

/**
 * The test program {@code mul_program.vmasm}: a {@code hal}-module program whose VMVX executable
 * ({@code mul_kernel.vmasm}, assembled here) is embedded as rodata, and a registry with the
 * {@code local-sync} driver (builtin kernels and the VMVX loader) and the validation wrapper.
 */
final class HalPrograms {
    static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    private HalPrograms() {
    }

    /** Writes {@code mul_program.vmasm} into {@code dir} and returns its path. */
    static Path mulProgram(Path dir) {
        byte[] kernel = BytecodeArchive.write(new Assembler(EXTENSIONS).assemble(resource("mul_kernel.vmasm"),
                "mul_kernel.vmasm"));
        String program = resource("mul_program.vmasm.in")
                .replace("@EXECUTABLE@", HexFormat.of().withUpperCase().formatHex(kernel));
        Path file = dir.resolve("mul_program.vmasm");
        try {
            Files.writeString(file, program);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    static DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().extensions(EXTENSIONS).localSyncFactory());
        registry.registerWrapper(new ValidationWrapper());
        return registry;
    }

    private static String resource(String name) {
        try (InputStream in = HalPrograms.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
