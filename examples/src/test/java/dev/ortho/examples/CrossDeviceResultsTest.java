package dev.ortho.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.BufferView;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.VmList;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;

/** Every example gives bit-identical results on every device of {@link ExampleHarness#devices()}. */
class CrossDeviceResultsTest {
    private static float[] onEveryDeviceIdentically(String program, BiFunction<ExampleHarness, String, float[]> run) {
        float[] first = null;
        String firstDevice = null;
        assertTrue(ExampleHarness.devices().size() > 1);
        for (String device : ExampleHarness.devices()) {
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
}
