package dev.ortho.bench.models;

import ai.onnxruntime.OnnxJavaType;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * ONNX Runtime's Java API (CPU execution provider) running the same ONNX graphs, with the same
 * {@code .npy} inputs, that {@code models/} compiled with {@code iree-compile}: the peer of
 * {@code iree-benchmark-module} and {@code ortho benchmark-module} in {@code bench/models.sh}.
 *
 * <p>One operation is one {@code OrtSession.run} on inputs created once in set-up (as both IREE
 * tools parse {@code --input} once), closing the results without copying them to Java arrays
 * (neither IREE tool reads its outputs back). Session options are ONNX Runtime's defaults (all
 * graph optimizations, sequential execution, spinning intra-op threads) except
 * {@code intraOpThreads}: 1 to match {@code local-sync}, 2 to match {@code local-task} on this
 * 2-core machine.
 *
 * <p>{@code model} is {@code <model>/<case>} under {@code models/}: graph
 * {@code onnx/<model>.onnx}, inputs {@code data/<model>/<case>/input<i>.npy} in graph input
 * order. {@code models/} is found from the system property {@code ortho.models.dir}, else as
 * {@code models} or {@code ../models} relative to the working directory.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class OrtModelBenchmark {
    @Param({"mlp/b1", "mlp_dyn/b1", "mlp_dyn/b8", "cnn/b1", "transformer/s16", "zoo_math/default",
            "zoo_reduce/default", "zoo_shape/default", "zoo_cast/default", "zoo_int/default"})
    public String model;

    /** ONNX Runtime intra-op threads: 1 (as local-sync) or 2 (as local-task on 2 cores). */
    @Param({"1", "2"})
    public int intraOpThreads;

    private OrtEnvironment environment;
    private OrtSession.SessionOptions options;
    private OrtSession session;
    private final Map<String, OnnxTensor> inputs = new LinkedHashMap<>();
    private Path recorded;

    @Setup
    public void setUp() throws IOException, OrtException {
        Path models = modelsDir();
        int slash = model.indexOf('/');
        if (slash <= 0) {
            throw new IllegalArgumentException("model must be <model>/<case>, got '" + model + "'");
        }
        String name = model.substring(0, slash);
        Path data = models.resolve("data").resolve(name).resolve(model.substring(slash + 1));
        environment = OrtEnvironment.getEnvironment();
        options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(intraOpThreads);
        options.setInterOpNumThreads(1);
        options.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);
        session = environment.createSession(models.resolve("onnx").resolve(name + ".onnx").toString(), options);
        List<String> names = new ArrayList<>(session.getInputInfo().keySet());
        for (int i = 0; i < names.size(); i++) {
            Path file = data.resolve("input" + i + ".npy");
            Npy npy = Npy.read(file);
            inputs.put(names.get(i), OnnxTensor.createTensor(environment, npy.data(), npy.shape(), javaType(npy, file)));
        }
        if (Files.exists(data.resolve("input" + names.size() + ".npy"))) {
            throw new IOException(data + " has more inputs than the graph's " + names.size());
        }
        recorded = data.resolve("ort");
    }

    /**
     * One run compared with the outputs {@code models/build.py} recorded from ONNX Runtime's
     * Python API ({@code ort/output<i>.npy}): integers exactly, floats within atol 1e-5 +
     * rtol 1e-4 (the corpus's tolerance for ONNX Runtime, which picks kernels by CPU), so a wrong
     * graph or input order fails the trial. Run at tear-down, so that with
     * {@code -bm ss -wi 0 -i 1} the one timed call is the session's first.
     */
    private void checkAgainstRecordedOutputs(Path recorded) throws IOException, OrtException {
        try (OrtSession.Result result = session.run(inputs)) {
            for (int i = 0; i < result.size(); i++) {
                Npy expected = Npy.read(recorded.resolve("output" + i + ".npy"));
                java.nio.ByteBuffer actual = ((OnnxTensor) result.get(i)).getByteBuffer()
                        .order(java.nio.ByteOrder.nativeOrder());
                java.nio.ByteBuffer want = expected.data();
                if (actual.remaining() != want.remaining()) {
                    throw new IOException(model + " output " + i + ": " + actual.remaining() + " bytes, recorded "
                            + want.remaining());
                }
                if (expected.descr().equals("f4")) {
                    for (int e = 0; e < want.remaining() / 4; e++) {
                        float a = actual.getFloat(e * 4);
                        float w = want.getFloat(e * 4);
                        if (!(Math.abs(a - w) <= 1e-5 + 1e-4 * Math.abs(w)) && !(Float.isNaN(a) && Float.isNaN(w))
                                && a != w) {
                            throw new IOException(model + " output " + i + " element " + e + ": " + a + ", recorded " + w);
                        }
                    }
                } else if (!actual.equals(want)) {
                    throw new IOException(model + " output " + i + " (" + expected.descr() + ") differs from " + recorded);
                }
            }
        }
    }

    @Benchmark
    public Object run() throws OrtException {
        try (OrtSession.Result result = session.run(inputs)) {
            return result.size();
        }
    }

    @TearDown
    public void tearDown() throws IOException, OrtException {
        if (session != null && recorded != null) {
            checkAgainstRecordedOutputs(recorded);
        }
        for (OnnxTensor tensor : inputs.values()) {
            tensor.close();
        }
        inputs.clear();
        if (session != null) {
            session.close();
        }
        if (options != null) {
            options.close();
        }
    }

    static Path modelsDir() throws IOException {
        String property = System.getProperty("ortho.models.dir");
        List<Path> candidates = property != null ? List.of(Paths.get(property)) : List.of(Paths.get("models"), Paths.get("../models"));
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate.resolve("manifest.json"))) {
                return candidate;
            }
        }
        throw new IOException("no models/manifest.json under " + candidates + " (working directory "
                + Paths.get("").toAbsolutePath() + "); run from the repository root or set -Dortho.models.dir");
    }

    private static OnnxJavaType javaType(Npy npy, Path file) throws IOException {
        return switch (npy.descr()) {
            case "f4" -> OnnxJavaType.FLOAT;
            case "f8" -> OnnxJavaType.DOUBLE;
            case "f2" -> OnnxJavaType.FLOAT16;
            case "i1" -> OnnxJavaType.INT8;
            case "u1" -> OnnxJavaType.UINT8;
            case "i2" -> OnnxJavaType.INT16;
            case "i4" -> OnnxJavaType.INT32;
            case "i8" -> OnnxJavaType.INT64;
            case "b1" -> OnnxJavaType.BOOL;
            default -> throw new IOException(file + ": element type " + npy.descr() + " has no ONNX Runtime Java type here");
        };
    }
}
