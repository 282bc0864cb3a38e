package dev.ortho.itest.runtime;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ortho.itest.OrthoFramework;
import dev.ortho.runtime.OrthoRuntime;
import dev.ortho.runtime.Program;
import dev.ortho.runtime.ProgramOptions;
import dev.ortho.runtime.Tensor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * The embedding API as the runtime bundle's {@link OrthoRuntime} service, in Felix and Equinox:
 * an IREE-compiled MLP ({@code models/}) on {@code local-task} from two threads at once against
 * IREE's recorded output, and the coarse-fences example function called asynchronously.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RuntimeServiceIT {
    private static final Path MODELS = Path.of(System.getProperty("it.models.dir", "../models"));
    private static final Path EXAMPLES = Path.of(System.getProperty("it.examples.dir", "../examples"));

    @Inject
    private OrthoRuntime runtime;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void theServiceRunsAnIreeCompiledModelFromTwoThreads() throws Exception {
        assertTrue(runtime.drivers().toString(), runtime.drivers().containsAll(List.of("local-sync", "local-task")));
        try (Program mlp = runtime.load(MODELS.resolve("vmfb/mlp.vmvx.vmfb"),
                ProgramOptions.defaults().withDevice("local-task"))) {
            Tensor x = Tensor.readNpy(MODELS.resolve("data/mlp/b1/input0.npy"));
            float[] iree = Tensor.readNpy(MODELS.resolve("data/mlp/b1/vmvx/local-task/output0.npy")).toFloatArray();
            List<CompletableFuture<float[]>> results = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                CompletableFuture<float[]> result = new CompletableFuture<>();
                new Thread(() -> {
                    try {
                        float[] y = null;
                        for (int i = 0; i < 5; i++) {
                            y = mlp.call("mlp", x).get(0).toFloatArray();
                        }
                        result.complete(y);
                    } catch (Throwable e) {
                        result.completeExceptionally(e);
                    }
                }).start();
                results.add(result);
            }
            for (CompletableFuture<float[]> result : results) {
                float[] y = result.get(60, TimeUnit.SECONDS);
                for (int i = 0; i < iree.length; i++) {
                    assertEquals("element " + i, iree[i], y[i], 1e-5 + 1e-5 * Math.abs(iree[i]));
                }
            }
        }
    }

    @Test
    public void aCoarseFencesFunctionCompletesItsFutureFromTheSignalFence() throws Exception {
        try (Program pipelined = runtime.load(EXAMPLES.resolve("pipelined.vmasm"),
                ProgramOptions.defaults().withDevice("local-task"))) {
            Tensor y = pipelined.callAsync("cube$async", Tensor.of(new float[] {1, 2, 3, 4}, 4))
                    .get(60, TimeUnit.SECONDS).get(0);
            assertArrayEquals(new float[] {1, 8, 27, 64}, y.toFloatArray(), 0f);
        }
    }
}
