package dev.ortho.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BufferView;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.VmList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SimpleMulExampleTest {
    @ParameterizedTest
    @MethodSource("dev.ortho.examples.ExampleHarness#devices")
    void multipliesElementwiseLikePlainJava(ExampleHarness.Target device) {
        float[] lhs = {1.5f, -2f, 3.25f, 1e-3f};
        float[] rhs = {4f, 0.5f, -1f, 7f};
        float[] expected = new float[4];
        for (int i = 0; i < 4; i++) {
            expected[i] = lhs[i] * rhs[i];
        }
        try (ExampleHarness h = new ExampleHarness("simple_mul", device);
             BufferView a = h.f32View(new long[] {4}, lhs);
             BufferView b = h.f32View(new long[] {4}, rhs)) {
            VmList out = h.call("simple_mul.simple_mul", a, b);
            BufferView result = HalRefs.bufferView(out.getRef(0));
            assertArrayEquals(new long[] {4}, result.shape());
            assertArrayEquals(expected, ExampleHarness.floats(result));
            out.release();
        }
    }

    @ParameterizedTest
    @MethodSource("dev.ortho.examples.ExampleHarness#devices")
    void wrongShapeIsRejectedByTheProgramsAssert(ExampleHarness.Target device) {
        try (ExampleHarness h = new ExampleHarness("simple_mul", device);
             BufferView a = h.f32View(new long[] {5}, new float[5]);
             BufferView b = h.f32View(new long[] {4}, new float[4])) {
            StatusException e = assertThrows(StatusException.class, () -> h.call("simple_mul.simple_mul", a, b));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("lhs"), e.getMessage());
        }
    }
}
