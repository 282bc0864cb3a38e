package dev.ortho.io.parameters;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading {@code .irpa} files: IREE-written archives, crafted ones, and hostile ones. */
class ParameterArchiveTest {
    @TempDir
    Path temp;

    /** A test resource written by IREE's runtime (generate.sh). */
    static Path resource(String name) {
        try {
            return Path.of(ParameterArchiveTest.class.getResource("/dev/ortho/modules/io/parameters/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] bytes(MemorySegment segment) {
        return segment.toArray(ValueLayout.JAVA_BYTE);
    }

    static ParameterArchive parse(byte[] file) {
        return ParameterArchive.of(MemorySegment.ofArray(file).asReadOnly());
    }

    static StatusException rejects(StatusCode code, byte[] file, String messagePart) {
        StatusException e = assertThrows(StatusException.class, () -> parse(file));
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(messagePart), e.getMessage());
        return e;
    }

    @Test
    void readsIreeSingleEntryArchive() {
        try (ParameterArchive archive = ParameterArchive.open(resource("single.irpa"))) {
            assertEquals(1, archive.entries().size());
            ParameterEntry entry = archive.entries().get(0);
            assertEquals("key0", entry.key());
            assertFalse(entry.isSplat());
            assertEquals(16, entry.length());
            assertEquals(0, entry.offset() % 64, "IREE aligns data to 64 bytes");
            byte[] expected = new byte[16];
            for (int i = 0; i < 16; i++) {
                expected[i] = (byte) i;
            }
            assertArrayEquals(expected, bytes(entry.contents()));
            assertTrue(entry.contents().isReadOnly());
            assertTrue(entry.contents().isNative(), "mapped, not read into the heap");
        }
    }

    @Test
    void readsIreeMixedArchiveWithSplatAndMetadata() {
        try (ParameterArchive archive = ParameterArchive.open(resource("mixed.irpa"))) {
            List<ParameterEntry> entries = archive.entries();
            assertEquals(List.of("a", "b", "c"), entries.stream().map(ParameterEntry::key).toList());
            assertArrayEquals("abc".getBytes(StandardCharsets.US_ASCII), bytes(entries.get(0).contents()));
            ParameterEntry splat = entries.get(1);
            assertTrue(splat.isSplat());
            assertEquals(32, splat.length());
            assertArrayEquals(new byte[] {0x44, 0x33, 0x22, 0x11}, splat.splatPattern());
            assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, splat::contents).code());
            ParameterEntry c = entries.get(2);
            byte[] c3 = new byte[100];
            Arrays.fill(c3, (byte) 0xC3);
            assertArrayEquals(c3, bytes(c.contents()));
            assertArrayEquals("meta".getBytes(StandardCharsets.US_ASCII), c.metadata());
            assertEquals(0, c.offset() % 64);
        }
    }

    @Test
    void readsIreeEmptyArchive() {
        try (ParameterArchive archive = ParameterArchive.open(resource("empty.irpa"))) {
            assertTrue(archive.entries().isEmpty());
        }
    }

    @Test
    void writerRoundTripsEntriesAtTheirAlignment() {
        for (int alignment : new int[] {16, 64, 4096}) {
            byte[] file = new IrpaWriter().alignment(alignment).data("x", new byte[] {1, 2, 3})
                    .data("y", new byte[] {4, 5}, "m").splat("z", new byte[] {7, 0, 0, 0, 0, 0, 0, 0}, 64).build();
            try (ParameterArchive archive = parse(file)) {
                assertEquals(3, archive.entries().size());
                assertEquals(0, archive.entries().get(0).offset() % alignment);
                assertEquals(0, archive.entries().get(1).offset() % alignment);
                assertArrayEquals(new byte[] {4, 5}, bytes(archive.entries().get(1).contents()));
                assertEquals(8, archive.entries().get(2).splatPattern().length);
            }
        }
    }

