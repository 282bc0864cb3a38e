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
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code QueueLatencyBenchmark.submitToFirstWorkgroup} as a plain loop: {@code n} submissions of
 * a command buffer with one 1-tile dispatch on a 2-worker {@code local-task} device; the host
 * busy-spins on a flag the kernel raises, then awaits the signal before the next submission,
 * optionally after {@code gapMicros} of its own busy work (a host that computes between
 * submissions). Prints submit → first workgroup percentiles per thread that ran the tile, and
 * the CPU time the device's worker threads used per second of the loop and per second of an
 * idle executor afterwards ({@link ThreadMXBean}).
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.hal.SubmitSpinProbe 100000 [params] [gapMicros]
 * </pre>
 */
public final class SubmitSpinProbe {
    private static volatile boolean started;
    private static volatile long tileNanos;
    private static volatile Thread tileThread;

    private SubmitSpinProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        String params = args.length > 1 ? args[1] : "";
        long gapNanos = args.length > 2 ? Long.parseLong(args[2]) * 1000 : 0;
        Device device = LocalTaskBench.device(2, params, LocalTaskBench.library("bench", "probe", (d, w) -> {
            tileThread = Thread.currentThread();
            tileNanos = System.nanoTime();
            started = true;
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
        String[] by = new String[n];
        long workerCpuStart = 0;
        long loopStart = 0;
        for (int i = -warmup; i < n; i++) {
            if (i == 0) {
                workerCpuStart = workerCpuNanos();
                loopStart = System.nanoTime();
            }
            started = false;
            long start = System.nanoTime();
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(semaphore, ++value),
                    cb, BindingTable.empty(), 0);
            while (!started) {
                Thread.onSpinWait();
            }
            if (i >= 0) {
                first[i] = tileNanos - start;
                by[i] = tileThread.getName();
            }
            semaphore.await(value, Timeout.infinite());
            if (gapNanos > 0) {
                long until = System.nanoTime() + gapNanos;
                while (System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
            }
        }
        double loopSeconds = (System.nanoTime() - loopStart) / 1e9;
        double loopCpu = (workerCpuNanos() - workerCpuStart) / 1e9;
        Map<String, Integer> counts = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            counts.merge(by[i], 1, Integer::sum);
        }
        Map<String, long[]> perThread = new TreeMap<>();
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            long[] v = new long[e.getValue()];
            int k = 0;
            for (int i = 0; i < n; i++) {
                if (by[i].equals(e.getKey())) {
                    v[k++] = first[i];
                }
            }
            perThread.put(e.getKey(), v);
        }
        long[] all = first.clone();
        Arrays.sort(all);
        System.out.printf(Locale.ROOT, "params='%s' n=%d gap=%d us  submit->first workgroup p50 %.2f p90 %.2f p99 %.2f us%n",
                params, n, gapNanos / 1000, all[n / 2] / 1e3, all[n * 9 / 10] / 1e3, all[n * 99 / 100] / 1e3);
        for (Map.Entry<String, long[]> e : perThread.entrySet()) {
            long[] v = e.getValue();
            Arrays.sort(v);
            System.out.printf(Locale.ROOT, "  %-16s %6d tiles  p50 %.2f p90 %.2f us%n", e.getKey(), v.length,
                    v[v.length / 2] / 1e3, v[v.length * 9 / 10] / 1e3);
        }
        System.out.printf(Locale.ROOT, "worker CPU during the loop: %.3f s per s (%.2f s loop)%n", loopCpu / loopSeconds,
                loopSeconds);
        long idleStart = workerCpuNanos();
        long idleWall = System.nanoTime();
        Thread.sleep(2000);
        System.out.printf(Locale.ROOT, "worker CPU while idle: %.6f s per s%n",
                (workerCpuNanos() - idleStart) / ((System.nanoTime() - idleWall) / 1e9) / 1e9);
        semaphore.release();
        cb.release();
        executable.release();
        device.close();
    }

    /** CPU time of every live thread named {@code ortho-worker-*}. */
    static long workerCpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("ortho-worker-")) {
                long cpu = mx.getThreadCpuTime(t.threadId());
                if (cpu > 0) {
                    sum += cpu;
                }
            }
        }
        return sum;
    }
}
