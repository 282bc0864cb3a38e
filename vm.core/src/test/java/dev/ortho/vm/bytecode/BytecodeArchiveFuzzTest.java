package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.DebugDatabaseDef;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import dev.ortho.vm.bytecode.ModuleDef.FileLineColLoc;
import dev.ortho.vm.bytecode.ModuleDef.FusedLoc;
import dev.ortho.vm.bytecode.ModuleDef.NameLoc;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.RwdataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import dev.ortho.vm.bytecode.ModuleDef.SourceMapDef;
import dev.ortho.vm.internal.flatbuffers.FlatBufferBuilder;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hostile archives: thousands of seeded mutations and truncations of valid archives must each
 * either load or fail with a {@link StatusException}; nothing else may escape (from reading nor
 * from creating the {@link BytecodeModule}), and a module that loads must serialize and load
 * again. The timeout is only a hang guard.
 */
class BytecodeArchiveFuzzTest {
    private static final long SEED = 0x0F1A7B0FL;

    private static List<byte[]> corpus() {
        ModuleDef full = ModuleDefs.fromSpec("""
                name fuzz
                version 2
                type i32
                type !vm.list<?>
                import 1 dep.f 0ri_r
                function 0 8 0 2 4 2 0ri_r
                function 8 4 3 1 1 0 0_v
                export f 0
                export g 1
                rodata 000102030405060708
                state 8 1
                bytecode 000102030405060708090a0b""");
        ModuleDef extras = new ModuleDef(full.name(), full.version(), full.requirements(),
                List.of(new AttrDef("a", "b")), full.types(), List.of(new DependencyDef("hal", 7, DependencyDef.REQUIRED)),
                full.imports(), full.exports(),
                List.of(new SignatureDef("0ri_r", List.of(new AttrDef("k", "v"))), new SignatureDef("0_v", List.of())),
                List.of(new RodataDef(MemorySegment.ofArray(new byte[] {1, 2, 3}), false),
                        new RodataDef(MemorySegment.ofArray(new byte[70]), true)),
                List.of(new RwdataDef(16)), full.state(), full.functions(), full.bytecodeVersion(), full.bytecode(),
                new DebugDatabaseDef(List.of(new FileLineColLoc("f", 1, 2), new FusedLoc("m", List.of(0)),
                        new NameLoc("n", 0)), List.of(new SourceMapDef("f", List.of()))));
        return List.of(BytecodeArchive.write(full), BytecodeArchive.write(extras),
                BytecodeArchive.write(ModuleDefs.minimal("m")));
    }

