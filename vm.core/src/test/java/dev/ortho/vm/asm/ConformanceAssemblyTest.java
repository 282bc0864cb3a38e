package dev.ortho.vm.asm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Every file of IREE's VM conformance suite assembles to a module that passes the archive
 * verification, disassembles back to exactly the same text, and round-trips
 * assemble, write archive, read, disassemble, assemble, write to identical archive bytes.
 */
class ConformanceAssemblyTest {
    private final Assembler assembler = new Assembler(List.of(new ExtF32Extension(), new ExtF64Extension()));
    private final Disassembler disassembler = new Disassembler(List.of(new ExtF32Extension(), new ExtF64Extension()));

    @TestFactory
    Stream<DynamicTest> everyConformanceFileAssembles() throws IOException {
        List<Path> files = ConformanceFiles.files();
        if (files.isEmpty()) {
            return skipped();
        }
        assertEquals(30, files.size(), "conformance files");
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            ModuleDef def = assembler.assemble(file);
            assertFalse(def.functions().isEmpty());
            assertEquals(def.functions().size(), def.signatures().size());
        }));
    }

    @TestFactory
    Stream<DynamicTest> disassemblyReproducesTheConformanceText() throws IOException {
        List<Path> files = ConformanceFiles.files();
        if (files.isEmpty()) {
            return skipped();
        }
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            String text = Files.readString(file);
            assertEquals(text, disassembler.disassemble(assembler.assemble(text, file.getFileName().toString())));
        }));
    }

    @TestFactory
    Stream<DynamicTest> archiveRoundTripIsByteIdentical() throws IOException {
        List<Path> files = ConformanceFiles.files();
        if (files.isEmpty()) {
            return skipped();
        }
        return files.stream().map(file -> DynamicTest.dynamicTest(file.getFileName().toString(), () -> {
            byte[] archive = BytecodeArchive.write(assembler.assemble(file));
            ModuleDef read = BytecodeArchive.read(archive);
            BytecodeArchive.verify(read);
            String text = disassembler.disassemble(read);
            assertArrayEquals(archive, BytecodeArchive.write(assembler.assemble(text, "disassembly")));
        }));
    }

    /** One test that reports the missing suite as skipped (an empty factory would be silent). */
    private static Stream<DynamicTest> skipped() {
        return Stream.of(DynamicTest.dynamicTest("conformance suite missing", () -> assumeTrue(false,
                "IREE VM conformance suite not found (shared/conformance/vm or -Dortho.conformance.vm): skipped")));
    }
}
