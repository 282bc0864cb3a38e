package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.ConformanceFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * IREE's VM conformance suite with every function the compiler covers compiled
 * ({@link ExecutionMode#EAGER}): the same 304 exports must pass, and most functions must actually
 * run compiled (the reasons for the others are printed, with the compile time of the suite).
 */
class CompiledConformanceTest {

    static ModuleTestRunner.Report run(Path file, ExecutionMode mode, List<BytecodeModule> loaded) {
        Instance instance = new Instance();
        ModuleDef def = new Assembler(ConformanceTest.EXTENSIONS).assemble(file);
        BytecodeModule module = BytecodeModule.create(instance, def, ConformanceTest.EXTENSIONS,
                BytecodeModule.Options.DEFAULT.withExecution(mode));
        loaded.add(module);
        return ModuleTestRunner.run(instance, List.of(), module);
    }

    @Test
    void all304ExportsPassCompiledEagerly() throws IOException {
        check(ExecutionMode.EAGER);
    }

    private static void check(ExecutionMode mode) throws IOException {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        int passed = 0;
        int total = 0;
        List<String> failures = new ArrayList<>();
        List<BytecodeModule> modules = new ArrayList<>();
        long compileNanos = 0;
        for (Path file : files) {
            ModuleDef def = new Assembler(ConformanceTest.EXTENSIONS).assemble(file);
            long t0 = System.nanoTime();
            Compiler.compile(BytecodeModule.create(new Instance(), def, ConformanceTest.EXTENSIONS));
            compileNanos += System.nanoTime() - t0;
        }
        for (Path file : files) {
            ModuleTestRunner.Report report = run(file, mode, modules);
            passed += report.passed();
            total += report.outcomes().size();
            report.outcomes().stream().filter(o -> !o.passed()).forEach(o -> failures.add(report.module() + " " + o));
        }
        assertEquals(304, total, "exports in the suite");
        assertEquals(304, passed, passed + " of 304 passed compiled (" + mode + "); failures:\n"
                + String.join("\n", failures));
        if (mode == ExecutionMode.EAGER) {
            int functions = 0;
            int compiled = 0;
            Map<String, Integer> reasons = new TreeMap<>();
            for (BytecodeModule m : modules) {
                for (String r : m.compilationReport()) {
                    functions++;
                    if (r == null) {
                        compiled++;
                    } else {
                        reasons.merge(r.replaceAll(" at \\+[0-9A-F]+", ""), 1, Integer::sum);
                    }
                }
            }
            System.out.println("compiled " + compiled + " of " + functions + " conformance functions in "
                    + compileNanos / 1_000_000 + " ms (load + compile, first run, 30 modules); others: " + reasons);
            assertTrue(compiled * 10 >= functions * 8, "at least 80% of the functions compile: " + compiled + " of "
                    + functions + "; " + reasons);
        }
    }
}
