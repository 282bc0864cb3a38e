package dev.ortho.hal.remote.internal.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DispatchFlags;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.Resource;
import dev.ortho.hal.spi.CommandRecorder;
import dev.ortho.hal.spi.RecordedCommand;
import dev.ortho.hal.spi.Recording;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The one codec of recorded command buffers: what the client encodes the server decodes to an
 * equal recording, and a corrupt frame is a {@link StatusException} naming the field and value,
 * never another exception.
 */
class RecordingCodecTest {
    private final Map<Resource, Long> handles = new IdentityHashMap<>();
    private final Map<Long, Resource> resources = new HashMap<>();

    private <T extends Resource> T resource(Class<T> type, long handle, long byteLength) {
        Object proxy = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type},
                (self, method, args) -> switch (method.getName()) {
                    case "byteLength" -> byteLength;
                    case "byteOffset" -> 0L;
                    case "retain", "release" -> null;
                    case "toString" -> type.getSimpleName() + " " + handle;
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        T resource = type.cast(proxy);
        handles.put(resource, handle);
        resources.put(handle, resource);
        return resource;
    }

    private final RecordingCodec.HandleReader reader = new RecordingCodec.HandleReader() {
        @Override
        public Buffer buffer(long handle, String what) {
            return find(Buffer.class, handle, what);
        }

        @Override
        public Event event(long handle, String what) {
            return find(Event.class, handle, what);
        }

        @Override
        public Executable executable(long handle, String what) {
            return find(Executable.class, handle, what);
        }
    };

    private <T> T find(Class<T> type, long handle, String what) {
        Resource resource = resources.get(handle);
        if (!type.isInstance(resource)) {
            throw new StatusException(StatusCode.NOT_FOUND, what + " handle " + handle + " is not a "
                    + type.getSimpleName());
        }
        return type.cast(resource);
    }

