package dev.ortho.launcher.internal;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Times repeated calls the way Google Benchmark (which {@code iree-benchmark-module} uses) does:
 * the iteration count grows until one run lasts at least the minimum time (or is exactly the
 * count asked for, {@code --benchmark_min_time=Nx}), then that run's wall and CPU time per
 * iteration are reported in its console table; several repetitions add {@code _mean},
 * {@code _median} and {@code _stddev} rows. Later repetitions reuse the first repetition's
 * iteration count, as Google Benchmark does. CPU time is the calling thread's (the call runs
 * synchronously on it), where IREE reports process CPU time.
 *
 * <p>Warm-up ({@code --benchmark_min_warmup_time}) is Google Benchmark's too: before the first
 * repetition the same growing runs are made until one lasts at least the warm-up time, and their
 * times are discarded. On the JVM the first calls run in the bytecode interpreter while the JIT
 * compiles, so a cold first call can outlast the whole minimum time and would otherwise be what
 * gets reported.
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

    /**
     * How long a measured run must be: at least {@code seconds}, or exactly {@code iterations}
     * iterations when that is positive (Google Benchmark's {@code <float>s} and {@code <integer>x}).
     */
    record MinTime(double seconds, long iterations) {
        static MinTime ofSeconds(double seconds) {
            return new MinTime(seconds, 0);
        }

        static MinTime ofIterations(long iterations) {
            return new MinTime(0, iterations);
        }
    }

    private static final long MAX_ITERATIONS = 1_000_000_000L;

    private final Runnable call;
    private final long batchSize;
    private final LongSupplier clock;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private long firstRepetitionIterations;

    CallTimer(Runnable call) {
        this(call, 1);
    }

    /**
     * Each call of {@code call} counts as {@code batchSize} iterations, as Google Benchmark's
     * {@code KeepRunningBatch} (IREE's {@code --batch_size}): the reported times are per item of
     * a batch.
     */
    CallTimer(Runnable call, long batchSize) {
        this(call, batchSize, System::nanoTime);
    }

    /** As above, reading wall time (nanoseconds) from {@code clock}; tests pass a fake one. */
    CallTimer(Runnable call, long batchSize, LongSupplier clock) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size " + batchSize + " < 1");
        }
        this.call = call;
        this.batchSize = batchSize;
        this.clock = clock;
    }

    private long cpuNow() {
        return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : System.nanoTime();
    }

    private Run runOnce(long iterations) {
        long cpu = cpuNow();
        long start = clock.getAsLong();
        for (long i = 0; i < iterations; i += batchSize) {
            call.run();
        }
        long wall = clock.getAsLong() - start;
        return new Run(iterations, wall, cpuNow() - cpu);
    }

    /**
     * Google Benchmark's warm-up: growing runs, as {@link #measure}, until one lasts at least
     * {@code seconds}; nothing is kept. Returns the calls made (0 when {@code seconds} is 0).
     */
    long warmUp(double seconds) {
        if (seconds <= 0) {
            return 0;
        }
        return grow(MinTime.ofSeconds(seconds)).iterations();
    }

    /**
     * One repetition: the first grows the iteration count until a run lasts {@code minTime}
     * (or runs exactly its iteration count) and returns that run; later ones run the same count
     * again, as Google Benchmark does.
     */
    Run measure(MinTime minTime) {
        if (firstRepetitionIterations > 0) {
            return runOnce(firstRepetitionIterations);
        }
        Run run = grow(minTime);
        firstRepetitionIterations = run.iterations();
        return run;
    }

    private Run grow(MinTime minTime) {
        if (minTime.iterations() > 0) {
            return runOnce(roundToBatch(Math.min(MAX_ITERATIONS, minTime.iterations())));
        }
        long minNanos = (long) (minTime.seconds() * 1e9);
        long iterations = batchSize;
        while (true) {
            Run run = runOnce(iterations);
            if (run.wallNanos() >= minNanos || iterations >= MAX_ITERATIONS) {
                return run;
            }
            // Predict the count that reaches the minimum time, with 40% headroom, growing at most 10x.
            double perIteration = Math.max(1.0, run.wallPerIteration());
            long predicted = (long) (minNanos * 1.4 / perIteration);
            iterations = Math.min(MAX_ITERATIONS, Math.max(iterations + 1, Math.min(iterations * 10, predicted)));
            iterations = roundToBatch(iterations);
        }
    }

    private long roundToBatch(long iterations) {
        return (iterations + batchSize - 1) / batchSize * batchSize;
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
