package dev.ortho.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferView;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.VmList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MlpExampleTest {
    /** f32 kernels vs the double-precision reference: well inside this for probabilities. */
    private static final double TOLERANCE = 2e-6;

    static float[] predict(ExampleHarness h, float[] x) {
        try (BufferView input = h.f32View(new long[] {1, MlpWeights.IN}, x)) {
            VmList out = h.call("mlp.predict", input);
            try {
                BufferView result = HalRefs.bufferView(out.getRef(0));
                assertArrayEquals(new long[] {1, MlpWeights.OUT}, result.shape());
                return ExampleHarness.floats(result);
            } finally {
                out.release();
            }
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ortho.examples.ExampleHarness#devices")
    void predictsWhatThePlainJavaForwardPassComputes(ExampleHarness.Target device) {
        try (ExampleHarness h = new ExampleHarness("mlp", device)) {
            for (long seed = 0; seed < 3; seed++) {
                float[] x = MlpWeights.input(seed);
                float[] actual = predict(h, x);
                double[] expected = MlpWeights.reference(x);
                double sum = 0;
                for (int i = 0; i < MlpWeights.OUT; i++) {
                    assertEquals(expected[i], actual[i], TOLERANCE, "seed " + seed + " class " + i);
                    sum += actual[i];
                }
                assertEquals(1.0, sum, 1e-5);
            }
        }
    }

    @Test
    void importedAndCopiedParametersGiveTheSameNumbers() {
        float[] x = MlpWeights.input(3);
        float[] copied;
        float[] imported;
        try (ExampleHarness h = new ExampleHarness("mlp", "local-sync://", false)) {
            copied = predict(h, x);
        }
        try (ExampleHarness h = new ExampleHarness("mlp", "local-sync://", true)) {
            imported = predict(h, x);
        }
        assertArrayEquals(copied, imported);
    }

    @Test
    void inputOfTheWrongShapeFailsWithInvalidArgument() {
        try (ExampleHarness h = new ExampleHarness("mlp", "local-sync://");
             BufferView input = h.f32View(new long[] {1, 783}, new float[783])) {
            StatusException e = assertThrows(StatusException.class, () -> h.call("mlp.predict", input));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        }
    }
}