    private static void load(byte[] archive, String what) {
        ModuleDef module;
        try {
            module = BytecodeArchive.read(archive);
        } catch (StatusException expected) {
            return;
        } catch (Throwable t) {
            throw new AssertionError(what + " escaped with " + t, t);
        }
        try {
            BytecodeModule.create(new dev.ortho.vm.Instance(), module, ConformanceTest.EXTENSIONS);
        } catch (StatusException expected) {
            // rejected by the module loader: fine
        } catch (Throwable t) {
            throw new AssertionError(what + " loaded but module creation escaped with " + t, t);
        }
        try {
            byte[] again = BytecodeArchive.write(module);
            BytecodeArchive.read(again);
        } catch (StatusException e) {
            if (e.code() != StatusCode.OUT_OF_RANGE) {
                fail(what + " loaded but its re-serialization did not load: " + e);
            }
        } catch (Throwable t) {
            throw new AssertionError(what + " loaded but re-serializing escaped with " + t, t);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void mutatedArchivesOnlyFailWithStatusException() {
        Random random = new Random(SEED);
        List<byte[]> corpus = corpus();
        int cases = 0;
        for (int round = 0; round < 20_000; round++) {
            byte[] base = corpus.get(round % corpus.size());
            byte[] bytes = base.clone();
            int mutations = 1 + random.nextInt(4);
            for (int m = 0; m < mutations; m++) {
                int at = random.nextInt(bytes.length);
                switch (random.nextInt(5)) {
                    case 0 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
                    case 1 -> bytes[at] = (byte) random.nextInt(256);
                    case 2 -> {
                        // Overwrite an aligned 32-bit word (offsets, counts, sizes) with a boundary value.
                        int word = at & ~3;
                        if (word + 4 <= bytes.length) {
                            int[] values = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, bytes.length,
                                    bytes.length - word, 0x7FFF, random.nextInt()};
                            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
                                    .putInt(word, values[random.nextInt(values.length)]);
                        }
                    }
                    case 3 -> {
                        // 16-bit vtable entries.
                        int half = at & ~1;
                        if (half + 2 <= bytes.length) {
                            short[] values = {0, 2, 3, 4, (short) 0xFFFF, (short) 0x7FFF, (short) random.nextInt()};
                            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN)
                                    .putShort(half, values[random.nextInt(values.length)]);
                        }
                    }
                    default -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1));
                }
                if (bytes.length == 0) {
                    break;
                }
            }
            load(bytes, "mutation round " + round);
            cases++;
        }
        for (byte[] base : corpus) {
            for (int length = 0; length < base.length; length++) {
                load(Arrays.copyOf(base, length), "truncation to " + length);
                cases++;
            }
        }
        for (int round = 0; round < 500; round++) {
            byte[] garbage = new byte[random.nextInt(512)];
            random.nextBytes(garbage);
            if (garbage.length >= 12 && random.nextBoolean()) {
                System.arraycopy("IREE".getBytes(), 0, garbage, 8, 4);
                ByteBuffer.wrap(garbage).order(ByteOrder.LITTLE_ENDIAN).putInt(0, garbage.length - 4);
            }
            load(garbage, "random archive " + round);
            cases++;
        }
        assertTrue(cases > 20_000, "ran " + cases + " cases");
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aliasedObjectsCannotExhaustMemory() {
        // 200k type entries all pointing at one table whose name is 64 KiB: expanding them would
        // need 13 GB of strings; the reader's work budget stops it.
        FlatBufferBuilder b = new FlatBufferBuilder();
        int name = b.createString("m");
        int bytecode = b.createByteVector(MemorySegment.ofArray(new byte[4]));
        int typeName = b.createString("!" + "x".repeat(65536));
        b.startTable();
        b.addOffset(0, typeName);
        int type = b.endTable();
        int[] refs = new int[200_000];
        Arrays.fill(refs, type);
        int types = b.createOffsetVector(refs);
        int signatures = b.createOffsetVector(new int[0]);
        int descriptors = b.createVector(MemorySegment.ofArray(new byte[0]), 0, 20, 4);
        b.startTable();
        b.addOffset(0, name);
        b.addOffset(4, types);
        b.addOffset(8, signatures);
        b.addOffset(12, descriptors);
        b.addInt(13, 17 << 16, 0);
        b.addOffset(14, bytecode);
        byte[] archive = b.finishSizePrefixed(b.endTable(), "IREE");
        StatusException e = assertThrows(StatusException.class, () -> BytecodeArchive.read(archive));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("aliased"), e.getMessage());
    }

    @Test
    void structuralErrorsNameTheFieldPath() {
        byte[] archive = BytecodeArchive.write(ModuleDefs.minimal("m"));
        ModuleDef ok = BytecodeArchive.read(archive);
        assertEquals("m", ok.name());
        List<String> messages = new ArrayList<>();
        ByteBuffer view = ByteBuffer.wrap(archive).order(ByteOrder.LITTLE_ENDIAN);
        int root = 4 + view.getInt(4);
        // Point the root's vtable far outside the buffer.
        byte[] badVtable = archive.clone();
        ByteBuffer.wrap(badVtable).order(ByteOrder.LITTLE_ENDIAN).putInt(root, -1_000_000);
        messages.add(assertThrows(StatusException.class, () -> BytecodeArchive.read(badVtable)).getMessage());
        assertTrue(messages.get(0).contains("module: vtable at"), messages.get(0));
        // Misalign the root offset.
        byte[] misaligned = archive.clone();
        ByteBuffer.wrap(misaligned).order(ByteOrder.LITTLE_ENDIAN).putInt(4, view.getInt(4) + 1);
        String message = assertThrows(StatusException.class, () -> BytecodeArchive.read(misaligned)).getMessage();
        assertTrue(message.contains("not 4-byte aligned"), message);
        assertArrayEquals(archive, BytecodeArchive.write(ok));
    }
}
