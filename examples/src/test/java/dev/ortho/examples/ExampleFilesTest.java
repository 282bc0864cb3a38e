package dev.ortho.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.runtime.OrthoRuntime;
import dev.ortho.runtime.Program;
import dev.ortho.runtime.Tensor;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The files README.md's commands name ({@code m.vmasm}, {@code m.vmfb}, {@code m_test.vmasm},
 * {@code p.vmfb}) do what the README says, and {@link RunModel} (the README's Java example) runs.
 * The README's commands themselves run through the jar in the launcher's {@code ReadmeCommandsIT}.
 */
class ExampleFilesTest {
    private static final Path DIR = ExampleHarness.DIR;

    @Test
    void committedVmfbIsWhatAsModuleWrites() throws Exception {
        byte[] assembled = BytecodeArchive.write(new Assembler(ExampleGenerator.EXTENSIONS)
                .assemble(Files.readString(DIR.resolve("m.vmasm")), "m.vmasm"));
        assertArrayEquals(assembled, Files.readAllBytes(DIR.resolve("m.vmfb")),
                "examples/m.vmfb is stale: ./ortho as-module --output=examples/m.vmfb examples/m.vmasm");
    }

    @Test
    void theReadmeModulesComputeWhatTheReadmeShows() {
        try (OrthoRuntime runtime = OrthoRuntime.create();
                Program m = runtime.load(DIR.resolve("m.vmfb"));
                Program p = runtime.load(DIR.resolve("p.vmfb"))) {
            assertArrayEquals(new int[] {5}, m.call("add", Tensor.of(new int[] {2}), Tensor.of(new int[] {3}))
                    .get(0).toIntArray());
            assertEquals("2x2xf32=[10 40][90 160]", p.call("mul", Tensor.parse("2x2xf32=1 2 3 4"),
                    Tensor.parse("2x2xf32=[[10 20][30 40]]")).get(0).toString());
            assertEquals("2x2xf32=[11 22][33 44]", p.call("add", Tensor.parse("2x2xf32=1 2 3 4"),
                    Tensor.parse("2x2xf32=[[10 20][30 40]]")).get(0).toString());
        }
    }

    @Test
    void runModelRunsAgainstTheModelCorpus() {
        assertDoesNotThrow(() -> RunModel.main(new String[] {DIR.resolveSibling("models").toString()}));
    }
}
