package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import jdk.jfr.Configuration;
import org.junit.jupiter.api.Test;

/**
 * {@code scripts/ortho.jfc}, the settings users add to JFR's own switch, enables every event the
 * {@code --trace_file} recording enables, each occurrence and without stack traces: the two lists
 * cannot drift apart.
 */
class OrthoJfcTest {
    @Test
    void theSettingsFileEnablesEveryTraceEventWithoutThreshold() throws Exception {
        Configuration jfc = Configuration.create(Path.of("..", "scripts", "ortho.jfc"));
        Map<String, String> settings = new TreeMap<>(jfc.getSettings());
        Set<String> named = new TreeSet<>();
        for (String key : settings.keySet()) {
            named.add(key.substring(0, key.indexOf('#')));
        }
        assertEquals(new TreeSet<>(TraceFile.EVENTS), named, "events named in ortho.jfc");
        for (String event : TraceFile.EVENTS) {
            assertEquals("true", settings.get(event + "#enabled"), event);
            assertEquals("false", settings.get(event + "#stackTrace"), event);
            assertEquals("0 ns", settings.get(event + "#threshold"), event);
        }
    }
}
