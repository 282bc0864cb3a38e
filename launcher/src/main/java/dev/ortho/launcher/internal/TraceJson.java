package dev.ortho.launcher.internal;

import java.io.IOException;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Converts a JFR recording of Ortho's events into Chrome/Perfetto trace-event JSON: an object
 * whose {@code traceEvents} array holds complete events ({@code ph:"X"}, {@code ts}/{@code dur}
 * in microseconds from the first event), instants ({@code ph:"i"}) and metadata
 * ({@code ph:"M"}: {@code process_name}, {@code thread_name}, {@code thread_sort_index}).
 *
 * <p>Tracks: process 1 ("host") has one track per Java thread that invoked, called imports,
 * waited, signalled, allocated or sent remote frames. Each device is a process with one track per executor worker
 * ({@code worker N}: the tiles it ran of each dispatch region), a {@code caller} track (processor id
 * {@code worker_count}: tiles a submitting or waiting host thread ran) and one per queue
 * ({@code queue N}: each operation from submit to retire). Operations of one queue that are in
 * flight together overlap; the later ones go on extra tracks {@code queue N (overlap K)} so that
 * every track's slices nest, as the trace viewers require.
 *
 * <p>Stateless; thread-safe.
 */
final class TraceJson {
    static final int HOST_PID = 1;
    static final int QUEUE_TID_BASE = 1000;
    private static final int LANES_PER_QUEUE = 100;

    private TraceJson() {
    }

    private record Slice(String ph, int pid, long tid, String name, String cat, long startNanos, long durNanos,
            Map<String, Object> args) {
    }

    /** Reads the recording at {@code jfr} and writes its trace JSON to {@code out}. */
    static void write(Path jfr, Writer out) throws IOException {
        List<Slice> slices = new ArrayList<>();
        Map<String, Integer> devicePids = new LinkedHashMap<>();
        Map<Long, String> hostThreads = new TreeMap<>();
        Map<Integer, Map<Long, String>> deviceTracks = new TreeMap<>();
        List<Slice> queueOps = new ArrayList<>();
        try (RecordingFile file = new RecordingFile(jfr)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                String type = e.getEventType().getName();
                long start = nanos(e.getStartTime());
                long dur = e.getDuration().toNanos();
                switch (type) {
                    case dev.ortho.vm.trace.InvocationEvent.NAME -> slices.add(host(e, hostThreads, "X",
                            e.getString("module") + "." + e.getString("function"), "vm.invoke", start, dur,
                            args("failed", e.getBoolean("failed"))));
                    case dev.ortho.vm.trace.ImportCallEvent.NAME -> slices.add(host(e, hostThreads, "X",
                            e.getString("module") + "." + e.getString("function"), "vm.import", start, dur,
                            args("caller", e.getString("caller"), "failed", e.getBoolean("failed"))));
                    case dev.ortho.vm.trace.WaitEvent.NAME -> slices.add(host(e, hostThreads, "X",
                            "wait " + e.getString("function"), "vm.wait", start, dur,
                            args("wait_type", e.getString("waitType"), "sources", e.getInt("sources"),
                                    "failed", e.getBoolean("failed"))));
                    case dev.ortho.hal.trace.SemaphoreWaitEvent.NAME -> slices.add(host(e, hostThreads, "X",
                            "wait " + e.getString("semaphore"), "hal.semaphore", start, dur,
                            args("value", e.getLong("value"), "failed", e.getBoolean("failed"))));
                    case dev.ortho.hal.trace.SemaphoreSignalEvent.NAME -> slices.add(host(e, hostThreads, "i",
                            "signal " + e.getString("semaphore"), "hal.semaphore", start, 0,
                            args("value", e.getLong("value"))));
                    case dev.ortho.hal.trace.AllocationEvent.NAME -> slices.add(host(e, hostThreads, "i",
                            "alloc " + e.getLong("size") + " B", "hal.allocation", start, 0,
                            args("allocator", e.getString("allocator"), "size", e.getLong("size"),
                                    "queue_ordered", e.getBoolean("queueOrdered"))));
                    case dev.ortho.hal.trace.RemoteFrameEvent.NAME -> slices.add(host(e, hostThreads,
                            e.getBoolean("oneWay") ? "i" : "X", "remote opcode " + e.getInt("opcode"), "hal.remote",
                            start, dur, args("peer", e.getString("peer"), "bytes", e.getLong("bytes"),
                                    "failed", e.getBoolean("failed"))));
                    case dev.ortho.hal.trace.DispatchTilesEvent.NAME -> {
                        int pid = devicePid(devicePids, e.getString("device"));
                        int worker = e.getInt("worker");
                        Map<Long, String> tracks = deviceTracks.computeIfAbsent(pid, k -> new TreeMap<>());
                        int workers = e.getInt("workers");
                        for (int w = 0; w < Math.max(worker + 1, workers); w++) {
                            // idle workers get a track too; id worker_count is a host thread's (caller or waiter)
                            tracks.putIfAbsent((long) w, w < workers ? "worker " + w : "caller");
                        }
                        slices.add(new Slice("X", pid, worker, e.getString("commands"), "hal.dispatch", start, dur,
                                args("queue", e.getInt("queue"), "region", e.getInt("region"),
                                        "tiles", e.getLong("tiles"))));
                    }
                    case dev.ortho.hal.trace.QueueOperationEvent.NAME -> queueOps.add(new Slice("X",
                            devicePid(devicePids, e.getString("device")), e.getInt("queue"), e.getString("kind"),
                            "hal.queue", start, dur, args("failed", e.getBoolean("failed"))));
                    default -> {
                        // another event in the recording: not part of the trace
                    }
                }
            }
        }
        placeQueueOps(queueOps, deviceTracks, slices);
        long origin = Long.MAX_VALUE;
        for (Slice s : slices) {
            origin = Math.min(origin, s.startNanos);
        }
        slices.sort(Comparator.comparingLong(Slice::startNanos));

