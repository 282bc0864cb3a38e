package dev.ortho.bench.hal;

import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Cost of one uncontended timeline signal with a 4-axis frontier, by semaphore scope (seed 002
 * "Scopes": queue-local pays no synchronisation), against a bare {@link AtomicLong} store of the
 * value as the floor. Single thread, no waiters.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SemaphoreSignalBenchmark {

    @Param({"queue-local", "device", "atomic-long"})
    public String impl;

    private TimelineSemaphore semaphore;
    private AtomicLong atomic;
    private final Frontier frontier = new Frontier(8);
    private long next;

    @Setup(Level.Trial)
    public void frontier() {
        for (int queue = 0; queue < 4; queue++) {
            frontier.insertOrRaise(Axis.queue(1, 0, 0, queue), 1000 + queue);
        }
    }

    /** A fresh timeline per iteration keeps values far below {@code Semaphore.MAX_VALUE}. */
    @Setup(Level.Iteration)
    public void timeline() {
        next = 0;
        switch (impl) {
            case "queue-local" -> semaphore = new TimelineSemaphore("bench", 0, SemaphoreScope.QUEUE_LOCAL);
            case "device" -> semaphore = new TimelineSemaphore("bench", 0, SemaphoreScope.DEVICE);
            case "atomic-long" -> atomic = new AtomicLong();
            default -> throw new IllegalArgumentException(impl);
        }
    }

    @Benchmark
    public long signal() {
        long value = ++next;
        if (atomic != null) {
            atomic.set(value);
            return value;
        }
        semaphore.signal(value, frontier);
        return value;
    }
}
