package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.launcher.internal.IreeCompiledModelsTest.Run;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --trace_file}: the IREE-compiled MLP on local-task with 2 workers writes a
 * Chrome/Perfetto trace with a track per worker and per queue, the dispatches' tiles on the
 * worker tracks, inside the invocation that issued them.
 */
class TraceFileTest {
    private static final Path MODELS = Path.of("..", "models").toAbsolutePath().normalize();
    private static final String DEVICE = "local-task://?task_topology_group_count=2";

    @TempDir
    Path dir;

    private List<String> mlpFlags(String tool, Path trace) {
        return new ArrayList<>(List.of(tool, "--module=" + MODELS.resolve("vmfb/mlp.vmvx.vmfb"), "--function=mlp",
                "--input=@" + MODELS.resolve("data/mlp/b1/input0.npy"), "--device=" + DEVICE,
                "--trace_file=" + trace));
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> events(Path trace) throws IOException {
        Map<String, Object> root = (Map<String, Object>) MiniJson.parse(Files.readString(trace));
        return (List<Map<String, Object>>) root.get("traceEvents");
    }

    private static String track(Map<String, Object> e) {
        return Math.round((Double) e.get("pid")) + "/" + Math.round((Double) e.get("tid"));
    }

    @SuppressWarnings("unchecked")
    private static Object arg(Map<String, Object> e, String name) {
        return ((Map<String, Object>) e.get("args")).get(name);
    }

    private static double ts(Map<String, Object> e) {
        return (Double) e.get("ts");
    }

    private static double end(Map<String, Object> e) {
        return ts(e) + (Double) e.get("dur");
    }

    @Test
    void runModuleTracesMlpOnTwoWorkersAndOneQueue() throws IOException {
        Path trace = dir.resolve("trace.json");
        Run r = IreeCompiledModelsTest.run(mlpFlags("run-module", trace));
        assertEquals(0, r.exit(), r.err());
        List<Map<String, Object>> events = events(trace);

        Map<String, String> threadNames = new HashMap<>();
        for (Map<String, Object> e : events) {
            if ("M".equals(e.get("ph")) && "thread_name".equals(e.get("name"))) {
                threadNames.put(track(e), (String) arg(e, "name"));
            }
        }
        Set<String> workerTracks = new TreeSet<>();
        Set<String> queueTracks = new TreeSet<>();
        threadNames.forEach((track, name) -> {
            if (!track.startsWith(TraceJson.HOST_PID + "/")) {
                (name.startsWith("queue ") ? queueTracks : workerTracks).add(name);
            }
        });
        // "caller": tiles a waiting host thread ran itself (task_waiter_helps, processor id worker_count)
        workerTracks.remove("caller");
        assertEquals(Set.of("worker 0", "worker 1"), workerTracks, "device tracks: " + threadNames);
        // One queue; operations in flight together spread over its overlap tracks.
        assertTrue(queueTracks.contains("queue 0"), "queue tracks: " + queueTracks);
        for (String name : queueTracks) {
            assertTrue(name.equals("queue 0") || name.startsWith("queue 0 (overlap "), "queue tracks: " + queueTracks);
        }

        List<Map<String, Object>> dispatches = new ArrayList<>();
        List<Map<String, Object>> invocations = new ArrayList<>();
        List<Map<String, Object>> queueOps = new ArrayList<>();
        List<Map<String, Object>> imports = new ArrayList<>();
        for (Map<String, Object> e : events) {
            if (e.get("ph").equals("M")) {
                continue;
            }
            assertTrue(ts(e) >= 0, "ts: " + e);
            switch ((String) e.get("cat")) {
                case "hal.dispatch" -> dispatches.add(e);
                case "vm.invoke" -> invocations.add(e);
                case "hal.queue" -> queueOps.add(e);
                case "vm.import" -> imports.add(e);
                default -> {
                }
            }
        }
        assertFalse(dispatches.isEmpty(), "no dispatch events");
        for (Map<String, Object> d : dispatches) {
            String onTrack = threadNames.get(track(d));
            assertTrue(onTrack.startsWith("worker ") || onTrack.equals("caller"), "dispatch off a worker track: " + d);
            assertTrue((Double) arg(d, "tiles") >= 1, "tiles: " + d);
            assertTrue(((String) d.get("name")).contains("_dispatch_"), "dispatch name: " + d);
        }
        assertEquals(1, invocations.size(), "invocations: " + invocations);
        Map<String, Object> invocation = invocations.get(0);
        assertEquals("module.mlp", invocation.get("name"));
        assertEquals(false, arg(invocation, "failed"));
        double slack = 0.002; // µs printed with 3 decimals
        for (Map<String, Object> d : dispatches) {
            assertTrue(ts(d) >= ts(invocation) - slack && end(d) <= end(invocation) + slack,
                    "dispatch " + d + " outside the invocation " + invocation);
        }
        assertTrue(queueOps.stream().anyMatch(e -> e.get("name").equals("EXECUTE")), "queue ops: " + queueOps);
        assertTrue(imports.stream().anyMatch(e -> ((String) e.get("name")).startsWith("hal.")), "imports: " + imports);
        assertNotEquals(0, imports.size());
        assertSlicesNestPerTrack(events);
    }

    /** Every track's complete events are disjoint or nested (what the trace viewers require). */
    private static void assertSlicesNestPerTrack(List<Map<String, Object>> events) {
        Map<String, List<Map<String, Object>>> byTrack = new HashMap<>();
        for (Map<String, Object> e : events) {
            if ("X".equals(e.get("ph"))) {
                byTrack.computeIfAbsent(track(e), k -> new ArrayList<>()).add(e);
            }
        }
        double slack = 0.002;
        byTrack.forEach((track, slices) -> {
            slices.sort(Comparator.comparingDouble(TraceFileTest::ts));
            List<Map<String, Object>> open = new ArrayList<>();
            for (Map<String, Object> s : slices) {
                while (!open.isEmpty() && end(open.get(open.size() - 1)) <= ts(s) + slack) {
                    open.remove(open.size() - 1);
                }
                if (!open.isEmpty()) {
                    Map<String, Object> parent = open.get(open.size() - 1);
                    assertTrue(end(s) <= end(parent) + slack, "track " + track + ": " + s + " overlaps " + parent);
                }
                open.add(s);
            }
        });
    }

    @Test
    void benchmarkModuleTracesEveryCall() throws IOException {
        Path trace = dir.resolve("bench.json");
        List<String> args = mlpFlags("benchmark-module", trace);
        args.add("--benchmark_min_time=3x");
        args.add("--benchmark_min_warmup_time=0");
        Run r = IreeCompiledModelsTest.run(args);
        assertEquals(0, r.exit(), r.err());
        long invocations = events(trace).stream().filter(e -> "vm.invoke".equals(e.get("cat"))).count();
        assertTrue(invocations >= 3, "invocations traced: " + invocations);
    }

    @Test
    void traceFileInMissingDirectoryFailsWithInvalidArgument() {
        Path trace = dir.resolve("no-such-dir").resolve("trace.json");
        Run r = IreeCompiledModelsTest.run(mlpFlags("run-module", trace));
        assertNotEquals(0, r.exit());
        assertTrue(r.err().contains("INVALID_ARGUMENT") && r.err().contains("--trace_file=" + trace), r.err());
        assertFalse(Files.exists(trace));
    }
}