    @Test
    void skipEntriesAreLeftOut() {
        byte[] file = new IrpaWriter().data("a", new byte[] {1}).skip("gone").data("b", new byte[] {2}).build();
        try (ParameterArchive archive = parse(file)) {
            assertEquals(List.of("a", "b"), archive.entries().stream().map(ParameterEntry::key).toList());
        }
    }

    @Test
    void linkedArchivesInOneFileAreReadInOrder() {
        byte[] file = IrpaWriter.link(new IrpaWriter().data("first", new byte[] {1, 1}).build(),
                new IrpaWriter().data("second", new byte[] {2, 2, 2}).build());
        try (ParameterArchive archive = parse(file)) {
            assertEquals(List.of("first", "second"), archive.entries().stream().map(ParameterEntry::key).toList());
            assertArrayEquals(new byte[] {2, 2, 2}, bytes(archive.entries().get(1).contents()));
        }
    }

    @Test
    void externalEntriesAreUnimplementedAsInIree() {
        rejects(StatusCode.UNIMPLEMENTED, new IrpaWriter().raw(3, "ext").build(), "entry type 3");
        rejects(StatusCode.UNIMPLEMENTED, new IrpaWriter().raw(77, "odd").build(), "entry type 77");
    }

    @Test
    void headerProblemsNameTheField() {
        byte[] good = new IrpaWriter().data("a", new byte[] {1}).build();
        rejects(StatusCode.INVALID_ARGUMENT, new byte[0], "not enough bytes for a valid IRPA header");
        rejects(StatusCode.INVALID_ARGUMENT, Arrays.copyOf(good, 31), "not enough bytes");
        byte[] magic = good.clone();
        magic[0] = 'X';
        rejects(StatusCode.INVALID_ARGUMENT, magic, "magic");
        byte[] major = good.clone();
        major[4] = 1;
        rejects(StatusCode.UNIMPLEMENTED, major, "major version 1.0");
        byte[] minor = good.clone();
        minor[6] = 1;
        rejects(StatusCode.UNIMPLEMENTED, minor, "0.1 not supported");
        byte[] headerSize = good.clone();
        IrpaWriter.patch(headerSize, 8, 87);
        rejects(StatusCode.INVALID_ARGUMENT, headerSize, "reported as 87");
        IrpaWriter.patch(headerSize, 8, -1);
        rejects(StatusCode.OUT_OF_RANGE, headerSize, "18446744073709551615");
        byte[] next = good.clone();
        IrpaWriter.patch(next, 16, good.length);
        rejects(StatusCode.OUT_OF_RANGE, next, "linked header");
        IrpaWriter.patch(next, 16, Long.MIN_VALUE);
        rejects(StatusCode.OUT_OF_RANGE, next, "linked header");
    }

    @Test
    void segmentsOutsideTheFileAreOutOfRange() {
        byte[] good = new IrpaWriter().data("a", new byte[] {1}).build();
        for (int field : new int[] {40, 48, 56, 64, 72, 80}) {
            byte[] bad = good.clone();
            IrpaWriter.patch(bad, field, good.length + 1L);
            StatusException e = assertThrows(StatusException.class, () -> parse(bad));
            assertEquals(StatusCode.OUT_OF_RANGE, e.code(), "field at " + field + ": " + e.getMessage());
            IrpaWriter.patch(bad, field, -8);
            e = assertThrows(StatusException.class, () -> parse(bad));
            assertEquals(StatusCode.OUT_OF_RANGE, e.code(), "field at " + field + ": " + e.getMessage());
        }
    }

