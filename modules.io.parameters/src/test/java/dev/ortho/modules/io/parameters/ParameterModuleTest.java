package dev.ortho.modules.io.parameters;

import static dev.ortho.modules.io.parameters.Rig.CONSTANT_USAGE;
import static dev.ortho.modules.io.parameters.Rig.MUTABLE_USAGE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.spi.ForwardingDevice;
import dev.ortho.hal.Fence;
import dev.ortho.io.parameters.ParameterArchive;
import dev.ortho.io.parameters.IrpaWriter;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The {@code io_parameters} exports over IREE-written archives ({@code mixed.irpa}: {@code a} =
 * "abc", {@code b} = splat 0x11223344 x 8, {@code c} = 100 x 0xC3), called as compiled programs
 * call them.
 */
class ParameterModuleTest {
    static final byte[] ABC = {'a', 'b', 'c'};
    static final byte[] B_PATTERN = {0x44, 0x33, 0x22, 0x11};

    @TempDir
    Path temp;

    static Path resource(String name) {
        try {
            return Path.of(ParameterModuleTest.class.getResource(name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static ParameterIndex mixed(String scope) {
        return ParameterIndex.open(List.of(scope + "=" + resource("mixed.irpa")));
    }

    static byte[] c3(int n) {
        byte[] bytes = new byte[n];
        Arrays.fill(bytes, (byte) 0xC3);
        return bytes;
    }

    @Test
    void exportsAreIreesNamesAndCallingConventions() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("gather", "0rIrrrrrrr_v");
        expected.put("load", "0rIrrrIiirrr_r");
        expected.put("scatter", "0rIrrrrrrr_v");
        try (ParameterIndex index = ParameterIndex.builder().build()) {
            Module module = ParameterModule.create(new Instance(), index);
            assertEquals("io_parameters", module.name());
            assertEquals(0, module.version());
            Map<String, String> actual = new LinkedHashMap<>();
            for (Function f : module.exports()) {
                actual.put(f.name(), f.cconv().text());
            }
            assertEquals(expected, actual);
            assertTrue(module.imports().isEmpty());
            assertTrue(module.dependencies().isEmpty(), "IREE's module declares no dependencies");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task", "validation+local-sync", "validation+local-task"})
    void loadImportsConstantsAndCopiesEverythingElse(String deviceUri) {
        try (ParameterIndex index = mixed("model"); Rig rig = new Rig(deviceUri, index)) {
            long allocatedBefore = rig.device.allocator().statistics().bytesAllocated();
            Fence[] signal = new Fence[1];
            VmList constants = rig.load("model", CONSTANT_USAGE, null, signal,
                    new Object[] {"c", 0, 0, 100}, new Object[] {"a", 0, 0, 3}, new Object[] {"b", 4, 0, 8});
            Rig.await(signal[0]);
            assertEquals(3, constants.size());
            assertArrayEquals(c3(100), Rig.read(Rig.buffer(constants, 0)));
            assertArrayEquals(ABC, Rig.read(Rig.buffer(constants, 1)));
            assertArrayEquals(Rig.repeat(B_PATTERN, 8), Rig.read(Rig.buffer(constants, 2)));
            // c (64-aligned in the file) and a are imported from the mapping: only the splat is allocated.
            assertEquals(allocatedBefore + 8, rig.device.allocator().statistics().bytesAllocated());
            constants.release();
            signal[0].release();

            VmList mutable = rig.load("model", MUTABLE_USAGE, null, signal, new Object[] {"c", 10, 0, 50});
            Rig.await(signal[0]);
            assertArrayEquals(c3(50), Rig.read(Rig.buffer(mutable, 0)));
            assertEquals(allocatedBefore + 8 + 50, rig.device.allocator().statistics().bytesAllocated());
            mutable.release();
            signal[0].release();
        }
    }

    /** A local-sync device that, like a remote one, does not use host memory in place. */
    static Device withoutZeroCopy() {
        return new ForwardingDevice(Rig.registry().createDevice("local-sync")) {
            @Override
            public long capabilities() {
                return super.capabilities() & ~DeviceCapability.HOST_ZERO_COPY_OK;
            }
        };
    }

    @Test
    void devicesWithoutZeroCopyGetCopiesAndCannotScatter() throws IOException {
        byte[] big = new byte[100_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 13);
        }
        Path file = temp.resolve("big.irpa");
        Files.write(file, new IrpaWriter().data("big", big).build());
        try (ParameterArchive archive = ParameterArchive.openWritable(file);
                ParameterIndex index = ParameterIndex.builder().add("model", archive).build();
                Rig rig = new Rig(withoutZeroCopy(), index)) {
            long before = rig.device.allocator().statistics().bytesAllocated();
            Fence[] signal = new Fence[1];
            VmList loaded = rig.load("model", CONSTANT_USAGE, null, signal, new Object[] {"big", 0, 0, big.length},
                    new Object[] {"big", 5, 0, 1000});
            Rig.await(signal[0]);
            signal[0].release();
            assertArrayEquals(big, Rig.read(Rig.buffer(loaded, 0)));
            assertArrayEquals(Arrays.copyOfRange(big, 5, 1005), Rig.read(Rig.buffer(loaded, 1)));
            // Two loaded buffers, plus a host staging buffer for the copy larger than 64 KiB.
            assertEquals(before + 2L * big.length + 1000, rig.device.allocator().statistics().bytesAllocated());
            loaded.release();
            try (Buffer source = rig.buffer(16)) {
                Fence fence = rig.nextFence();
                StatusException e = assertThrows(StatusException.class, () -> rig.transfer("scatter", "model",
                        source, null, fence, new Object[] {"big", 0, 0, 4}));
                assertEquals(StatusCode.UNIMPLEMENTED, e.code());
                assertTrue(e.getMessage().contains("HOST_ZERO_COPY_OK"), e.getMessage());
                fence.release();
            }
        }
    }

    @Test
    void loadedImportsKeepTheArchiveMappedAfterEverythingElseIsClosed() {
        VmList constants;
        Buffer kept;
        Fence[] signal = new Fence[1];
        try (ParameterIndex index = mixed("model"); Rig rig = new Rig("local-sync", index)) {
            constants = rig.load("model", CONSTANT_USAGE, null, signal, new Object[] {"c", 0, 0, 100});
            Rig.await(signal[0]);
            signal[0].release();
            kept = Rig.buffer(constants, 0);
            kept.retain();
            constants.release();
        }
        assertArrayEquals(c3(100), Rig.read(kept));
        kept.release();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "validation+local-task"})
    void gatherWritesEachSpanAtItsBufferOffset(String deviceUri) {
        try (ParameterIndex index = mixed(""); Rig rig = new Rig(deviceUri, index);
                Buffer target = rig.buffer(256)) {
            Fence signal = rig.nextFence();
            rig.transfer("gather", null, target, null, signal, new Object[] {"a", 1, 0, 2},
                    new Object[] {"b", 0, 16, 32}, new Object[] {"c", 0, 64, 100});
            Rig.await(signal);
            signal.release();
            byte[] bytes = Rig.read(target);
            assertArrayEquals(new byte[] {'b', 'c'}, Arrays.copyOfRange(bytes, 0, 2));
            assertArrayEquals(Rig.repeat(B_PATTERN, 32), Arrays.copyOfRange(bytes, 16, 48));
            assertArrayEquals(c3(100), Arrays.copyOfRange(bytes, 64, 164));
            assertEquals(0, bytes[2]);
            assertEquals(0, bytes[200]);
        }
    }

    @Test
    void largeCopiesAndWidePatternsReachTheTarget() {
        byte[] big = new byte[300_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 7);
        }
        byte[] wide = {1, 2, 3, 4, 5, 6, 7, 8};
        // Heap (non-native) archives are copied, never imported; an 8-byte pattern is staged.
        byte[] file = new IrpaWriter().data("big", big).build();
        try (ParameterArchive archive = ParameterArchive.of(java.lang.foreign.MemorySegment.ofArray(file).asReadOnly());
                ParameterIndex both = ParameterIndex.builder().add("s", archive).addSplat("s", "wide", wide, 2 << 20)
                        .build();
                Rig rig = new Rig("local-task", both)) {
            Fence[] signal = new Fence[1];
            VmList loaded = rig.load("s", CONSTANT_USAGE, null, signal, new Object[] {"big", 0, 0, big.length},
                    new Object[] {"wide", 3, 0, 16}, new Object[] {"wide", 0, 0, 2 << 20});
            Rig.await(signal[0]);
            signal[0].release();
            assertArrayEquals(big, Rig.read(Rig.buffer(loaded, 0)));
            assertArrayEquals(new byte[] {4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3},
                    Rig.read(Rig.buffer(loaded, 1)));
            assertArrayEquals(Rig.repeat(wide, 2 << 20), Rig.read(Rig.buffer(loaded, 2)));
            loaded.release();
        }
    }

    @Test
    void waitFenceOrdersTheLoad() {
        try (ParameterIndex index = mixed("model"); Rig rig = new Rig("local-task", index)) {
            Fence wait = rig.nextFence();
            Fence[] signal = new Fence[1];
            VmList loaded = rig.load("model", MUTABLE_USAGE, wait, signal, new Object[] {"a", 0, 0, 3});
            assertFalse(signal[0].query(), "nothing may complete before the wait fence is reached");
            wait.signal();
            Rig.await(signal[0]);
            assertArrayEquals(ABC, Rig.read(Rig.buffer(loaded, 0)));
            loaded.release();
            wait.release();
            signal[0].release();
        }
    }

    @Test
    void unknownScopeKeyOrRangeNameTheProblemAndFailTheSignalFence() {
        try (ParameterIndex index = mixed("model"); Rig rig = new Rig("local-sync", index)) {
            Fence[] signal = new Fence[1];
            StatusException scope = assertThrows(StatusException.class,
                    () -> rig.load("other", CONSTANT_USAGE, null, signal, new Object[] {"a", 0, 0, 3}));
            assertEquals(StatusCode.NOT_FOUND, scope.code());
            assertTrue(scope.getMessage().contains("no provider registered that handles scopes like 'other'"),
                    scope.getMessage());

            StatusException key = assertThrows(StatusException.class, () -> rig.load("model", CONSTANT_USAGE, null,
                    signal, new Object[] {"a", 0, 0, 3}, new Object[] {"zz", 0, 0, 3}));
            assertEquals(StatusCode.NOT_FOUND, key.code());
            assertTrue(key.getMessage().contains("no parameter found in index with key 'zz'"), key.getMessage());
            StatusException failed = assertThrows(StatusException.class, () -> Rig.await(signal[0]));
            assertEquals(StatusCode.NOT_FOUND, failed.code(), "the signal fence carries the failure");

            StatusException range = assertThrows(StatusException.class,
                    () -> rig.load("model", CONSTANT_USAGE, null, signal, new Object[] {"a", 1, 0, 3}));
            assertEquals(StatusCode.OUT_OF_RANGE, range.code());
            assertTrue(range.getMessage().contains("parameter `a` range out of bounds (offset=1, length=3, size=3)"),
                    range.getMessage());
            StatusException huge = assertThrows(StatusException.class,
                    () -> rig.load("model", CONSTANT_USAGE, null, signal, new Object[] {"a", -1L, 0, 2}));
            assertEquals(StatusCode.OUT_OF_RANGE, huge.code());
            assertTrue(huge.getMessage().contains("offset=18446744073709551615"), huge.getMessage());
            StatusException offset = assertThrows(StatusException.class,
                    () -> rig.load("model", CONSTANT_USAGE, null, signal, new Object[] {"a", 0, 8, 3}));
            assertEquals(StatusCode.OUT_OF_RANGE, offset.code());
            assertTrue(offset.getMessage().contains("buffer_offset 8"), offset.getMessage());
        }
    }

    @Test
    void gatherBeyondTheTargetFailsTheCallAndTheSignalFence() {
        try (ParameterIndex index = mixed("model"); Rig rig = new Rig("local-sync", index);
                Buffer target = rig.buffer(64)) {
            Fence signal = rig.nextFence();
            StatusException e = assertThrows(StatusException.class, () -> rig.transfer("gather", "model", target, null,
                    signal, new Object[] {"a", 0, 0, 3}, new Object[] {"c", 0, 60, 100}));
            StatusException fenced = assertThrows(StatusException.class, () -> Rig.await(signal));
            assertEquals(e.code(), fenced.code());
            assertTrue(e.code() == StatusCode.OUT_OF_RANGE || e.code() == StatusCode.INVALID_ARGUMENT, e.toString());
            signal.release();
        }
    }

    @Test
    void malformedSpanTablesAreRejected() {
        try (ParameterIndex index = mixed("model"); Rig rig = new Rig("local-sync", index);
                Buffer target = rig.buffer(64)) {
            dev.ortho.vm.VmBuffer[] good = Rig.spans(new Object[] {"a", 0, 0, 3});
            assertEquals(StatusCode.INVALID_ARGUMENT, call(rig, target, good[0], good[1], Rig.bytes(new byte[23])).code());
            assertEquals(StatusCode.INVALID_ARGUMENT, call(rig, target, Rig.bytes(new byte[4]), good[1], good[2]).code());
            byte[] table = {100, 0, 0, 0, 1, 0, 0, 0};
            StatusException e = call(rig, target, Rig.bytes(table), good[1], good[2]);
            assertEquals(StatusCode.OUT_OF_RANGE, e.code());
            assertTrue(e.getMessage().contains("offset=100"), e.getMessage());
            byte[] longKey = {0, 0, 0, 0, -1, -1, -1, -1};
            assertEquals(StatusCode.OUT_OF_RANGE, call(rig, target, Rig.bytes(longKey), good[1], good[2]).code());
            for (dev.ortho.vm.VmBuffer b : good) {
                b.release();
            }
        }
    }

    private static StatusException call(Rig rig, Buffer target, dev.ortho.vm.VmBuffer table, dev.ortho.vm.VmBuffer data,
            dev.ortho.vm.VmBuffer spans) {
        VmList in = VmList.ofVariants(9);
        in.pushRefMove(dev.ortho.modules.hal.HalRefs.wrap(rig.device));
        in.pushI64(-1);
        in.pushRefMove(null);
        in.pushRefMove(null);
        in.pushRefMove(Rig.string("model"));
        in.pushRefMove(dev.ortho.modules.hal.HalRefs.wrap(target));
        in.pushRefRetain(table);
        in.pushRefRetain(data);
        in.pushRefRetain(spans);
        try {
            return assertThrows(StatusException.class,
                    () -> dev.ortho.vm.Invocation.invoke(rig.context, rig.function("gather"), in, null));
        } finally {
            in.release();
        }
    }

    @Test
    void scatterNeedsAWritableArchive() throws IOException {
        try (ParameterIndex index = mixed("model"); Rig rig = new Rig("local-sync", index);
                Buffer source = rig.buffer(64)) {
            Fence signal = rig.nextFence();
            StatusException e = assertThrows(StatusException.class,
                    () -> rig.transfer("scatter", "model", source, null, signal, new Object[] {"c", 0, 0, 4}));
            assertEquals(StatusCode.PERMISSION_DENIED, e.code());
            assertTrue(e.getMessage().contains("parameter `c` storage does not support the requested access type; "
                    + "parameter allows READ, operation requires WRITE"), e.getMessage());
            StatusException splat = assertThrows(StatusException.class,
                    () -> rig.transfer("scatter", "model", source, null, signal, new Object[] {"b", 0, 0, 4}));
            assertEquals(StatusCode.PERMISSION_DENIED, splat.code());
            signal.release();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "validation+local-task"})
    void scatterWritesIntoAWritableArchiveFile(String deviceUri) throws IOException {
        Path file = temp.resolve("w.irpa");
        Files.copy(resource("mixed.irpa"), file);
        try (ParameterArchive archive = ParameterArchive.openWritable(file);
                ParameterIndex index = ParameterIndex.builder().add("model", archive).build();
                Rig rig = new Rig(deviceUri, index); Buffer source = rig.buffer(64)) {
            source.write(0, java.lang.foreign.MemorySegment.ofArray(new byte[] {9, 8, 7, 6, 5}));
            Fence signal = rig.nextFence();
            rig.transfer("scatter", "model", source, null, signal, new Object[] {"c", 10, 1, 4},
                    new Object[] {"a", 0, 0, 1});
            Rig.await(signal);
            signal.release();
        }
        try (ParameterArchive archive = ParameterArchive.open(file)) {
            byte[] c = c3(100);
            c[10] = 8;
            c[11] = 7;
            c[12] = 6;
            c[13] = 5;
            assertArrayEquals(c, archive.entries().get(2).contents().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
            assertArrayEquals(new byte[] {9, 'b', 'c'},
                    archive.entries().get(0).contents().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void contextsHoldTheArchivesWhileTheyLive() {
        ParameterIndex index = mixed("model");
        Rig rig = new Rig("local-sync", index);
        index.close(); // the context still holds the archive
        try {
            Fence[] signal = new Fence[1];
            VmList loaded = rig.load("model", MUTABLE_USAGE, null, signal, new Object[] {"a", 0, 0, 3});
            Rig.await(signal[0]);
            assertArrayEquals(ABC, Rig.read(Rig.buffer(loaded, 0)));
            loaded.release();
            signal[0].release();
        } finally {
            rig.close();
        }
        assertEquals(StatusCode.FAILED_PRECONDITION,
                assertThrows(StatusException.class, () -> index.archives().get(0).retain()).code(),
                "the last context released the mapping");
        assertNotNull(index.toString());
    }
}
