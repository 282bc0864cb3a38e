package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.vm.Instance;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --parameters=[scope=]file.irpa} on {@code run-module} and {@code benchmark-module}: the
 * {@code io_parameters} module is added when a program needs it, over the given archives
 * (IREE-written test data of modules.io.parameters: {@code linear.irpa} holds model::weight, 4x4
 * f32 (i*4+j)/8, and model::bias, a splat of 0.5).
 */
class RunModuleParametersTest {
    static final Path DATA = Path.of("../modules.io.parameters/src/test/resources/dev/ortho/modules/io/parameters");
    static final String LINEAR_IRPA = DATA.resolve("linear.irpa").toString();
    static final String WEIGHTS = "result[0]: hal.buffer_view\n"
            + "4x4xf32=[0 0.125 0.25 0.375][0.5 0.625 0.75 0.875][1 1.125 1.25 1.375][1.5 1.625 1.75 1.875]\n"
            + "result[1]: hal.buffer_view\n4xf32=0.5 0.5 0.5 0.5\n";

    @TempDir
    Path dir;
    private final DriverRegistry registry = HalPrograms.registry();
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

    private static String program() {
        try {
            return Path.of(RunModuleParametersTest.class.getResource("params_program.vmasm").toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private int run(String... args) {
        outBytes.reset();
        errBytes.reset();
        Cli cli = new Cli(registry, "ortho test", () -> 0);
        new VmTools(new Instance(), registry, () -> HalPrograms.EXTENSIONS, () -> new ByteArrayInputStream(new byte[0]))
                .subcommands().forEach(cli::add);
        return cli.run(args, new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "validation+local-sync"})
    void programsLoadTheirParametersFromTheNamedScope(String device) {
        assertEquals(0, run("run-module", "--module=" + program(), "--device=" + device,
                "--parameters=model=" + LINEAR_IRPA), err());
        assertEquals("EXEC @weights\n" + WEIGHTS, out());
    }

    @Test
    void aFileInTheGlobalScopeDoesNotServeANamedScope() {
        assertEquals(1, run("run-module", "--module=" + program(), "--device=local-sync", "--parameters=" + LINEAR_IRPA));
        assertTrue(err().contains("NOT_FOUND; no provider registered that handles scopes like 'model'"), err());
    }

    @Test
    void withoutParametersTheScopeIsNotFound() {
        assertEquals(1, run("run-module", "--module=" + program(), "--device=local-sync"));
        assertTrue(err().startsWith("NOT_FOUND; no provider registered that handles scopes like 'model'"), err());
    }

    @Test
    void missingOrUnsupportedFilesNameTheFlag() {
        assertEquals(1, run("run-module", "--module=" + program(), "--parameters=model=/nonexistent/x.irpa"));
        assertTrue(err().startsWith("NOT_FOUND; parameter file '/nonexistent/x.irpa' does not exist"), err());
        assertTrue(err().contains("while opening parameters 'model=/nonexistent/x.irpa'"), err());
        assertEquals(1, run("run-module", "--module=" + program(), "--parameters=model=w.safetensors"));
        assertTrue(err().startsWith("UNIMPLEMENTED; unsupported file format `safetensors`"), err());
    }

    @Test
    void parametersAreIgnoredByProgramsThatDoNotImportTheModule() {
        // As IREE's tools: the files are opened only when a module needs io_parameters.
        Path mul = HalPrograms.mulProgram(dir);
        assertEquals(0, run("run-module", "--module=" + mul, "--function=mul", "--device=local-sync",
                "--parameters=model=/nonexistent/x.irpa", "--input=2x2xf32=1 2 3 4", "--input=2x2xf32=1 1 1 1"), err());
    }

    @Test
    void benchmarkModuleTakesParametersToo() {
        assertEquals(0, run("benchmark-module", "--module=" + program(), "--device=local-sync",
                "--parameters=model=" + LINEAR_IRPA, "--benchmark_min_time=0.01s"), err());
        assertTrue(out().contains("BM_weights"), out());
    }

    /**
     * The end-to-end check of issue 14 item 4: {@code linear.vmfb}, compiled by iree-compile 3.12
     * for vmvx with its weight and bias externalized to {@code linear.irpa}, run with IREE's own
     * flags against iree-run-module's output (generate.sh).
     */
    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "validation+local-sync"})
    void compiledModuleWithExternalizedParametersMatchesIreeRunModule(String device) {
        assertEquals(0, run("run-module", "--module=" + DATA.resolve("linear.vmfb"), "--function=predict",
                "--device=" + device, "--parameters=model=" + LINEAR_IRPA,
                "--input=@" + DATA.resolve("linear_input.npy"),
                "--expected_output=@" + DATA.resolve("linear_output.npy")), err() + out());
        assertTrue(out().contains("[SUCCESS]"), out());
        assertEquals(0, run("run-module", "--module=" + DATA.resolve("linear.vmfb"), "--function=predict",
                "--device=" + device, "--parameters=model=" + LINEAR_IRPA,
                "--input=@" + DATA.resolve("linear_input.npy")), err());
        assertEquals("EXEC @predict\nresult[0]: hal.buffer_view\n1x4xf32=[2.875 3.15625 3.4375 3.71875]\n", out());
    }
}
