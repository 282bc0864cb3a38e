package dev.ortho.launcher.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;

/**
 * Times repeated calls the way Google Benchmark (which {@code iree-benchmark-module} uses) does:
 * the iteration count grows until one run lasts at least the minimum time, then that run's wall
 * and CPU time per iteration are reported in its console table; several repetitions add
 * {@code _mean}, {@code _median} and {@code _stddev} rows. CPU time is the calling thread's
 * (the call runs synchronously on it), where IREE reports process CPU time.
 *
 * <p>Plain object, not thread-safe; one measurement at a time.
 */
final class CallTimer {
    /** One measured run: iterations and total wall/CPU nanoseconds. */
    record Run(long iterations, long wallNanos, long cpuNanos) {
        double wallPerIteration() {
            return (double) wallNanos / iterations;
        }

        double cpuPerIteration() {
            return (double) cpuNanos / iterations;
        }
    }

    private static final long MAX_ITERATIONS = 1_000_000_000L;

    private final Runnable call;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    CallTimer(Runnable call) {
        this.call = call;
    }

    private long cpuNow() {
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private Run runOnce(long iterations) {
        long cpu = cpuNow();
        long start = System.nanoTime();
        for (long i = 0; i < iterations; i++) {
            call.run();
        }
        long wall = System.nanoTime() - start;
        return new Run(iterations, wall, cpuNow() - cpu);
    }

    /** Runs with growing iteration counts until a run lasts {@code minSeconds}; returns that run. */
    Run measure(double minSeconds) {
        long minNanos = (long) (minSeconds * 1e9);
        long iterations = 1;
        while (true) {
            Run run = runOnce(iterations);
            if (run.wallNanos() >= minNanos || iterations >= MAX_ITERATIONS) {
                return run;
            }
            // Predict the count that reaches the minimum time, with 40% headroom, growing at most 10x.
            double perIteration = Math.max(1.0, run.wallPerIteration());
            long predicted = (long) (minNanos * 1.4 / perIteration);
            iterations = Math.min(MAX_ITERATIONS, Math.max(iterations + 1, Math.min(iterations * 10, predicted)));
        }
    }

    /** Google Benchmark's console table for {@code runs} of benchmark {@code name}. */
    static String report(String name, List<Run> runs) {
        int width = Math.max("Benchmark".length(), name.length() + (runs.size() > 1 ? 7 : 0));
        String rule = "-".repeat(width + 47) + "\n";
        StringBuilder out = new StringBuilder(rule);
        out.append(String.format("%-" + width + "s %13s %15s %12s%n", "Benchmark", "Time", "CPU", "Iterations"));
        out.append(rule);
        for (Run run : runs) {
            row(out, width, name, run.wallPerIteration(), run.cpuPerIteration(), Long.toString(run.iterations()));
        }
        if (runs.size() > 1) {
            double[] wall = runs.stream().mapToDouble(Run::wallPerIteration).toArray();
            double[] cpu = runs.stream().mapToDouble(Run::cpuPerIteration).toArray();
            String count = Integer.toString(runs.size());
            row(out, width, name + "_mean", mean(wall), mean(cpu), count);
            row(out, width, name + "_median", median(wall), median(cpu), count);
            row(out, width, name + "_stddev", stddev(wall), stddev(cpu), count);
        }
        return out.toString();
    }

    private static void row(StringBuilder out, int width, String name, double wall, double cpu, String iterations) {
        out.append(String.format("%-" + width + "s %10s ns %12s ns %12s%n", name, number(wall), number(cpu), iterations));
    }

    /** Google Benchmark prints times below 10 with decimals, larger ones as integers. */
    private static String number(double value) {
        return value < 10 ? String.format("%.2f", value) : value < 100 ? String.format("%.1f", value)
                : Long.toString(Math.round(value));
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        java.util.Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    private static double stddev(double[] values) {
        double mean = mean(values);
        double sum = 0;
        for (double v : values) {
            sum += (v - mean) * (v - mean);
        }
        return Math.sqrt(sum / (values.length - 1));
    }
}
