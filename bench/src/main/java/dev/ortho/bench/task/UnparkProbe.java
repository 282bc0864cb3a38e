package dev.ortho.bench.task;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * Where a parked worker's wake-up goes, without any executor: {@code n} times, a thread parks,
 * the main thread waits until it is {@code WAITING} plus {@code idleMicros}, stamps the time and
 * its CPU ({@code sched_getcpu}), {@code LockSupport.unpark}s it and busy-spins on a flag, as
 * {@code QueueLatencyBenchmark}'s submitter does; the woken thread stamps the time and its CPU
 * and raises the flag. Prints p50 / p90 of unpark → running, split by whether the two threads
 * were on the same CPU, and how often each CPU entered its idle states per wake-up
 * ({@code /sys/devices/system/cpu/cpu*}{@code /cpuidle/state*}{@code /usage}). Not a JMH benchmark.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar dev.ortho.bench.task.UnparkProbe 20000 20
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar dev.ortho.bench.task.UnparkProbe 20000 20 pin
 * </pre>
 *
 * With {@code pin} the main thread is pinned to CPU 0 and the sleeper to CPU 1
 * ({@code sched_setaffinity}), so every wake-up crosses CPUs.
 */
public final class UnparkProbe {
    private static volatile boolean ran;
    private static volatile long ranAt;
    private static volatile int ranCpu;

    private UnparkProbe() {
    }

    public static void main(String[] args) throws Throwable {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        long idleNanos = (args.length > 1 ? Long.parseLong(args[1]) : 20) * 1000;
        boolean pin = args.length > 2 && args[2].equals("pin");
        MethodHandle setaffinity = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("sched_setaffinity").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        MethodHandle getcpu = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("sched_getcpu").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT));
        if (pin) {
            pinTo(setaffinity, 0);
        }
        Thread sleeper = Thread.ofPlatform().daemon().name("probe-sleeper").start(() -> {
            if (pin) {
                pinTo(setaffinity, 1);
            }
            while (true) {
                LockSupport.park();
                if (ran) {
                    continue; // spurious or stale
                }
                long now = System.nanoTime();
                try {
                    ranCpu = (int) getcpu.invokeExact();
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
                ranAt = now;
                ran = true;
            }
        });
        int warm = n / 5;
        long[] same = new long[n];
        long[] other = new long[n];
        int sameCount = 0;
        int otherCount = 0;
        long[] idleBefore = idleUsage();
        for (int i = -warm; i < n; i++) {
            ran = true;
            while (sleeper.getState() != Thread.State.WAITING) {
                Thread.onSpinWait();
            }
            long until = System.nanoTime() + idleNanos;
            while (System.nanoTime() - until < 0) {
                Thread.onSpinWait(); // the submitter is busy until it submits
            }
            if (i == 0) {
                idleBefore = idleUsage();
            }
            ran = false;
            int cpu = (int) getcpu.invokeExact();
            long t0 = System.nanoTime();
            LockSupport.unpark(sleeper);
            while (!ran) {
                Thread.onSpinWait();
            }
            if (i >= 0) {
                long d = ranAt - t0;
                if (ranCpu == cpu) {
                    same[sameCount++] = d;
                } else {
                    other[otherCount++] = d;
                }
            }
        }
        long[] idleAfter = idleUsage();
        System.out.printf(Locale.ROOT, "n=%d idle before unpark %d us: unpark -> running%n", n, idleNanos / 1000);
        print("same CPU", same, sameCount);
        print("other CPU", other, otherCount);
        StringBuilder idle = new StringBuilder("idle-state entries per wake-up:");
        for (int k = 0; k < idleAfter.length; k++) {
            idle.append(String.format(Locale.ROOT, " %s=%.2f", IDLE_NAMES[k], (idleAfter[k] - idleBefore[k]) / (double) n));
        }
        System.out.println(idle);
    }

    /** Pins the calling thread to {@code cpu} (tid 0 = the calling thread). */
    private static void pinTo(MethodHandle setaffinity, int cpu) {
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            java.lang.foreign.MemorySegment mask = arena.allocate(128);
            mask.set(ValueLayout.JAVA_LONG, 0, 1L << cpu);
            int rc = (int) setaffinity.invokeExact(0, 128L, mask);
            if (rc != 0) {
                throw new IllegalStateException("sched_setaffinity(" + cpu + ") failed");
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void print(String label, long[] values, int count) {
        if (count == 0) {
            System.out.printf(Locale.ROOT, "  %-9s  none%n", label);
            return;
        }
        long[] v = Arrays.copyOf(values, count);
        Arrays.sort(v);
        System.out.printf(Locale.ROOT, "  %-9s %6d wakes  p10 %7.2f  p50 %7.2f  p90 %7.2f  p99 %8.2f us%n", label, count,
                v[count / 10] / 1e3, v[count / 2] / 1e3, v[count * 9 / 10] / 1e3, v[count * 99 / 100] / 1e3);
    }

    private static String[] IDLE_NAMES = new String[0];

    /** Usage counters of every CPU's idle states, in a fixed order (names in {@link #IDLE_NAMES}). */
    private static long[] idleUsage() {
        try {
            java.util.List<Path> states = new java.util.ArrayList<>();
            try (var cpus = Files.newDirectoryStream(Path.of("/sys/devices/system/cpu"), "cpu[0-9]*")) {
                for (Path cpu : cpus) {
                    Path dir = cpu.resolve("cpuidle");
                    if (Files.isDirectory(dir)) {
                        try (var s = Files.newDirectoryStream(dir, "state*")) {
                            s.forEach(states::add);
                        }
                    }
                }
            }
            states.sort(null);
            long[] usage = new long[states.size()];
            String[] names = new String[states.size()];
            for (int k = 0; k < usage.length; k++) {
                usage[k] = Long.parseLong(Files.readString(states.get(k).resolve("usage")).strip());
                names[k] = states.get(k).getParent().getParent().getFileName() + "/"
                        + Files.readString(states.get(k).resolve("name")).strip().replace(' ', '_');
            }
            IDLE_NAMES = names;
            return usage;
        } catch (java.io.IOException e) {
            return new long[0];
        }
    }
}
