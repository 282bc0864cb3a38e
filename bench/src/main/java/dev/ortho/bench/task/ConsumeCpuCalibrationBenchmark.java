package dev.ortho.bench.task;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Calibrates the "~1 µs tile" of {@link DispatchChainBenchmark}: ns per
 * {@code Blackhole.consumeCPU(tokens)} on this machine, single-threaded.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ConsumeCpuCalibrationBenchmark {
    @Param({"250", "500", "1000"})
    public long tokens;

    @Benchmark
    public void consume() {
        Blackhole.consumeCPU(tokens);
    }
}
