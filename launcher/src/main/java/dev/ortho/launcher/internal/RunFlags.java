package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * The numeric flags of {@code run-module} and {@code benchmark-module}, with IREE's and Google
 * Benchmark's names and syntax: result tolerances, element limits and counts, benchmark minimum
 * and warm-up times. Each bad value is INVALID_ARGUMENT naming the flag and the text.
 *
 * <p>Not instantiable; stateless.
 */
final class RunFlags {
    private RunFlags() {
    }

    /** {@code --equality_mode} and the {@code --expected_*_threshold} / {@code --expected_rtol} flags. */
    static FunctionIo.Tolerance tolerance(ToolFlags flags) {
        String mode = flags.get("equality_mode", "approximate");
        if (!mode.equals("approximate") && !mode.equals("exact")) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "--equality_mode must be one of [`approximate`, `exact`], got '" + mode + "'");
        }
        FunctionIo.Tolerance d = FunctionIo.Tolerance.DEFAULT;
        return new FunctionIo.Tolerance(mode.equals("exact"),
                threshold(flags, "expected_f16_threshold", d.f16()),
                threshold(flags, "expected_f32_threshold", d.f32()),
                threshold(flags, "expected_f64_threshold", d.f64()),
                threshold(flags, "expected_bf16_threshold", d.bf16()),
                threshold(flags, "expected_rtol", d.rtol()));
    }

    private static double threshold(ToolFlags flags, String name, double defaultValue) {
        String text = flags.get(name, null);
        if (text == null) {
            return defaultValue;
        }
        try {
            double value = Double.parseDouble(text);
            if (value >= 0 && Double.isFinite(value)) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "--" + name
                + " must be a finite non-negative number, got '" + text + "'");
    }

    /** {@code text} as a positive {@code int}; INVALID_ARGUMENT naming {@code flag} and the text otherwise. */
    static int positiveInt(String text, String flag) {
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, flag + " must be a positive integer, got '" + text + "'");
    }

    /**
     * Ortho's default {@code --benchmark_min_warmup_time} (Google Benchmark's and so IREE's is 0):
     * the first calls of a function run in the JVM's interpreter while the JIT compiles the VM
     * and the kernels, so unwarmed the first run can be one cold call that outlasts the whole
     * minimum time. {@code --benchmark_min_warmup_time=0} measures from the first call.
     */
    static final String DEFAULT_WARMUP = "2s";

    /** Google Benchmark's {@code --benchmark_min_time}: {@code <float>s}, {@code <float>} or {@code <integer>x}. */
    static CallTimer.MinTime minTime(String text) {
        if (text.endsWith("x")) {
            try {
                long iterations = Long.parseLong(text.substring(0, text.length() - 1));
                if (iterations > 0 && iterations <= 1_000_000_000L) {
                    return CallTimer.MinTime.ofIterations(iterations);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        } else {
            String number = text.endsWith("s") ? text.substring(0, text.length() - 1) : text;
            try {
                double seconds = Double.parseDouble(number);
                if (seconds > 0 && seconds <= 3600) {
                    return CallTimer.MinTime.ofSeconds(seconds);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "--benchmark_min_time must be a duration in seconds"
                + " such as 0.5s (at most 3600s) or an iteration count such as 10x (at most 1000000000x), got '"
                + text + "'");
    }

    /** {@code --benchmark_min_warmup_time}: seconds, with or without a trailing {@code s}; 0 turns warm-up off. */
    static double warmUpTime(String text) {
        String number = text.endsWith("s") ? text.substring(0, text.length() - 1) : text;
        try {
            double seconds = Double.parseDouble(number);
            if (seconds >= 0 && seconds <= 3600) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                "--benchmark_min_warmup_time must be a duration in seconds such as 2s or 0 (at most 3600s), got '"
                        + text + "'");
    }
}
