package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Differential fuzzing of the compiler: {@value #MODULES} random verified modules
 * ({@link RandomModules}: integer, i64, f32/f64, buffer, ref and call ops, imports, registers
 * reused across types, 64-bit branch operands) run in the interpreter and compiled; every export must give the same
 * results, or fail with the same status code and the same message (backtrace included). The
 * Jazzer target {@code CompilerDifferentialFuzzTest} in {@code fuzz/} does the same with modules
 * made of the fuzzer's bytes.
 */
class CompilerDifferentialTest {
    static final int MODULES = 150;

    @Test
    void randomModulesBehaveTheSameInterpretedAndCompiled() {
        SplittableRandom random = new SplittableRandom(0xC0DE);
        int exports = 0;
        int failures = 0;
        int compiledFunctions = 0;
        int typedFunctions = 0;
        int tooLargeToSplit = 0;
        for (int n = 0; n < MODULES; n++) {
            String text = RandomModules.generate(RandomModules.Choices.of(random), n);
            RandomModules.Run run = RandomModules.runBoth(text, "fuzz" + n, VmasmFixture.METHOD_LIMIT);
            List<String> notCompiled = run.notCompiled();
            if (VmasmFixture.METHOD_LIMIT < 600) {
                // The compiled-split run's 400-byte methods: a function whose dispatcher alone needs
                // that much stays interpreted (and so do the exports that call it); the rest compile.
                tooLargeToSplit += notCompiled.size();
                notCompiled = notCompiled.stream().filter(w -> !w.contains("JVM method size limit")
                        && !w.contains("calls a function that is not compiled")).toList();
            }
            assertEquals(List.of(), notCompiled, "every generated function compiles:\n" + text);
            compiledFunctions += RandomModules.FUNCTIONS * 2;
            typedFunctions += run.typedFunctions();
            for (RandomModules.Outcome o : run.outcomes()) {
                assertEquals(o.interpreted(), o.compiled(), "module " + n + " export " + o.export() + " differs:\n" + text);
                exports++;
                failures += o.interpreted().startsWith("status") ? 1 : 0;
            }
        }
        System.out.println("differential: " + exports + " exports (" + failures + " trapping), "
                + compiledFunctions + " functions compiled, " + typedFunctions + " with typed registers");
        // 188 of 1,200 at 400 bytes (94 when this bound was set; the generator has grown since): the
        // f64 and i64 ops of functions kept in register slots are long. The count is the same alone
        // and after other test classes now that the limit is the module's own (VmasmFixture).
        assertTrue(tooLargeToSplit < compiledFunctions / 5, "most functions compile even split at "
                + VmasmFixture.METHOD_LIMIT + " bytes: " + tooLargeToSplit + " do not");
        assertTrue(typedFunctions > compiledFunctions / 2 && typedFunctions < compiledFunctions,
                "most functions get typed locals, some keep register slots: " + typedFunctions);
        assertTrue(failures > exports / 10 && failures < exports * 9 / 10,
                "the generator exercises both traps and results: " + failures + " of " + exports);
    }
}
