package dev.ortho.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ortho.vm.Instance;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.List;

/**
 * The bytecode module loader as {@code ortho run-module} uses it: archive parse (ZIP header,
 * size prefix, FlatBuffer, rodata), then module creation, which runs the verifier on every
 * function. Seeds: small archives written by IREE's and Ortho's assemblers.
 */
class ArchiveFuzzTest {
    private static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    @FuzzTest(maxDuration = "3m")
    void archive(byte[] data) throws Exception {
        if (data.length > Contract.MAX_INPUT_BYTES) {
            return;
        }
        Contract.onlyStatus(() -> {
            ModuleDef def = BytecodeArchive.read(data);
            BytecodeArchive.verify(def);
            BytecodeModule.create(new Instance(), def, EXTENSIONS);
        });
    }
}
