package dev.ortho.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Tensor} and {@link Npy}: construction checks, conversions, NumPy files in and out. */
class TensorTest {
    @TempDir
    Path dir;

    @Test
    void arraysAreCopiedWithTheirShapeAndType() {
        float[] values = {1, 2, 3, 4, 5, 6};
        Tensor t = Tensor.of(values, 2, 3);
        values[0] = 99; // the tensor holds a copy
        assertArrayEquals(new float[] {1, 2, 3, 4, 5, 6}, t.toFloatArray());
        assertArrayEquals(new long[] {2, 3}, t.shape());
        assertEquals(ElementType.FLOAT_32, t.elementType());
        assertEquals("2x3xf32=[1 2 3][4 5 6]", t.toString());
        assertArrayEquals(new int[] {7, -8}, Tensor.of(new int[] {7, -8}, 2).toIntArray());
        assertArrayEquals(new long[] {1L << 40}, Tensor.of(new long[] {1L << 40}).toLongArray());
        assertArrayEquals(new double[] {0.5}, Tensor.of(new double[] {0.5}, 1).toDoubleArray());
        assertArrayEquals(new byte[] {1, 0, 1}, Tensor.of(new byte[] {1, 0, 1}, ElementType.BOOL_8, 3).toByteArray());
        assertEquals("4xi32=1 1 1 1", Tensor.parse("4xi32=1").toString());
    }

    @Test
    void aSegmentIsViewedWithoutACopy() {
        MemorySegment memory = MemorySegment.ofArray(new float[] {1, 2});
        Tensor t = Tensor.of(memory, ElementType.FLOAT_32, 2);
        memory.setAtIndex(java.lang.foreign.ValueLayout.JAVA_FLOAT, 1, 5f);
        assertArrayEquals(new float[] {1, 5}, t.toFloatArray());
        assertTrue(t.contents().isReadOnly());
    }

    @Test
    void mismatchedShapesAndTypesAreRefusedNamingTheValues() {
        StatusException count = assertThrows(StatusException.class, () -> Tensor.of(new float[] {1, 2, 3}, 2, 2));
        assertEquals(StatusCode.INVALID_ARGUMENT, count.code());
        assertEquals("tensor 2x2xf32 needs 16 bytes but 12 were given", count.getMessage());
        assertEquals(StatusCode.OUT_OF_RANGE,
                assertThrows(StatusException.class, () -> Tensor.of(new float[] {}, -1)).code());
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class,
                () -> Tensor.of(MemorySegment.ofArray(new byte[4]), 0x7700FF20, 1)).code());
        StatusException type = assertThrows(StatusException.class, () -> Tensor.of(new int[] {1}, 1).toFloatArray());
        assertEquals(StatusCode.FAILED_PRECONDITION, type.code());
        assertTrue(type.getMessage().contains("1xsi32"), type.getMessage());
    }

    @Test
    void npyFilesRoundTripSeveralArrays() {
        Path file = dir.resolve("two.npy");
        Npy.write(file, List.of(Tensor.of(new float[] {1, 2, 3, 4}, 2, 2), Tensor.of(new long[] {5}, 1)));
        List<Tensor> back = Npy.readAll(file);
        assertEquals(2, back.size());
        assertEquals("2x2xf32=[1 2][3 4]", back.get(0).toString());
        assertArrayEquals(new long[] {5}, back.get(1).toLongArray());
        assertEquals("2x2xf32=[1 2][3 4]", Tensor.readNpy(file).toString()); // the first array
        Tensor.of(new int[] {3}).writeNpy(file);
        assertEquals("si32=3", Tensor.readNpy(file).toString());
    }

    @Test
    void missingEmptyAndTruncatedNpyFilesFailWithStatusCodes() throws Exception {
        assertEquals(StatusCode.NOT_FOUND,
                assertThrows(StatusException.class, () -> Tensor.readNpy(dir.resolve("none.npy"))).code());
        Path empty = Files.write(dir.resolve("empty.npy"), new byte[0]);
        assertEquals(StatusCode.INVALID_ARGUMENT, assertThrows(StatusException.class, () -> Tensor.readNpy(empty)).code());
        Path full = dir.resolve("full.npy");
        Tensor.of(new float[] {1, 2, 3, 4}, 4).writeNpy(full);
        byte[] bytes = Files.readAllBytes(full);
        Path cut = Files.write(dir.resolve("cut.npy"), java.util.Arrays.copyOf(bytes, bytes.length - 3));
        StatusException e = assertThrows(StatusException.class, () -> Tensor.readNpy(cut));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("only 13 bytes remain"), e.getMessage());
    }
}