        out.write("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"producer\":\"ortho --trace_file\"},\"traceEvents\":[");
        boolean[] first = {true};
        metadata(out, first, HOST_PID, 0, "process_name", "host");
        for (Map.Entry<Long, String> t : hostThreads.entrySet()) {
            metadata(out, first, HOST_PID, t.getKey(), "thread_name", t.getValue());
        }
        for (Map.Entry<String, Integer> d : devicePids.entrySet()) {
            metadata(out, first, d.getValue(), 0, "process_name", "device " + d.getKey());
            for (Map.Entry<Long, String> t : deviceTracks.getOrDefault(d.getValue(), Map.of()).entrySet()) {
                metadata(out, first, d.getValue(), t.getKey(), "thread_name", t.getValue());
                metadata(out, first, d.getValue(), t.getKey(), "thread_sort_index", t.getKey());
            }
        }
        for (Slice s : slices) {
            separator(out, first);
            out.write("{\"ph\":\"" + s.ph + "\",\"pid\":" + s.pid + ",\"tid\":" + s.tid + ",\"name\":");
            string(out, s.name);
            out.write(",\"cat\":\"" + s.cat + "\",\"ts\":" + micros(s.startNanos - origin));
            if (s.ph.equals("X")) {
                out.write(",\"dur\":" + micros(s.durNanos));
            } else {
                out.write(",\"s\":\"t\"");
            }
            out.write(",\"args\":{");
            boolean firstArg = true;
            for (Map.Entry<String, Object> a : s.args.entrySet()) {
                if (!firstArg) {
                    out.write(',');
                }
                firstArg = false;
                string(out, a.getKey());
                out.write(':');
                if (a.getValue() instanceof String text) {
                    string(out, text);
                } else {
                    out.write(String.valueOf(a.getValue()));
                }
            }
            out.write("}}");
        }
        out.write("]}\n");
    }

    /**
     * Puts each queue operation on its queue's first track that is free at its start (greedy
     * interval packing), so that overlapping operations never share a track.
     */
    private static void placeQueueOps(List<Slice> ops, Map<Integer, Map<Long, String>> tracks, List<Slice> out) {
        ops.sort(Comparator.comparingLong(Slice::startNanos));
        Map<Long, List<long[]>> laneEnds = new TreeMap<>(); // key: pid << 32 | queue
        for (Slice op : ops) {
            List<long[]> lanes = laneEnds.computeIfAbsent(((long) op.pid << 32) | op.tid, k -> new ArrayList<>());
            int lane = 0;
            while (lane < lanes.size() && lanes.get(lane)[0] > op.startNanos) {
                lane++;
            }
            if (lane == lanes.size()) {
                lanes.add(new long[1]);
            }
            lanes.get(lane)[0] = op.startNanos + op.durNanos;
            long track = Math.min(lane, LANES_PER_QUEUE - 1);
            long tid = QUEUE_TID_BASE + op.tid * LANES_PER_QUEUE + track;
            tracks.computeIfAbsent(op.pid, k -> new TreeMap<>()).put(tid,
                    track == 0 ? "queue " + op.tid : "queue " + op.tid + " (overlap " + track + ")");
            out.add(new Slice(op.ph, op.pid, tid, op.name, op.cat, op.startNanos, op.durNanos, op.args));
        }
    }

    private static Slice host(RecordedEvent e, Map<Long, String> threads, String ph, String name, String cat,
            long start, long dur, Map<String, Object> args) {
        RecordedThread thread = e.getThread();
        long tid = thread == null ? 0 : thread.getJavaThreadId();
        String threadName = thread == null || thread.getJavaName() == null ? "thread " + tid : thread.getJavaName();
        threads.putIfAbsent(tid, threadName);
        return new Slice(ph, HOST_PID, tid, name, cat, start, dur, args);
    }

    private static int devicePid(Map<String, Integer> pids, String device) {
        return pids.computeIfAbsent(device == null ? "?" : device, k -> HOST_PID + 1 + pids.size());
    }

    private static Map<String, Object> args(Object... keyValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put((String) keyValues[i], keyValues[i + 1] == null ? "" : keyValues[i + 1]);
        }
        return map;
    }

    private static long nanos(Instant t) {
        return t.getEpochSecond() * 1_000_000_000L + t.getNano();
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1000.0);
    }

    private static void metadata(Writer out, boolean[] first, int pid, long tid, String kind, Object value)
            throws IOException {
        separator(out, first);
        out.write("{\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + tid + ",\"name\":\"" + kind + "\",\"args\":{");
        if (value instanceof String text) {
            out.write("\"name\":");
            string(out, text);
        } else {
            out.write("\"sort_index\":" + value);
        }
        out.write("}}");
    }

    private static void separator(Writer out, boolean[] first) throws IOException {
        if (!first[0]) {
            out.write(",\n");
        }
        first[0] = false;
    }

    /** Writes {@code text} as a JSON string literal. */
    static void string(Writer out, String text) throws IOException {
        out.write('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.write("\\\"");
                case '\\' -> out.write("\\\\");
                case '\n' -> out.write("\\n");
                case '\r' -> out.write("\\r");
                case '\t' -> out.write("\\t");
                default -> {
                    if (c < 0x20) {
                        out.write(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.write(c);
                    }
                }
            }
        }
        out.write('"');
    }
}