    @Test
    void entryProblemsNameTheEntry() {
        IrpaWriter writer = new IrpaWriter().data("a", new byte[] {1, 2}).splat("s", new byte[] {9}, 4);
        byte[] good = writer.build();
        long a = writer.entryOffsets.get(0);
        long s = writer.entryOffsets.get(1);

        byte[] count = good.clone();
        IrpaWriter.patch(count, 32, Long.MAX_VALUE);
        rejects(StatusCode.OUT_OF_RANGE, count, "entry table truncated at entry 2");

        byte[] size = good.clone();
        IrpaWriter.patch(size, a, 59);
        rejects(StatusCode.OUT_OF_RANGE, size, "entry_size 59");
        IrpaWriter.patch(size, a, 60);
        rejects(StatusCode.OUT_OF_RANGE, size, "below the 76 byte data entry");
        IrpaWriter.patch(size, a, 1L << 40);
        rejects(StatusCode.OUT_OF_RANGE, size, "entry_size 1099511627776");

        byte[] name = good.clone();
        IrpaWriter.patch(name, a + 28, 1000);
        rejects(StatusCode.OUT_OF_RANGE, name, "entry 0 name reference out of range");
        IrpaWriter.patch(name, a + 28, -1);
        rejects(StatusCode.OUT_OF_RANGE, name, "entry 0 name");

        byte[] meta = good.clone();
        IrpaWriter.patch(meta, s + 36, Long.MAX_VALUE);
        IrpaWriter.patch(meta, s + 44, 2);
        rejects(StatusCode.OUT_OF_RANGE, meta, "entry 1 metadata");

        byte[] storage = good.clone();
        IrpaWriter.patch(storage, a + 68, 1L << 62);
        rejects(StatusCode.OUT_OF_RANGE, storage, "`a`) storage reference out of range");
        IrpaWriter.patch(storage, a + 60, -1);
        IrpaWriter.patch(storage, a + 68, 2);
        rejects(StatusCode.OUT_OF_RANGE, storage, "storage reference");

        byte[] pattern = good.clone();
        pattern[(int) s + 84] = 17;
        rejects(StatusCode.INVALID_ARGUMENT, pattern, "splat pattern length 17");
        pattern[(int) s + 84] = 3;
        rejects(StatusCode.INVALID_ARGUMENT, pattern, "pattern length 3 is not 1, 2, 4, 8 or 16");
        byte[] splatLength = good.clone();
        IrpaWriter.patch(splatLength, s + 60, -1);
        rejects(StatusCode.INVALID_ARGUMENT, splatLength, "splat parameter `s` length");
    }

    @Test
    void everyTruncationIsAStatusOrAValidPrefix() {
        byte[] file = new IrpaWriter().data("a", new byte[] {1, 2, 3}).splat("b", new byte[] {1, 2}, 8)
                .data("c", new byte[100], "meta").build();
        for (int n = 0; n < file.length; n++) {
            byte[] cut = Arrays.copyOf(file, n);
            try (ParameterArchive archive = parse(cut)) {
                touch(archive);
            } catch (StatusException expected) {
                // fine: a clear status
            }
        }
    }

    @Test
    void randomMutationsOnlyEverFailWithAStatus() throws IOException {
        byte[] ireeFile = Files.readAllBytes(resource("mixed.irpa"));
        byte[] ourFile = IrpaWriter.link(new IrpaWriter().data("a", new byte[] {1}).splat("b", new byte[] {5}, 7).build(),
                new IrpaWriter().data("c", new byte[33], "m").skip("d").build());
        Random random = new Random(14);
        int failures = 0;
        int successes = 0;
        for (int round = 0; round < 3000; round++) {
            byte[] file = (round % 2 == 0 ? ireeFile : ourFile).clone();
            int mutations = 1 + random.nextInt(8);
            int headerBytes = Math.min(file.length, 512); // mostly where the structure is
            for (int m = 0; m < mutations; m++) {
                int at = random.nextInt(random.nextInt(4) == 0 ? file.length : headerBytes);
                file[at] = switch (random.nextInt(4)) {
                    case 0 -> (byte) random.nextInt(256);
                    case 1 -> (byte) 0xFF;
                    case 2 -> 0;
                    default -> (byte) (file[at] ^ (1 << random.nextInt(8)));
                };
            }
            try (ParameterArchive archive = parse(file)) {
                touch(archive);
                successes++;
            } catch (StatusException expected) {
                failures++;
            }
        }
        assertTrue(failures > 100 && successes > 100, failures + " failures, " + successes + " successes");
    }

