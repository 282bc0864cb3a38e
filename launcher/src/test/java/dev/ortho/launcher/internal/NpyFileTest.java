package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link NpyFile}: numpy's layout byte for byte, several arrays per file, hostile files. */
class NpyFileTest {
    @TempDir
    Path dir;

    private NpyFile.Array readOne(byte[] bytes, Arena arena) throws IOException {
        Path file = dir.resolve("t.npy");
        Files.write(file, bytes);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return NpyFile.read(channel, "t.npy", arena);
        }
    }

    /** A file with {@code header} as its dict (version 1.0), padded as numpy pads, then {@code data}. */
    static byte[] file(String header, int dataBytes) {
        byte[] dict = header.getBytes(StandardCharsets.ISO_8859_1);
        int length = (10 + dict.length + 1 + 63) / 64 * 64 - 10;
        ByteBuffer out = ByteBuffer.allocate(10 + length + dataBytes).order(ByteOrder.LITTLE_ENDIAN);
        out.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) length).put(dict);
        while (out.position() < 10 + length - 1) {
            out.put((byte) ' ');
        }
        out.put((byte) '\n');
        return out.array();
    }

    @Test
    void writesNumpysExactHeaderAndReadsItBack() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment data = arena.allocateFrom(ValueLayout.JAVA_FLOAT, 1, 2, 3, 4);
            byte[] bytes = NpyFile.encode(new long[] {2, 2}, ElementType.FLOAT_32, data);
            // numpy.save(f, np.array([[1,2],[3,4]], dtype=np.float32)) writes exactly this header
            String header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
            assertArrayEquals(Arrays.copyOf(file(header, 16), 128), Arrays.copyOf(bytes, 128));
            assertEquals(128 + 16, bytes.length);
            NpyFile.Array array = readOne(bytes, arena);
            assertArrayEquals(new long[] {2, 2}, array.shape());
            assertEquals(ElementType.FLOAT_32, array.elementType());
            assertArrayEquals(new float[] {1, 2, 3, 4}, array.contents().toArray(ValueLayout.JAVA_FLOAT));
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', quoteCharacter = '"', value = {
        "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), } ; 3 ; 3 ; i1",
        "{'descr': '<i8', 'fortran_order': False, 'shape': (), } ; 8 ; ; si64",
        "{'shape': (1, 2), 'fortran_order': False, 'descr': '<u2', } ; 4 ; 1,2 ; ui16",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 5), } ; 0 ; 0,5 ; ui8",
        "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), 'extra': 'x', } ; 8 ; 1 ; cf64",
    })
    void readsNumpyDtypesShapesAndKeyOrders(String header, int dataBytes, String shape, String type)
            throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            NpyFile.Array array = readOne(file(header, dataBytes), arena);
            long[] dims = shape == null ? new long[0]
                    : Arrays.stream(shape.split(",")).mapToLong(Long::parseLong).toArray();
            assertArrayEquals(dims, array.shape());
            assertEquals(type, ElementType.format(array.elementType()));
            assertEquals(dataBytes, array.contents().byteSize());
        }
    }

    @Test
    void readsConsecutiveArraysAndReportsEndOfFile() throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            byte[] a = NpyFile.encode(new long[] {1}, ElementType.SINT_32, arena.allocateFrom(ValueLayout.JAVA_INT, 7));
            byte[] b = NpyFile.encode(new long[0], ElementType.FLOAT_64, arena.allocateFrom(ValueLayout.JAVA_DOUBLE, 2));
            Path file = dir.resolve("two.npy");
            Files.write(file, RunModuleHalTest.concat(a, b));
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
                assertEquals(7, NpyFile.read(channel, "two.npy", arena).contents().get(ValueLayout.JAVA_INT, 0));
                assertEquals(2.0, NpyFile.read(channel, "two.npy", arena).contents().get(ValueLayout.JAVA_DOUBLE, 0));
                StatusException end = assertThrows(StatusException.class, () -> NpyFile.read(channel, "two.npy", arena));
                assertEquals(StatusCode.OUT_OF_RANGE, end.code());
                assertTrue(end.getMessage().contains("end-of-file"), end.getMessage());
            }
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', quoteCharacter = '"', value = {
        // huge shapes cost nothing: the contents must fit in the file
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000, 1000000000), } ; INVALID_ARGUMENT",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4611686018427387904, 8), } ; OUT_OF_RANGE",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), } ; INVALID_ARGUMENT",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), } ; INVALID_ARGUMENT",
        "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), } ; UNIMPLEMENTED",
        "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), } ; UNIMPLEMENTED",
        "{'descr': '<U4', 'fortran_order': False, 'shape': (1,), } ; UNIMPLEMENTED",
        "{'descr': '<f', 'fortran_order': False, 'shape': (1,), } ; INVALID_ARGUMENT",
        "{'descr': '<f0', 'fortran_order': False, 'shape': (1,), } ; INVALID_ARGUMENT",
        "{'descr': '<f4', 'fortran_order': False, } ; INVALID_ARGUMENT",
        "{'descr': '<f4', 'shape': (1, ; INVALID_ARGUMENT",
        "{'descr' '<f4'} ; INVALID_ARGUMENT",
        "not a dict ; INVALID_ARGUMENT",
    })
    void hostileHeadersAreStatusExceptions(String header, StatusCode code) {
        try (Arena arena = Arena.ofConfined()) {
            StatusException e = assertThrows(StatusException.class, () -> readOne(file(header, 4), arena));
            assertEquals(code, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("t.npy") || e.getMessage().contains("descr"), e.getMessage());
        }
    }

    @Test
    void hostilePrefixesAreStatusExceptions() {
        byte[] good = file("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", 16);
        try (Arena arena = Arena.ofConfined()) {
            for (int cut : new int[] {3, 8, 9, 40, 64, 70}) {
                StatusException e = assertThrows(StatusException.class,
                        () -> readOne(Arrays.copyOf(good, cut), arena), "truncated at " + cut);
                assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.getMessage());
            }
            byte[] badMagic = good.clone();
            badMagic[1] = 'X';
            assertEquals(StatusCode.INVALID_ARGUMENT,
                    assertThrows(StatusException.class, () -> readOne(badMagic, arena)).code());
            byte[] badVersion = good.clone();
            badVersion[6] = 9;
            assertEquals(StatusCode.UNIMPLEMENTED,
                    assertThrows(StatusException.class, () -> readOne(badVersion, arena)).code());
            // version 2 with a 4 GiB header length: refused before allocating
            byte[] v2 = Arrays.copyOf(good, 16);
            v2[6] = 2;
            v2[8] = (byte) 0xFF;
            v2[9] = (byte) 0xFF;
            v2[10] = (byte) 0xFF;
            v2[11] = (byte) 0xFF;
            StatusException e = assertThrows(StatusException.class, () -> readOne(v2, arena));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("exceeds the limit"), e.getMessage());
        }
    }

    @Test
    void randomCorruptionNeverEscapesAsAnythingButStatusException() throws IOException {
        Random random = new Random(8);
        byte[] good;
        try (Arena arena = Arena.ofConfined()) {
            good = NpyFile.encode(new long[] {3, 2}, ElementType.SINT_16,
                    arena.allocateFrom(ValueLayout.JAVA_SHORT, (short) 1, (short) 2, (short) 3, (short) 4, (short) 5,
                            (short) 6));
        }
        for (int i = 0; i < 500; i++) {
            byte[] mutant = good.clone();
            for (int k = 0; k < 1 + random.nextInt(4); k++) {
                mutant[random.nextInt(mutant.length)] = (byte) random.nextInt(256);
            }
            if (random.nextBoolean()) {
                mutant = Arrays.copyOf(mutant, random.nextInt(mutant.length));
            }
            try (Arena arena = Arena.ofConfined()) {
                readOne(mutant, arena);
            } catch (StatusException expected) {
                // fine: any status, never another exception
            }
        }
    }
}
