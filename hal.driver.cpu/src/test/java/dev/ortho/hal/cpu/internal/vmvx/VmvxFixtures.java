package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** VMASM test executables (resources next to this class) and a registry that can load them. */
final class VmvxFixtures {
    static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    private VmvxFixtures() {}

    /** The standard loaders, the VMVX one with ExtF32/ExtF64. */
    static ExecutableLoaders registry() {
        return TestLoaders.standard(EXTENSIONS);
    }

    /** The archive bytes of VMASM {@code source}. */
    static byte[] archive(String source) {
        return BytecodeArchive.write(new Assembler(EXTENSIONS).assemble(source, "test.vmasm"));
    }

    /** The text of resource {@code name}. */
    static String resource(String name) {
        try (InputStream in = VmvxFixtures.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Executable params of the assembled resource {@code name} with executable constants. */
    static ExecutableParams params(String name, int... constants) {
        return new ExecutableParams(VmvxLoader.FORMAT, MemorySegment.ofArray(archive(resource(name))), constants);
    }
}
