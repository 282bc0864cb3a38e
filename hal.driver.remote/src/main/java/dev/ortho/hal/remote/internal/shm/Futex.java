package dev.ortho.hal.remote.internal.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * Linux futexes through {@code syscall(2)} and the FFM linker: a thread blocks while a 32-bit
 * word (in any mapping, also a file shared between processes) holds an expected value, and
 * another thread or process wakes it. Available only on Linux x86-64 and AArch64 when native
 * access is enabled for this code ({@code --enable-native-access}); {@link #available()} says
 * so without calling a restricted method first (no warning). Thread-safe.
 */
final class Futex {
    private static final int FUTEX_WAIT = 0;
    private static final int FUTEX_WAKE = 1;
    private static final Futex INSTANCE = create();

    private final MethodHandle syscall;
    private final long number;

    private Futex(MethodHandle syscall, long number) {
        this.syscall = syscall;
        this.number = number;
    }

    /** The futex calls, or null where they are not available. */
    static Futex get() {
        return INSTANCE;
    }

    private static Futex create() {
        long number = switch (System.getProperty("os.arch", "").toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> 202;
            case "aarch64" -> 98;
            default -> -1;
        };
        if (number < 0 || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                || !Futex.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment address = linker.defaultLookup().find("syscall").orElse(null);
            if (address == null) {
                return null;
            }
            // long syscall(long number, ...): the futex arguments are variadic, passed as longs
            MethodHandle handle = linker.downcallHandle(address, FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1));
            return new Futex(handle, number);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /**
     * Blocks while the int at {@code word} is {@code expected}, until {@link #wake}, a signal or
     * about {@code nanos} (then returns; the caller re-checks what it waits for).
     *
     * @param timespec 16 bytes of scratch memory owned by the calling thread
     */
    void await(MemorySegment word, int expected, long nanos, MemorySegment timespec) {
        timespec.set(ValueLayout.JAVA_LONG, 0, nanos / 1_000_000_000L);
        timespec.set(ValueLayout.JAVA_LONG, 8, nanos % 1_000_000_000L);
        call(word, FUTEX_WAIT, expected, timespec);
    }

    /** Wakes up to {@code count} threads blocked on {@code word}, in any process that maps it. */
    void wake(MemorySegment word, int count) {
        call(word, FUTEX_WAKE, count, MemorySegment.NULL);
    }

    /** 16 bytes of scratch memory for {@link #await}'s timeout. */
    static MemorySegment timespec(Arena arena) {
        return arena.allocate(16, 8);
    }

    private void call(MemorySegment word, int op, long value, MemorySegment timeout) {
        try {
            long ignored = (long) syscall.invokeExact(number, word, (long) op, value, timeout, MemorySegment.NULL, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("futex call failed: " + t, t);
        }
    }
}