    /** Reads every byte every entry claims (out-of-bounds would throw IndexOutOfBoundsException). */
    private static void touch(ParameterArchive archive) {
        for (ParameterEntry entry : archive.entries()) {
            entry.key();
            entry.metadata();
            if (entry.isSplat()) {
                assertTrue(entry.length() >= 0 && entry.length() % entry.splatPattern().length == 0);
            } else {
                MemorySegment contents = entry.contents();
                assertEquals(entry.length(), contents.byteSize());
                if (contents.byteSize() > 0) {
                    contents.get(ValueLayout.JAVA_BYTE, contents.byteSize() - 1);
                }
            }
        }
    }

    @Test
    void tooManyEntriesIsResourceExhaustedNotAnOutOfMemoryError() {
        int count = ParameterArchive.MAX_ENTRIES + 1;
        // One splat entry repeated: the entry table is (count x 96) bytes of the same entry.
        byte[] one = new IrpaWriter().splat("k", new byte[] {1}, 1).build();
        long entrySize = 96;
        long tableOffset = 96;
        byte[] file = new byte[(int) (tableOffset + count * entrySize + 16)];
        System.arraycopy(one, 0, file, 0, (int) (tableOffset + entrySize));
        for (long i = 1; i < count; i++) {
            System.arraycopy(one, (int) tableOffset, file, (int) (tableOffset + i * entrySize), (int) entrySize);
        }
        long metadataOffset = tableOffset + count * entrySize;
        file[(int) metadataOffset] = 'k';
        IrpaWriter.patch(file, 32, count);
        IrpaWriter.patch(file, 48, count * entrySize);
        IrpaWriter.patch(file, 56, metadataOffset);
        IrpaWriter.patch(file, 64, 1);
        IrpaWriter.patch(file, 72, 0);
        IrpaWriter.patch(file, 80, 0);
        rejects(StatusCode.RESOURCE_EXHAUSTED, file, "more than " + ParameterArchive.MAX_ENTRIES + " entries");
    }

    @Test
    void missingFileIsNotFound() {
        StatusException e = assertThrows(StatusException.class, () -> ParameterArchive.open(temp.resolve("no.irpa")));
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertTrue(e.getMessage().contains("no.irpa"), e.getMessage());
    }

    @Test
    void contentsAreGoneAfterTheLastRelease() throws IOException {
        Path file = temp.resolve("a.irpa");
        Files.write(file, new IrpaWriter().data("a", new byte[] {1}).build());
        ParameterArchive archive = ParameterArchive.open(file);
        ParameterEntry entry = archive.entries().get(0);
        archive.retain();
        archive.release();
        assertEquals(1, entry.contents().get(ValueLayout.JAVA_BYTE, 0));
        archive.close();
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, entry::contents).code());
        assertEquals(StatusCode.FAILED_PRECONDITION, assertThrows(StatusException.class, archive::retain).code());
        archive.release(); // extra releases are ignored
    }

    @Test
    void writableArchivesMapTheFileForWriting() throws IOException {
        Path file = temp.resolve("w.irpa");
        Files.write(file, new IrpaWriter().data("a", new byte[] {1, 2}).build());
        try (ParameterArchive archive = ParameterArchive.openWritable(file)) {
            assertTrue(archive.isWritable());
            archive.entries().get(0).contents().set(ValueLayout.JAVA_BYTE, 1, (byte) 42);
        }
        try (ParameterArchive archive = ParameterArchive.open(file)) {
            assertFalse(archive.isWritable());
            assertArrayEquals(new byte[] {1, 42}, bytes(archive.entries().get(0).contents()));
        }
    }
}
