package dev.ortho.fuzz;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.ortho.vm.bytecode.RandomModules;

/**
 * Differential fuzzing of the bytecode compiler (issue 16): the fuzzer's bytes choose a random
 * verified module ({@code RandomModules} of vm.core's tests, the generator
 * {@code CompilerDifferentialTest} seeds from a fixed random sequence: integer, i64, f32/f64,
 * buffer, ref and call ops, branches, branch tables, bounded loops, {@code vm.fail}); it runs in
 * the interpreter and compiled ({@code ExecutionMode.EAGER}), and every export must give the
 * same results, or fail with the same status code, message and backtrace. A function the compiler
 * leaves interpreted is a finding too (the generator only emits what it covers). Bytes run out
 * gracefully (every choice then takes its smallest value), so every input is a valid module.
 */
class CompilerDifferentialFuzzTest {
    @FuzzTest(maxDuration = "3m")
    void compiledMatchesInterpreted(FuzzedDataProvider data) {
        String text = RandomModules.generate(choices(data), 0);
        RandomModules.Run run = RandomModules.runBoth(text, "fuzz0");
        if (!run.notCompiled().isEmpty()) {
            throw new AssertionError("generated functions stay interpreted: " + run.notCompiled() + "\n" + text);
        }
        for (RandomModules.Outcome o : run.outcomes()) {
            if (!o.same()) {
                throw new AssertionError("export " + o.export() + " differs\n  interpreted: " + o.interpreted()
                        + "\n  compiled:    " + o.compiled() + "\n" + text);
            }
        }
    }

    private static RandomModules.Choices choices(FuzzedDataProvider data) {
        return new RandomModules.Choices() {
            @Override
            public int nextInt(int origin, int bound) {
                return data.consumeInt(origin, bound - 1);
            }

            @Override
            public int nextInt(int bound) {
                return data.consumeInt(0, bound - 1);
            }

            @Override
            public int nextInt() {
                return data.consumeInt();
            }

            @Override
            public long nextLong() {
                return data.consumeLong();
            }

            @Override
            public boolean nextBoolean() {
                return data.consumeBoolean();
            }
        };
    }
}
