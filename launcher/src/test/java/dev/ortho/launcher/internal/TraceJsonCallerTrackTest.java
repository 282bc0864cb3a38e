package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.trace.DispatchTilesEvent;
import java.io.StringWriter;
import java.nio.file.Path;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tiles run by a host thread (processor id {@code worker_count}: a waiting thread with
 * {@code task_waiter_helps}, or a submitting one with {@code task_caller_runs}) get their own
 * {@code caller} track, not a {@code worker N} track the device does not have.
 */
class TraceJsonCallerTrackTest {
    @TempDir
    Path dir;

    @Test
    void tilesOfProcessorIdWorkerCountGoOnACallerTrack() throws Exception {
        Path jfr = dir.resolve("t.jfr");
        try (Recording recording = new Recording()) {
            recording.enable(DispatchTilesEvent.NAME).withoutThreshold();
            recording.start();
            for (int worker : new int[] {0, 2}) {
                DispatchTilesEvent e = new DispatchTilesEvent();
                e.begin();
                e.device = "local-task";
                e.queue = 0;
                e.worker = worker;
                e.workers = 2;
                e.region = 0;
                e.commands = "k";
                e.tiles = 3;
                e.commit();
            }
            recording.stop();
            recording.dump(jfr);
        }
        StringWriter out = new StringWriter();
        TraceJson.write(jfr, out);
        String json = out.toString().replace(" ", "");
        assertTrue(json.contains("\"name\":\"caller\""), json);
        assertTrue(json.contains("\"name\":\"worker0\"") || json.contains("\"name\":\"worker 0\""), json);
        assertTrue(!json.contains("worker2"), "no track for a worker the device does not have: " + json);
    }
}
