package dev.ortho.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The embedding API against IREE's own outputs: models compiled by IREE ({@code models/}) and
 * the VMASM examples ({@code examples/}), on both CPU devices, called synchronously,
 * asynchronously and from many threads at once.
 */
class ProgramTest {
    static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent();
    static final Path MODELS = ROOT.resolve("models");
    static final Path EXAMPLES = ROOT.resolve("examples");
    static OrthoRuntime runtime;

    @BeforeAll
    static void create() {
        runtime = OrthoRuntime.create();
    }

    @AfterAll
    static void close() {
        runtime.close();
    }

    static ProgramOptions on(String device) {
        return ProgramOptions.defaults().withDevice(device);
    }

    /** Asserts |got - want| <= atol + rtol * |want| for every element, naming the first miss. */
    static void assertClose(Tensor want, Tensor got, double tolerance) {
        assertArrayEquals(want.shape(), got.shape());
        assertEquals(want.elementType(), got.elementType());
        float[] w = want.toFloatArray();
        float[] g = got.toFloatArray();
        for (int i = 0; i < w.length; i++) {
            assertTrue(Math.abs(g[i] - w[i]) <= tolerance + tolerance * Math.abs(w[i]),
                    "element " + i + ": got " + g[i] + ", IREE " + w[i]);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task"})
    void mlpMatchesIree(String device) {
        try (Program mlp = runtime.load(MODELS.resolve("vmfb/mlp.vmvx.vmfb"), on(device))) {
            List<Tensor> y = mlp.call("mlp", Tensor.readNpy(MODELS.resolve("data/mlp/b1/input0.npy")));
            assertEquals(1, y.size());
            assertClose(Tensor.readNpy(MODELS.resolve("data/mlp/b1/vmvx/" + device + "/output0.npy")), y.get(0), 1e-5);
            assertEquals(List.of(device), mlp.devices());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task"})
    void cnnMatchesIree(String device) {
        try (Program cnn = runtime.load(MODELS.resolve("vmfb/cnn.vmvx-ukernels-dt.vmfb"), on(device))) {
            Tensor y = cnn.call("cnn", Tensor.readNpy(MODELS.resolve("data/cnn/b1/input0.npy"))).get(0);
            assertClose(Tensor.readNpy(MODELS.resolve("data/cnn/b1/vmvx-ukernels-dt/" + device + "/output0.npy")), y,
                    1e-5);
        }
    }

    @Test
    void parametersComeFromAnIrpaArchive() {
        ProgramOptions options = on("local-task").withParameters("model=" + MODELS.resolve("params/mlp_params.irpa"));
        try (Program mlp = runtime.load(MODELS.resolve("vmfb/mlp_params.vmvx.vmfb"), options)) {
            Tensor y = mlp.call("mlp", Tensor.readNpy(MODELS.resolve("data/mlp_params/b1/input0.npy"))).get(0);
            assertClose(Tensor.readNpy(MODELS.resolve("data/mlp_params/b1/vmvx/local-task/output0.npy")), y, 1e-5);
        }
    }

    @Test
    void missingParameterArchiveIsNotFound() {
        ProgramOptions options = on("local-sync").withParameters("model=/nonexistent/w.irpa");
        StatusException e = assertThrows(StatusException.class,
                () -> runtime.load(MODELS.resolve("vmfb/mlp_params.vmvx.vmfb"), options));
        assertEquals(StatusCode.NOT_FOUND, e.code());
    }

    @Test
    void functionsListSignaturesWithoutInitializers() {
        try (Program mlp = runtime.load(MODELS.resolve("vmfb/mlp.vmvx.vmfb"), on("local-sync"))) {
            FunctionSignature f = mlp.function("mlp");
            assertEquals(List.of("ref"), f.inputs());
            assertEquals(List.of("ref"), f.results());
            assertEquals("0r_r", f.cconv());
            // IREE 3.12 writes no reflection attributes into these modules (no declaration, and
            // mlp$async carries no iree.abi.model, so its fences are ordinary inputs)
            assertEquals(List.of("mlp$async", "mlp"), mlp.functions().stream().map(FunctionSignature::name).toList());
            assertEquals(List.of("ref", "ref", "ref"), mlp.function("mlp$async").inputs());
        }
        try (Program pipelined = runtime.load(EXAMPLES.resolve("pipelined.vmasm"), on("local-sync"))) {
            FunctionSignature async = pipelined.function("cube$async");
            assertTrue(async.coarseFences());
            assertEquals(List.of("ref"), async.inputs()); // the two fences are the program's business
            assertNull(async.declaration());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task"})
    void manyThreadsShareOneProgram(String device) throws Exception {
        int threads = 4;
        int calls = 12;
        try (Program mlp = runtime.load(MODELS.resolve("vmfb/mlp.vmvx.vmfb"), on(device))) {
            float[] base = Tensor.readNpy(MODELS.resolve("data/mlp/b1/input0.npy")).toFloatArray();
            List<Tensor> inputs = new ArrayList<>();
            List<float[]> expected = new ArrayList<>();
            for (int t = 0; t < threads; t++) { // a distinct input per thread, its answer computed alone
                float[] x = base.clone();
                for (int i = 0; i < x.length; i++) {
                    x[i] *= 0.5f + t;
                }
                inputs.add(Tensor.of(x, 1, 784));
                expected.add(mlp.call("mlp", inputs.get(t)).get(0).toFloatArray());
            }
            List<CompletableFuture<Void>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                CompletableFuture<Void> done = new CompletableFuture<>();
                Thread thread = new Thread(() -> {
                    try {
                        for (int c = 0; c < calls; c++) {
                            assertArrayEquals(expected.get(me), mlp.call("mlp", inputs.get(me)).get(0).toFloatArray(),
                                    "thread " + me + " call " + c);
                        }
                        done.complete(null);
                    } catch (Throwable e) {
                        done.completeExceptionally(e);
                    }
                }, "caller-" + t);
                thread.start();
                workers.add(done);
            }
            for (CompletableFuture<Void> w : workers) {
                w.get(120, TimeUnit.SECONDS);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task"})
    void callAsyncOfACoarseFencesFunctionCompletesFromItsSignalFence(String device) throws Exception {
        try (Program pipelined = runtime.load(EXAMPLES.resolve("pipelined.vmasm"), on(device))) {
            List<CompletableFuture<List<Tensor>>> futures = new ArrayList<>();
            for (int i = 1; i <= 8; i++) {
                futures.add(pipelined.callAsync("cube$async", Tensor.of(new float[] {i, 2, 3, -1}, 4)));
            }
            for (int i = 1; i <= 8; i++) {
                assertArrayEquals(new float[] {i * i * i, 8, 27, -1},
                        futures.get(i - 1).get(60, TimeUnit.SECONDS).get(0).toFloatArray());
            }
            // the synchronous call of the same function waits on the fence itself
            assertArrayEquals(new float[] {8, 8, 8, 8},
                    pipelined.call("cube$async", Tensor.of(new float[] {2, 2, 2, 2}, 4)).get(0).toFloatArray());
        }
    }

    @Test
    void callAsyncOfASyncFunctionYieldsInsteadOfBlocking() throws Exception {
        try (Program pipelined = runtime.load(EXAMPLES.resolve("pipelined.vmasm"), on("local-task"));
                Program mlp = runtime.load(MODELS.resolve("vmfb/mlp.vmvx.vmfb"), on("local-task"))) {
            assertArrayEquals(new float[] {1, 8, 27, 64}, pipelined.callAsync("cube", Tensor.of(new float[] {1, 2, 3, 4}, 4))
                    .get(60, TimeUnit.SECONDS).get(0).toFloatArray());
            Tensor x = Tensor.readNpy(MODELS.resolve("data/mlp/b1/input0.npy"));
            java.util.concurrent.ExecutorService own = java.util.concurrent.Executors.newSingleThreadExecutor();
            try {
                assertArrayEquals(mlp.call("mlp", x).get(0).toFloatArray(),
                        mlp.callAsync(own, "mlp", x).get(60, TimeUnit.SECONDS).get(0).toFloatArray());
            } finally {
                own.shutdown();
            }
        }
    }

    @Test
    void aFailingAsyncCallCompletesExceptionallyWithTheStatus() {
        try (Program simple = runtime.load(EXAMPLES.resolve("simple_mul.vmasm"), on("local-task"))) {
            // 3 elements where the dispatch expects 4: the program's own checks fail the call
            CompletableFuture<List<Tensor>> future = simple.callAsync("simple_mul",
                    Tensor.of(new float[] {1, 2, 3}, 3), Tensor.of(new float[] {1, 2, 3}, 3));
            ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(60, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof StatusException, String.valueOf(e.getCause()));
        }
    }

    @Test
    void modulesLoadFromVmasmTextBytesAndSegments() throws Exception {
        byte[] text = Files.readAllBytes(EXAMPLES.resolve("simple_mul.vmasm"));
        byte[] archive = Files.readAllBytes(MODELS.resolve("vmfb/mlp.vmvx.vmfb"));
        try (Program fromText = runtime.load(text, on("local-sync"));
                Program fromBytes = runtime.load(archive, on("local-sync"));
                Program fromSegment = runtime.load(java.lang.foreign.MemorySegment.ofArray(archive), on("local-sync"))) {
            assertArrayEquals(new float[] {2, 4, 6, 8}, fromText.call("simple_mul",
                    Tensor.of(new float[] {1, 2, 3, 4}, 4), Tensor.parse("4xf32=2")).get(0).toFloatArray());
            Tensor x = Tensor.readNpy(MODELS.resolve("data/mlp/b1/input0.npy"));
            assertArrayEquals(fromBytes.call("mlp", x).get(0).toFloatArray(),
                    fromSegment.call("mlp", x).get(0).toFloatArray());
        }
    }

    @Test
    void badCallsFailWithStatusCodesNamingTheProblem() {
        try (Program simple = runtime.load(EXAMPLES.resolve("simple_mul.vmasm"), on("local-sync"))) {
            Tensor four = Tensor.of(new float[] {1, 2, 3, 4}, 4);
            StatusException unknown = assertThrows(StatusException.class, () -> simple.call("nope", four));
            assertEquals(StatusCode.NOT_FOUND, unknown.code());
            assertTrue(unknown.getMessage().contains("simple_mul"), unknown.getMessage());
            StatusException count = assertThrows(StatusException.class, () -> simple.call("simple_mul", four));
            assertEquals(StatusCode.INVALID_ARGUMENT, count.code());
            assertTrue(count.getMessage().contains("takes 2 inputs but 1 were given"), count.getMessage());
            assertEquals(StatusCode.INVALID_ARGUMENT,
                    assertThrows(StatusException.class, () -> simple.call("simple_mul", four, null)).code());
            simple.close();
            assertEquals(StatusCode.FAILED_PRECONDITION,
                    assertThrows(StatusException.class, () -> simple.call("simple_mul", four, four)).code());
            assertEquals(StatusCode.FAILED_PRECONDITION,
                    assertThrows(StatusException.class, () -> simple.callAsync("simple_mul", four, four)).code());
        }
    }

    @Test
    void badModulesFailToLoadWithStatusCodes() {
        assertEquals(StatusCode.NOT_FOUND, assertThrows(StatusException.class,
                () -> runtime.load(Path.of("/nonexistent/m.vmfb"))).code());
        byte[] garbage = {'I', 'R', 'E', 'E', 0, 0, 0, 0, 'I', 'R', 'E', 'E', 1, 2, 3};
        assertThrows(StatusException.class, () -> runtime.load(garbage, ProgramOptions.defaults()));
        assertEquals(StatusCode.NOT_FOUND, assertThrows(StatusException.class,
                () -> runtime.load(EXAMPLES.resolve("simple_mul.vmasm"), on("cuda"))).code());
    }

    @Test
    void primitiveArgumentsAndResultsTravelAsScalarTensors() {
        String source = """
                vm.module @scalars version 1

                vm.export @add
                vm.func @add(%i0: i32, %i2:3: i64) -> (i64) {
                ^bb0:
                  %i4:5 = vm.ext.i32.i64.s %i0
                  %i6:7 = vm.add.i64 %i4:5, %i2:3
                  vm.return %i6:7
                }
                """;
        try (Program p = runtime.load(source.getBytes(java.nio.charset.StandardCharsets.UTF_8), ProgramOptions.defaults())) {
            assertEquals(List.of("i32", "i64"), p.function("add").inputs());
            assertEquals(List.of(), p.devices()); // no hal module, no device
            Tensor sum = p.call("add", Tensor.of(new int[] {2}), Tensor.of(new long[] {40})).get(0);
            assertArrayEquals(new long[] {42}, sum.toLongArray());
            assertEquals(0, sum.shape().length);
            StatusException e = assertThrows(StatusException.class,
                    () -> p.call("add", Tensor.of(new float[] {2}), Tensor.of(new long[] {40})));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("must be one i32 value, got f32"), e.getMessage());
        }
    }

    @Test
    void closingAProgramLetsCallsInFlightFinish() throws Exception {
        Program mlp = runtime.load(MODELS.resolve("vmfb/mlp.vmvx.vmfb"), on("local-task"));
        Tensor x = Tensor.readNpy(MODELS.resolve("data/mlp/b1/input0.npy"));
        float[] expected = mlp.call("mlp", x).get(0).toFloatArray();
        List<CompletableFuture<List<Tensor>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            inFlight.add(mlp.callAsync("mlp", x));
        }
        mlp.close(); // returns at once; the context and device go when the last call returns
        for (CompletableFuture<List<Tensor>> call : inFlight) {
            assertArrayEquals(expected, call.get(60, TimeUnit.SECONDS).get(0).toFloatArray());
        }
        assertEquals(StatusCode.FAILED_PRECONDITION,
                assertThrows(StatusException.class, () -> mlp.callAsync("mlp", x)).code());
    }

    @Test
    void closingTheRuntimeClosesItsPrograms() {
        OrthoRuntime own = OrthoRuntime.create();
        Program simple = own.load(EXAMPLES.resolve("simple_mul.vmasm"), on("local-task"));
        own.close();
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class,
                () -> simple.call("simple_mul", Tensor.parse("4xf32=1"), Tensor.parse("4xf32=1"))).code());
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class,
                () -> own.load(EXAMPLES.resolve("simple_mul.vmasm"))).code());
    }
}
