package dev.ortho.bench;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Cost of raising an error: Ortho's {@link StatusException} (code + message + annotation list)
 * against a plain {@link RuntimeException} with the same message, created and thrown through one
 * frame the way a failing HAL call does. Both fill in their stack trace, so the ratio shows what
 * the status code and the annotation list add on top of what every Java exception costs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class StatusExceptionBenchmark {

    @Param({"ortho", "plain"})
    public String impl;

    private int offset = 4160;

    @Benchmark
    public Object createAndCatch() {
        try {
            failingCall(offset);
            return null;
        } catch (RuntimeException e) {
            return e;
        }
    }

    @Benchmark
    public Object createCatchAndAnnotate() {
        try {
            failingCall(offset);
            return null;
        } catch (StatusException e) {
            return e.annotate("while recording command buffer 3");
        } catch (RuntimeException e) {
            return new RuntimeException("while recording command buffer 3", e);
        }
    }

    private void failingCall(int end) {
        String message = "binding 2 range [64, " + end + ") exceeds buffer length 4096";
        if ("ortho".equals(impl)) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, message);
        }
        throw new RuntimeException(message);
    }
}
