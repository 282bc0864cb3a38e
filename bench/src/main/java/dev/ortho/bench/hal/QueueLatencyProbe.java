package dev.ortho.bench.hal;

import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where the {@code local-task} queue latency goes, outside JMH so a profiler (JFR with
 * {@code jdk.ThreadPark#threshold=0ms}) sees one plain loop: {@code n} submissions of a command
 * buffer with one 1-tile dispatch, each awaited before the next, on a 2-worker device. Prints the
 * median and p90 of submit → first workgroup (the kernel stores {@code System.nanoTime()}) and of
 * the round trip (submit → the host's await returned), and which thread ran the tile.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.hal.QueueLatencyProbe 20000
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.hal.QueueLatencyProbe 20000 '?task_caller_runs=0'
 * java -XX:StartFlightRecording=filename=q.jfr,settings=profile,+jdk.ThreadPark#threshold=0ms \
 *     -cp bench/target/benchmarks.jar dev.ortho.bench.hal.QueueLatencyProbe 20000
 * jfr print --events jdk.ThreadPark q.jfr   # parks per thread ÷ n = park/unpark hops per submission
 * </pre>
 */
public final class QueueLatencyProbe {
    private static volatile long tileNanos;
    private static volatile Thread tileThread;

    private QueueLatencyProbe() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        String params = args.length > 1 ? args[1] : "";
        Device device = LocalTaskBench.device(2, params, LocalTaskBench.library("bench", "probe", (d, w) -> {
            tileThread = Thread.currentThread();
            tileNanos = System.nanoTime();
        }));
        Executable executable = LocalTaskBench.executable(device, "bench");
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
        cb.begin();
        cb.dispatch(executable, 0, DispatchConfig.ofCount(1, 1, 1), MemorySegment.NULL, new BufferRef[0], 0);
        cb.end();
        Semaphore semaphore = device.createSemaphore(0);
        long value = 0;
        int warmup = n / 4;
        long[] first = new long[n];
        long[] round = new long[n];
        long[] call = new long[n];
        Map<String, Integer> threads = new TreeMap<>();
        for (int i = -warmup; i < n; i++) {
            tileNanos = 0;
            long start = System.nanoTime();
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value),
                    cb, BindingTable.empty(), 0);
            long returned = System.nanoTime();
            semaphore.await(value, Timeout.infinite());
            long end = System.nanoTime();
            if (i >= 0) {
                first[i] = tileNanos - start;
                round[i] = end - start;
                call[i] = returned - start;
                threads.merge(tileThread.getName(), 1, Integer::sum);
            }
        }
        Arrays.sort(first);
        Arrays.sort(round);
        Arrays.sort(call);
        System.out.printf(Locale.ROOT, "params='%s' n=%d  submit->first workgroup p50 %.2f us p90 %.2f us  round trip p50 %.2f us"
                + " p90 %.2f us%n", params, n, first[n / 2] / 1e3, first[n * 9 / 10] / 1e3, round[n / 2] / 1e3,
                round[n * 9 / 10] / 1e3);
        System.out.printf(Locale.ROOT, "queueExecute returned after p50 %.2f us p90 %.2f us%n", call[n / 2] / 1e3,
                call[n * 9 / 10] / 1e3);
        System.out.println("tile ran on: " + threads);
        semaphore.release();
        cb.release();
        executable.release();
        device.close();
    }
}
