package dev.ortho.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.BufferView;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.VmList;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every example gives bit-identical results on every device of {@link ExampleHarness#devices()}. */
class CrossDeviceResultsTest {
    private static float[] onEveryDeviceIdentically(String program,
            BiFunction<ExampleHarness, ExampleHarness.Target, float[]> run) {
        float[] first = null;
        ExampleHarness.Target firstDevice = null;
        assertTrue(ExampleHarness.devices().size() > 1);
        for (ExampleHarness.Target device : ExampleHarness.devices()) {
            float[] result;
            try (ExampleHarness h = new ExampleHarness(program, device)) {
                result = run.apply(h, device);
            }
            if (first == null) {
                first = result;
                firstDevice = device;
            } else {
                assertArrayEquals(first, result, program + " on " + device + " differs from " + firstDevice);
            }
        }
        return first;
    }

    private static float[] call(ExampleHarness h, String function, long[] shape, float[] x) {
        try (BufferView input = h.f32View(shape, x)) {
            VmList out = h.call(function, input, input);
            try {
                return ExampleHarness.floats(HalRefs.bufferView(out.getRef(0)));
            } finally {
                out.release();
            }
        }
    }

    @Test
    void simpleMul() {
        float[] x = {1.1f, -2.2f, 3.3f, 1e-20f};
        onEveryDeviceIdentically("simple_mul", (h, d) -> call(h, "simple_mul.simple_mul", new long[] {4}, x));
    }

    @Test
    void mlp() {
        float[] x = MlpWeights.input(11);
        onEveryDeviceIdentically("mlp", (h, d) -> MlpExampleTest.predict(h, x));
    }

    @Test
    void pipelined() {
        float[] x = {0.3f, -7f, 1e10f, 2.5f};
        onEveryDeviceIdentically("pipelined", (h, d) -> {
            try (BufferView input = h.f32View(new long[] {4}, x)) {
                return PipelinedExampleTest.result(h.call("pipelined.cube", input));
            }
        });
    }

    /**
     * Issue 15: every example assembled to a {@code .vmfb} file and run from its read-only
     * mapping (as {@code as-module} then {@code run-module} do) gives on {@code remote://} what it
     * gives locally. The MLP's weights are imported read-only from the mapping; the server used to
     * refuse their upload on a one-way request, so the remote result was computed on zeros.
     */
    @Test
    void everyExampleAsAMappedVmfbOnRemoteEqualsLocal(@TempDir Path dir) throws IOException {
        float[] x4 = {0.3f, -7f, 1.5f, 2.5f};
        float[] mlpInput = MlpWeights.input(3);
        java.util.Map<String, Function<ExampleHarness, float[]>> runs = new java.util.LinkedHashMap<>();
        runs.put("simple_mul", h -> call(h, "simple_mul.simple_mul", new long[] {4}, x4));
        runs.put("mlp", h -> MlpExampleTest.predict(h, mlpInput));
        runs.put("pipelined", h -> {
            try (BufferView input = h.f32View(new long[] {4}, x4)) {
                return PipelinedExampleTest.result(h.call("pipelined.cube", input));
            }
        });
        for (var run : runs.entrySet()) {
            Path vmfb = dir.resolve(run.getKey() + ".vmfb");
            Files.write(vmfb, ExampleHarness.assemble(run.getKey()));
            float[] local;
            float[] remote;
            try (Arena arena = Arena.ofShared();
                    FileChannel channel = FileChannel.open(vmfb, StandardOpenOption.READ)) {
                MemorySegment mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), arena);
                try (ExampleHarness h = new ExampleHarness("local-task://", mapped)) {
                    local = run.getValue().apply(h);
                }
                try (ExampleHarness h = new ExampleHarness(RemoteServer.shared().uri(), mapped)) {
                    remote = run.getValue().apply(h);
                }
            }
            assertArrayEquals(local, remote, run.getKey() + ".vmfb on remote:// differs from local-task");
        }
    }
}
