package dev.ortho.bench.hal;

import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.Executable;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.trace.AllocationEvent;
import dev.ortho.hal.trace.DispatchTilesEvent;
import dev.ortho.hal.trace.QueueOperationEvent;
import dev.ortho.hal.trace.SemaphoreSignalEvent;
import dev.ortho.hal.trace.SemaphoreWaitEvent;
import dev.ortho.vm.trace.ImportCallEvent;
import dev.ortho.vm.trace.InvocationEvent;
import dev.ortho.vm.trace.WaitEvent;
import java.io.IOException;
import java.text.ParseException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What Ortho's JFR events cost, with no recording ({@code recording=off}), with a recording of
 * JFR's own {@code default} settings that names no Ortho event ({@code default}: only the
 * 20 ms-threshold invocation and wait events are on), and with a recording that enables them all
 * ({@code on}, as {@code --trace_file} does).
 *
 * <ul>
 *   <li>{@code hooks}: the hook calls one traced queue submission makes (an invocation, an
 *       import call, a queue operation start and finish, the dispatch-tiles check, a semaphore
 *       signal, an allocation) in one thread, ns per set. Peer in the same run:
 *       {@code noHooks}, the same method reading the same fields without calling the hooks. With
 *       the recording off the two must match, and {@code -prof gc} must show 0 B/op.
 *   <li>{@code dispatchChain}: a real submission, 100 barrier-separated 1-tile dispatches on
 *       {@code local-task} with 2 workers, µs per submission; off against on shows what recording
 *       costs end to end (the disabled hooks are in both).
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@Fork(jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class TraceEventsBenchmark {
    private static final int K = 100;
    private static final List<String> EVENTS = List.of(InvocationEvent.NAME, ImportCallEvent.NAME, WaitEvent.NAME,
            QueueOperationEvent.NAME, DispatchTilesEvent.NAME, SemaphoreWaitEvent.NAME, SemaphoreSignalEvent.NAME,
            AllocationEvent.NAME);

    @Param({"off", "default", "on"})
    public String recording;

    // Read through fields so that the JIT cannot fold the arguments.
    public String module = "module";
    public String function = "mlp";
    public String device = "local-task";
    public String kind = "EXECUTE";
    public long value = 7;

    private Recording jfr;
    private final AtomicLong counter = new AtomicLong();
    private Device localTask;
    private Executable executable;
    private CommandBuffer commandBuffer;
    private Semaphore semaphore;
    private long signalled;

    @Setup(Level.Trial)
    public void setUp() {
        if (recording.equals("on")) {
            jfr = new Recording();
            jfr.setToDisk(false);
            jfr.setMaxSize(64L << 20);
            for (String name : EVENTS) {
                jfr.enable(name).withoutStackTrace().withoutThreshold();
            }
            jfr.start();
        } else if (recording.equals("default")) {
            try { // JFR's own default settings, as a service's continuous recording: they name no Ortho event
                jfr = new Recording(Configuration.getConfiguration("default"));
            } catch (IOException | ParseException e) {
                throw new IllegalStateException("JFR's default settings", e);
            }
            jfr.setToDisk(false);
            jfr.setMaxSize(64L << 20);
            jfr.start();
        }
        localTask = LocalTaskBench.device(2, LocalTaskBench.library("bench", "step", (d, w) -> counter.incrementAndGet()));
        executable = LocalTaskBench.executable(localTask, "bench");
        commandBuffer = LocalTaskBench.barrierChain(localTask, executable, K);
        semaphore = localTask.createSemaphore(0);
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean hooks() {
        InvocationEvent invocation = InvocationEvent.start(module, function);
        ImportCallEvent call = ImportCallEvent.start(module, "hal", function);
        QueueOperationEvent op = QueueOperationEvent.start(device, 0, kind);
        boolean tiles = DispatchTilesEvent.enabled();
        SemaphoreSignalEvent.record(device, value);
        AllocationEvent.record(device, value, false);
        QueueOperationEvent.finish(op, false);
        ImportCallEvent.finish(call, false);
        InvocationEvent.finish(invocation, false);
        return tiles;
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public boolean noHooks() {
        return module.length() + function.length() + device.length() + kind.length() + value == 0;
    }

    @Benchmark
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long dispatchChain() {
        localTask.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(),
                SemaphoreList.of(semaphore, ++signalled), commandBuffer, BindingTable.empty(), 0);
        semaphore.await(signalled, Timeout.infinite());
        return counter.get();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        semaphore.release();
        commandBuffer.release();
        executable.release();
        localTask.close();
        if (jfr != null) {
            jfr.close();
        }
    }
}
