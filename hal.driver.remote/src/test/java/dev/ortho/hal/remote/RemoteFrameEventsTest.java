package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.trace.RemoteFrameEvent;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a JFR recording a {@code remote://} client records its request frames: calls with their
 * round trip, one-way requests (buffer writes) as instants, each with opcode and frame size.
 */
class RemoteFrameEventsTest {
    @TempDir
    Path dir;

    @Test
    void callsAndOneWayRequestsAreRecorded() throws Exception {
        Path jfr = dir.resolve("remote.jfr");
        try (Recording recording = new Recording()) {
            recording.enable(RemoteFrameEvent.NAME).withoutThreshold();
            recording.start();
            try (Device device = Loopback.shared().connect();
                    Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 256)) {
                buffer.write(0, MemorySegment.ofArray(new byte[256]));
            }
            recording.stop();
            recording.dump(jfr);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals(RemoteFrameEvent.NAME)).toList();
        assertFalse(events.isEmpty());
        for (RecordedEvent e : events) {
            assertTrue(e.getString("peer") != null && !e.getString("peer").isEmpty(), "peer: " + e);
            assertTrue(e.getLong("bytes") >= 16, "a frame has a 16-byte header: " + e);
            assertTrue(e.getInt("opcode") > 0, "opcode: " + e);
            assertFalse(e.getBoolean("failed"), "failed: " + e);
        }
        assertTrue(events.stream().anyMatch(e -> !e.getBoolean("oneWay")), "no call: " + events);
        assertTrue(events.stream().anyMatch(e -> e.getBoolean("oneWay")), "no one-way request: " + events);
    }
}
