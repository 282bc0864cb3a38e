package dev.ortho.hal.remote.internal.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * The CPUs a thread may run on, through Linux's {@code sched_setaffinity(2)} and
 * {@code sched_getaffinity(2)}, and the CPU it runs on, through the C library's
 * {@code sched_getcpu(3)} (FFM, as {@link Futex}): a worker's pump kept on CPUs of its own
 * never shares one with the client's waiting caller, which is what decides the shared-memory
 * round trip's tail on a small machine (bench/README.md, "Shared memory: the tail is where the
 * scheduler puts the two spinners"), and a pump that finds itself on the caller's CPU moves off
 * it ({@link #moveOff}). Available on Linux x86-64 and AArch64 with native access enabled;
 * elsewhere nothing is pinned or moved and every CPU is unknown. Masks name CPUs 0 to 63
 * ({@link #moveOff} any CPU the kernel knows). Thread-safe.
 */
final class Affinity {
    /** The highest CPU a mask names. */
    static final int MAX_CPU = 63;
    private static final MethodHandle SYSCALL = syscall();
    /** {@code int sched_getcpu(void)}: with glibc 2.35 or later a read of the thread's rseq area, no system call. */
    private static final MethodHandle GETCPU = SYSCALL == null ? null : getcpu();
    /** Bytes of a CPU mask as the kernel reads and writes it here: 1 024 CPUs. */
    private static final long MASK_BYTES = 128;
    private static final long SET;
    private static final long GET;

    static {
        boolean arm = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT).equals("aarch64");
        SET = arm ? 122 : 203;
        GET = arm ? 123 : 204;
    }

    private Affinity() {
    }

    private static MethodHandle syscall() {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))
                || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                || !Affinity.class.getModule().isNativeAccessEnabled()) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            MemorySegment address = linker.defaultLookup().find("syscall").orElse(null);
            if (address == null) {
                return null;
            }
            // long syscall(long number, ...): pid 0 (the calling thread), the mask's size, the mask
            return linker.downcallHandle(address, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS), Linker.Option.firstVariadicArg(1));
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    private static MethodHandle getcpu() {
        try {
            Linker linker = Linker.nativeLinker();
            // critical: it neither blocks nor calls back, so the downcall skips the thread-state transitions
            return linker.defaultLookup().find("sched_getcpu").map(address -> linker.downcallHandle(address,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT), Linker.Option.critical(false))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** The CPU the calling thread runs on now (it may move at any time after), or -1 if this JVM cannot tell. */
    static int currentCpu() {
        if (GETCPU == null) {
            return -1;
        }
        try {
            return (int) GETCPU.invokeExact();
        } catch (Throwable t) {
            return -1;
        }
    }

    /**
     * Moves the calling thread off {@code cpu} without pinning it: restricts it to the other CPUs
     * it may use (the kernel migrates it before the call returns) and then gives it back all the
     * CPUs it had, so the scheduler stays free to place it later. False, and nothing changed, if
     * this JVM cannot pin threads, {@code cpu} is outside what the kernel knows, or it is the only
     * CPU the thread may use.
     */
    static boolean moveOff(int cpu) {
        if (SYSCALL == null || cpu < 0 || cpu >= MASK_BYTES * 8) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment allowed = arena.allocate(MASK_BYTES, 8);
            long bytes = (long) SYSCALL.invokeExact(GET, 0L, MASK_BYTES, allowed);
            long word = (cpu >>> 6) * 8L;
            if (bytes <= word) {
                return false;
            }
            MemorySegment others = arena.allocate(MASK_BYTES, 8).copyFrom(allowed);
            others.set(ValueLayout.JAVA_LONG, word, others.get(ValueLayout.JAVA_LONG, word) & ~(1L << (cpu & 63)));
            boolean any = false;
            for (long at = 0; at < bytes && !any; at += 8) {
                any = others.get(ValueLayout.JAVA_LONG, at) != 0;
            }
            if (!any || (long) SYSCALL.invokeExact(SET, 0L, bytes, others) != 0) {
                return false;
            }
            long restored = (long) SYSCALL.invokeExact(SET, 0L, bytes, allowed); // all its CPUs again
            return restored == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** Whether this JVM can pin threads. */
    static boolean available() {
        return SYSCALL != null;
    }

    /**
     * Restricts the calling thread (and the threads it starts from now on) to the CPUs whose bits
     * {@code mask} sets; false if this JVM cannot pin threads or the system refused (no such CPU).
     */
    static boolean restrictCurrentThread(long mask) {
        if (SYSCALL == null || mask == 0) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(ValueLayout.JAVA_LONG);
            set.set(ValueLayout.JAVA_LONG, 0, mask);
            return (long) SYSCALL.invokeExact(SET, 0L, 8L, set) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** The calling thread's CPUs 0 to 63 as a mask, or 0 if this JVM cannot tell. */
    static long currentThreadMask() {
        if (SYSCALL == null) {
            return 0;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment set = arena.allocate(128, 8); // the kernel's mask may be wider than 64 CPUs
            long n = (long) SYSCALL.invokeExact(GET, 0L, 128L, set);
            return n > 0 ? set.get(ValueLayout.JAVA_LONG, 0) : 0;
        } catch (Throwable t) {
            return 0;
        }
    }

    /**
     * The mask of a CPU list such as {@code 1}, {@code 0,2} or {@code 2-3,6}.
     *
     * @throws IllegalArgumentException naming the list if it is empty, malformed, or names a CPU
     *     outside [0, {@value #MAX_CPU}]
     */
    static long mask(String list) {
        long mask = 0;
        for (String part : list.split(",", -1)) {
            int dash = part.indexOf('-');
            int from;
            int to;
            try {
                from = Integer.parseInt(dash < 0 ? part.strip() : part.substring(0, dash).strip());
                to = dash < 0 ? from : Integer.parseInt(part.substring(dash + 1).strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("CPU list '" + list + "' is not a list of CPUs such as 1 or 2-3,6");
            }
            if (from < 0 || to > MAX_CPU || from > to) {
                throw new IllegalArgumentException("CPU list '" + list + "' names CPUs outside [0, " + MAX_CPU + "]"
                        + (from > to ? " or a range running backwards" : ""));
            }
            for (int cpu = from; cpu <= to; cpu++) {
                mask |= 1L << cpu;
            }
        }
        return mask;
    }
}
