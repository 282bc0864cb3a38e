package dev.ortho.hal.remote.internal.transport;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The remote tests' 60 s hang guard: waits for a condition and, should the guard expire, fails
 * with what was awaited, the state the test names and the stacks of every thread (so a guard that
 * expires once in a loaded CI run explains itself). Not a timing assertion: 60 s only ends a hang.
 */
public final class HangGuard {
    /** How long a guard waits before it declares a hang. */
    public static final long GUARD_NANOS = TimeUnit.SECONDS.toNanos(60);

    private HangGuard() {
    }

    /** Waits (polling each millisecond) until {@code done} answers true; fails after the guard, see {@link #expired}. */
    public static void await(BooleanSupplier done, String what, Supplier<String> state) {
        long guard = System.nanoTime() + GUARD_NANOS;
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - guard >= 0) {
                expired(what, state);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** {@link #await(BooleanSupplier, String, Supplier)} without test state. */
    public static void await(BooleanSupplier done, String what) {
        await(done, what, () -> "");
    }

    /** Fails with "{@code what} (hang guard)", {@code state}'s answer and a dump of every thread's stack. */
    public static void expired(String what, Supplier<String> state) {
        String s;
        try {
            s = state.get();
        } catch (RuntimeException e) {
            s = "state unavailable: " + e;
        }
        String message = what + " (hang guard)\n" + s + "\n" + threadDump();
        System.err.println(message); // surefire's report keeps it even if an assertion message is cut
        fail(message);
    }

    /** Every live thread's stack, locks and monitors included, without the 8-frame cut of {@link ThreadInfo#toString}. */
    public static String threadDump() {
        StringBuilder out = new StringBuilder("thread dump:\n");
        for (ThreadInfo info : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            out.append('"').append(info.getThreadName()).append("\" #").append(info.getThreadId())
                    .append(' ').append(info.getThreadState());
            if (info.getLockName() != null) {
                out.append(" on ").append(info.getLockName());
            }
            if (info.getLockOwnerName() != null) {
                out.append(" owned by \"").append(info.getLockOwnerName()).append('"');
            }
            out.append('\n');
            for (StackTraceElement frame : info.getStackTrace()) {
                out.append("\tat ").append(frame).append('\n');
            }
        }
        return out.toString();
    }
}
