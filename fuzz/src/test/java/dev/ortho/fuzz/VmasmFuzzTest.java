package dev.ortho.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The VMASM assembler ({@code ortho as-module}, and every {@code .vmasm} the tools load): parse,
 * assemble, write the archive, read it back and verify it. Seeds: small VMASM sources of the
 * project's tests and examples.
 */
class VmasmFuzzTest {
    private static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    @FuzzTest(maxDuration = "3m")
    void vmasm(byte[] data) throws Exception {
        if (data.length > Contract.MAX_INPUT_BYTES) {
            return;
        }
        String source = new String(data, StandardCharsets.UTF_8);
        Contract.onlyStatus(() -> {
            ModuleDef def = new Assembler(EXTENSIONS).assemble(source, "fuzz.vmasm");
            ModuleDef back = BytecodeArchive.read(BytecodeArchive.write(def));
            BytecodeModule.create(new Instance(), back, EXTENSIONS);
        });
    }
}
