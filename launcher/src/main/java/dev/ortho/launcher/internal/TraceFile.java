package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.trace.AllocationEvent;
import dev.ortho.hal.trace.DispatchTilesEvent;
import dev.ortho.hal.trace.QueueOperationEvent;
import dev.ortho.hal.trace.RemoteFrameEvent;
import dev.ortho.hal.trace.SemaphoreSignalEvent;
import dev.ortho.hal.trace.SemaphoreWaitEvent;
import dev.ortho.vm.trace.ImportCallEvent;
import dev.ortho.vm.trace.InvocationEvent;
import dev.ortho.vm.trace.WaitEvent;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import jdk.jfr.Recording;

/**
 * {@code --trace_file=trace.json}: records Ortho's JFR events (and nothing else) in-process for
 * the run, then converts the recording to Chrome/Perfetto trace-event JSON ({@link TraceJson}).
 *
 * <p>{@link #start} with an empty path returns a closed no-op; otherwise {@link #close} stops the
 * recording and writes the file. Confined to the tool's thread.
 */
final class TraceFile implements AutoCloseable {
    /** The JFR event names the trace records. */
    static final List<String> EVENTS = List.of(InvocationEvent.NAME, ImportCallEvent.NAME, WaitEvent.NAME,
            QueueOperationEvent.NAME, DispatchTilesEvent.NAME, SemaphoreWaitEvent.NAME,
            SemaphoreSignalEvent.NAME, AllocationEvent.NAME, RemoteFrameEvent.NAME);

    private final Path output;
    private final Recording recording;

    private TraceFile(Path output, Recording recording) {
        this.output = output;
        this.recording = recording;
    }

    /**
     * Starts recording for {@code path} (the flag's value; empty: no trace).
     *
     * @throws StatusException INVALID_ARGUMENT if the file's directory does not exist
     */
    static TraceFile start(String path) {
        if (path == null || path.isEmpty()) {
            return new TraceFile(null, null);
        }
        Path output = Path.of(path).toAbsolutePath();
        if (!Files.isDirectory(output.getParent())) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "--trace_file=" + path
                    + ": directory " + output.getParent() + " does not exist");
        }
        Recording recording = new Recording();
        recording.setName("ortho --trace_file");
        recording.setToDisk(true);
        for (String name : EVENTS) {
            recording.enable(name).withoutStackTrace().withoutThreshold();
        }
        recording.start();
        return new TraceFile(output, recording);
    }

    /**
     * Stops the recording and writes the JSON trace.
     *
     * @throws StatusException UNAVAILABLE if the recording or the file cannot be written
     */
    @Override
    public void close() {
        if (recording == null) {
            return;
        }
        Path jfr = null;
        try (recording) {
            recording.stop();
            jfr = Files.createTempFile("ortho-trace", ".jfr");
            recording.dump(jfr);
            try (Writer out = Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
                TraceJson.write(jfr, out);
            }
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "--trace_file=" + output + ": cannot write the trace: "
                    + e.getMessage());
        } finally {
            if (jfr != null) {
                try {
                    Files.deleteIfExists(jfr);
                } catch (IOException ignored) {
                    // a temporary file left behind; the trace itself was written or reported
                }
            }
        }
    }
}
