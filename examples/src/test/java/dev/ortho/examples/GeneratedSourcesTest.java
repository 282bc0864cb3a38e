package dev.ortho.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The committed {@code examples/*.vmasm} are exactly what {@link ExampleGenerator} makes from the
 * templates, the executables and the weight formula. To regenerate after editing a template:
 * {@code ./mvnw -q -pl examples -am test -Dtest=GeneratedSourcesTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dexamples.regenerate=true}.
 */
class GeneratedSourcesTest {
    @ParameterizedTest
    @ValueSource(strings = {"simple_mul", "mlp", "pipelined"})
    void committedProgramMatchesTheGenerator(String program) throws Exception {
        String generated = ExampleGenerator.generate(ExampleHarness.DIR, program);
        Path file = ExampleHarness.DIR.resolve(program + ".vmasm");
        if (Boolean.getBoolean("examples.regenerate")) {
            Files.writeString(file, generated);
        }
        assertEquals(generated, Files.readString(file), program + ".vmasm is stale: regenerate it");
    }
}