    /** A recording with every command kind and every reference kind. */
    private Recording everything() {
        Buffer a = resource(Buffer.class, 11, 64);
        Buffer b = resource(Buffer.class, 12, 64);
        Event event = resource(Event.class, 21, 0);
        Executable exe = resource(Executable.class, 31, 0);
        CommandRecorder recorder = new CommandRecorder("cb", 0, CommandCategory.ANY, 4, false);
        recorder.begin();
        recorder.beginDebugGroup("outer ünïcode");
        recorder.record(recorder.barrier(1, 2, 3, new MemoryBarrier[] {new MemoryBarrier(4, 5)},
                new BufferBarrier[] {new BufferBarrier(6, 7, BufferRef.of(a, 8, 16)),
                        new BufferBarrier(8, 9, BufferRef.slot(3, 0, Buffer.WHOLE_BUFFER))}));
        recorder.record(new RecordedCommand.SignalEvent(event, 1));
        recorder.record(new RecordedCommand.ResetEvent(event, 2));
        recorder.record(recorder.waitEvents(new Event[] {event, event}, 3, 4, null, null));
        recorder.record(new RecordedCommand.Advise(BufferRef.slot(0, 4, 4), 0, -1, Long.MAX_VALUE));
        recorder.record(new RecordedCommand.Fill(BufferRef.of(a, 0, 32), 0xABCD, 2, 0));
        recorder.record(CommandRecorder.update(MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5}),
                BufferRef.of(b, 3, Buffer.WHOLE_BUFFER), 0));
        recorder.record(new RecordedCommand.Copy(BufferRef.of(a, 0, 8), BufferRef.slot(1, 8, 8), 0));
        recorder.endDebugGroup();
        recorder.record(CommandRecorder.dispatch(exe, 2, new DispatchConfig(1, 2, 3, 4, 5, 6,
                BufferRef.of(b, 0, 12), 64), MemorySegment.ofArray(new byte[] {9, 0, 0, 0, 8, 0, 0, 0}),
                new BufferRef[] {BufferRef.of(a, 0, 64), BufferRef.slot(2, 0, 16)},
                DispatchFlags.STATIC_INDIRECT_PARAMETERS));
        recorder.record(CommandRecorder.dispatch(exe, 0, DispatchConfig.ofCount(7, 1, 1), null, null, 0));
        return recorder.end();
    }

    private ByteBuffer encode(Recording recording) {
        FrameWriter out = FrameWriter.frame(Protocol.COMMAND_BUFFER, 5);
        RecordingCodec.writeCommandBuffer(out, 77, 0x3, recording, resource -> handles.get(resource));
        return out.finish().position(Protocol.LENGTH_BYTES).slice().order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void aRecordingRoundTripsToAnEqualRecording() {
        Recording original = everything();
        RecordingCodec.Decoded decoded = RecordingCodec.readCommandBuffer(new FrameReader(encode(original)), reader);
        assertEquals(77, decoded.header().handle());
        assertEquals(0x3, decoded.header().affinity());
        assertEquals(original, decoded.recording());
        assertEquals(4, decoded.recording().bindingCount(), "slot 3 of the buffer barrier is the highest");
    }

    @Test
    void wholeBufferDirectReferencesTravelWithTheirResolvedLength() {
        Buffer a = resource(Buffer.class, 40, 100);
        CommandRecorder recorder = new CommandRecorder("cb", 0, CommandCategory.ANY, 0, false);
        recorder.begin();
        recorder.record(new RecordedCommand.Fill(BufferRef.of(a, 20, Buffer.WHOLE_BUFFER), 0, 4, 0));
        RecordingCodec.Decoded decoded = RecordingCodec.readCommandBuffer(new FrameReader(encode(recorder.end())),
                reader);
        RecordedCommand.Fill fill = (RecordedCommand.Fill) decoded.recording().commands().getFirst();
        assertEquals(BufferRef.of(a, 20, 80), fill.target());
    }

    @Test
    void everyTruncationIsAStatusExceptionNamingTheField() {
        ByteBuffer frame = encode(everything());
        for (int length = 0; length < frame.remaining(); length++) {
            ByteBuffer cut = frame.slice(0, length);
            StatusException e = assertThrows(StatusException.class,
                    () -> RecordingCodec.readCommandBuffer(new FrameReader(cut), reader), "length " + length);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("header") || e.getMessage().contains("needs"), e.getMessage());
        }
    }

    @Test
    void corruptValuesAreStatusExceptionsNamingFieldAndValue() {
        int header = Protocol.HEADER_BYTES + 8 + 4 + 4 + 8 + 4; // then the command count
        ByteBuffer frame = encode(everything());
        assertStatus(poke(frame, header, 0x7FFF_FFFF), StatusCode.INVALID_ARGUMENT, "commands count 2147483647");
        int firstKind = header + 4;
        assertStatus(pokeByte(frame, firstKind, 99), StatusCode.INVALID_ARGUMENT, "command kind 99");
        // the first command is the debug group: kind, u32 label length, label
        int labelLength = frame.getInt(firstKind + 1);
        int barrier = firstKind + 1 + 4 + labelLength;
        assertEquals(Protocol.CMD_BARRIER, frame.get(barrier));
        int firstRefKind = barrier + 1 + 12 + 4 + 8 + 4 + 8; // stages, flags, memory barriers, count, scopes
        assertStatus(pokeByte(frame, firstRefKind, 7), StatusCode.INVALID_ARGUMENT, "buffer reference kind 7");
        assertStatus(poke(frame, firstRefKind + 1, 999), StatusCode.NOT_FOUND, "handle 999");
        assertStatus(poke(frame, header - 4, 2), StatusCode.OUT_OF_RANGE, "slot 3", "capacity 2");
        assertStatus(poke(frame, header - 12 - 4, 0), StatusCode.INVALID_ARGUMENT, "categories");
    }

    @Test
    void randomCorruptionNeverThrowsAnythingButStatusException() {
        ByteBuffer frame = encode(everything());
        SplittableRandom random = new SplittableRandom(17);
        for (int round = 0; round < 5_000; round++) {
            ByteBuffer copy = copy(frame);
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                int at = Protocol.HEADER_BYTES + random.nextInt(copy.remaining() - Protocol.HEADER_BYTES);
                copy.put(at, (byte) random.nextInt(256));
            }
            try {
                RecordingCodec.readCommandBuffer(new FrameReader(copy), reader);
            } catch (StatusException expected) {
                assertTrue(expected.getMessage() != null && !expected.getMessage().isEmpty());
            } catch (RuntimeException e) {
                fail("round " + round + " threw " + e, e);
            }
        }
    }

    private void assertStatus(ByteBuffer frame, StatusCode code, String... fragments) {
        StatusException e = assertThrows(StatusException.class, () -> RecordingCodec.readCommandBuffer(
                new FrameReader(frame), reader));
        assertEquals(code, e.code(), e.getMessage());
        for (String fragment : fragments) {
            assertTrue(e.getMessage().contains(fragment), "'" + fragment + "' missing from: " + e.getMessage());
        }
    }

    private static ByteBuffer copy(ByteBuffer frame) {
        ByteBuffer copy = ByteBuffer.allocate(frame.remaining()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        copy.put(frame.duplicate()).flip();
        return copy;
    }

    private static ByteBuffer poke(ByteBuffer frame, int at, int value) {
        ByteBuffer copy = copy(frame).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        copy.putInt(at, value);
        return copy;
    }

    private static ByteBuffer pokeByte(ByteBuffer frame, int at, int value) {
        ByteBuffer copy = copy(frame);
        copy.put(at, (byte) value);
        return copy;
    }
}
