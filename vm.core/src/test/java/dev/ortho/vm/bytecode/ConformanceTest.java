package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.ConformanceFiles;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * IREE's VM conformance suite ({@code shared/conformance/vm}, 30 files, 304 exports): each file
 * is assembled, loaded (verified) and every export run through {@link ModuleTestRunner}
 * ({@code fail_} exports must fail). Skipped visibly when the suite is not present.
 */
class ConformanceTest {
    static final List<InstructionExtension> EXTENSIONS = List.of(new ExtF32Extension(), new ExtF64Extension());

    static ModuleTestRunner.Report run(Path file) {
        Instance instance = new Instance();
        ModuleDef def = new Assembler(EXTENSIONS).assemble(file);
        BytecodeModule module = VmasmFixture.create(instance, def, EXTENSIONS);
        return ModuleTestRunner.run(instance, List.of(), module);
    }

    @TestFactory
    Stream<DynamicTest> everyExportOfEveryFile() throws IOException {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        List<DynamicTest> tests = new ArrayList<>();
        for (Path file : files) {
            ModuleTestRunner.Report report = run(file);
            for (ModuleTestRunner.Outcome o : report.outcomes()) {
                tests.add(DynamicTest.dynamicTest(report.module() + "." + o.name(),
                        () -> assertTrue(o.passed(), o.toString())));
            }
        }
        return tests.stream();
    }

    @Test
    void all304ExportsPass() throws IOException {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        assertEquals(30, files.size(), "conformance files");
        int passed = 0;
        int total = 0;
        List<String> failures = new ArrayList<>();
        for (Path file : files) {
            ModuleTestRunner.Report report = run(file);
            passed += report.passed();
            total += report.outcomes().size();
            report.outcomes().stream().filter(o -> !o.passed()).forEach(o -> failures.add(report.module() + " " + o));
        }
        assertEquals(304, total, "exports in the suite");
        String message = passed + " of 304 passed; failures:\n" + String.join("\n", failures);
        assertEquals(304, passed, message);
    }
}
