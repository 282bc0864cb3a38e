package dev.ortho.hal.remote.internal.shm;

import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * The wake latency of the shared-memory transport's {@link Doorbell} in isolation: a sleeper
 * thread blocks on a bell; the ringer (this thread, spinning as a publishing side does) waits
 * until the sleeper has announced itself and then {@code GAP_US} more, stamps the time, rings;
 * the sleeper takes the time its block returned. In the same JVM, so the same clock.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.hal.remote.internal.shm.BellLatencyRun [WAKES] [GAP_US] [KIND...]
 * </pre>
 *
 * KIND: {@code socket} (the PROCESS-mode bell: a Unix-domain socket and a selector),
 * {@code doorbell-futex} (the PROCESS-mode bell where both sides can use futexes), {@code pipe}
 * (THREAD mode without futexes), {@code park} ({@link LockSupport#unpark}, a futex: the cheapest
 * blocking wake-up the JVM has, as a reference), {@code futex} (a raw futex on a shared word through
 * the FFM linker; needs {@code --enable-native-access=ALL-UNNAMED}). Prints ring → awake and the ring's own cost.
 * Lives in the transport's package (bench only) to reach the package-private bell.
 */
public final class BellLatencyRun {
    private BellLatencyRun() {
    }

    private interface Bell {
        void ring();

        void await();
    }

    public static void main(String[] args) throws Exception {
        int wakes = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        long gapNanos = (args.length > 1 ? Long.parseLong(args[1]) : 200) * 1_000;
        String[] kinds = args.length > 2 ? Arrays.copyOfRange(args, 2, args.length)
                : new String[] {"socket", "doorbell-futex", "pipe", "park", "futex"};
        for (int round = 0; round < 2; round++) { // the first round warms up
            for (String kind : kinds) {
                measure(kind, round == 0 ? wakes / 5 : wakes, gapNanos, round == 1);
            }
        }
    }

    private static void measure(String kind, int wakes, long gapNanos, boolean print) throws Exception {
        Path dir = null;
        Mailbox mailbox = null;
        Doorbell[] ends;
        switch (kind) {
            case "socket", "doorbell-futex" -> {
                dir = Files.createTempDirectory("ortho-bell");
                Path file = dir.resolve("mailbox");
                mailbox = Mailbox.create(file, 4096, new byte[0]);
                mailbox.soCanFutex(true, kind.equals("doorbell-futex")); // the parent's word decides here
                ServerSocketChannel server = Doorbell.listen(file);
                Doorbell child = Doorbell.connect(file, mailbox);
                ends = new Doorbell[] {Doorbell.accept(server, file, mailbox), child};
                if (kind.equals("doorbell-futex") && !ends[1].usesFutex()) {
                    System.out.println("doorbell-futex: not available (Linux only, and needs --enable-native-access=ALL-UNNAMED)");
                    return;
                }
            }
            case "pipe" -> ends = Doorbell.pipes();
            case "park", "futex" -> ends = null;
            default -> throw new IllegalArgumentException("unknown bell " + kind
                    + " (socket, doorbell-futex, pipe, park, futex)");
        }
        long[] latency = new long[wakes];
        long[] cost = new long[wakes];
        Handoff h = new Handoff();
        Futex futex = Futex.get();
        if (kind.equals("futex") && futex == null) {
            System.out.println("futex: not available (Linux only, and needs --enable-native-access=ALL-UNNAMED)");
            return;
        }
        java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared();
        java.lang.foreign.MemorySegment word = arena.allocate(64, 64);
        java.lang.foreign.MemorySegment timespec = Futex.timespec(arena);
        java.lang.invoke.VarHandle wordHandle = java.lang.foreign.ValueLayout.JAVA_INT.varHandle();
        Bell bell = kind.equals("futex") ? new Bell() {
            public void ring() {
                wordHandle.getAndAdd(word, 0L, 1);
                futex.wake(word, 1);
            }

            public void await() {
                futex.await(word, h.word, 1_000_000_000L, timespec);
            }
        } : ends == null ? new Bell() {
            public void ring() {
                LockSupport.unpark(h.sleeper);
            }

            public void await() {
                LockSupport.park(); // spurious returns are re-checked by the loop below
            }
        } : new Bell() {
            public void ring() {
                ends[0].ring(Doorbell.PUMP);
            }

            public void await() {
                ends[1].await(Doorbell.PUMP, h.word, 1_000_000_000L, "ringer");
            }
        };
        h.sleeper = Thread.ofPlatform().name("bell sleeper").start(() -> {
            for (int i = 0; i < wakes; i++) {
                // a ring after this ends the futex wait at once
                h.word = ends != null ? ends[1].prepare(Doorbell.PUMP) : (int) wordHandle.getVolatile(word, 0L);
                h.asleep = i + 1;
                while (h.rung < i + 1) {
                    bell.await();
                }
                latency[i] = System.nanoTime() - h.stamp;
                h.done = i + 1;
            }
        });
        for (int i = 0; i < wakes; i++) {
            while (h.asleep < i + 1) {
                Thread.onSpinWait();
            }
            long until = System.nanoTime() + gapNanos;
            while (System.nanoTime() < until) {
                Thread.onSpinWait(); // the publishing side is on its CPU; the sleeper's went idle
            }
            h.stamp = System.nanoTime();
            h.rung = i + 1;
            bell.ring();
            cost[i] = System.nanoTime() - h.stamp;
            while (h.done < i + 1) {
                Thread.onSpinWait();
            }
        }
        h.sleeper.join();
        arena.close();
        if (ends != null) {
            ends[0].close();
            ends[1].close();
        }
        if (mailbox != null) {
            mailbox.close();
            Files.deleteIfExists(dir.resolve("mailbox"));
        }
        if (dir != null) {
            Files.deleteIfExists(dir);
        }
        if (print) {
            Arrays.sort(latency);
            Arrays.sort(cost);
            System.out.printf(Locale.ROOT, "%-6s wakes=%d gap=%d us: ring -> awake p50 %.1f p90 %.1f p99 %.1f max %.1f us;"
                    + " ring cost p50 %.1f p99 %.1f us%n", kind, wakes, gapNanos / 1000, p(latency, 50), p(latency, 90),
                    p(latency, 99), latency[wakes - 1] / 1e3, p(cost, 50), p(cost, 99));
        }
    }

    private static double p(long[] sorted, int percent) {
        return sorted[Math.min(sorted.length - 1, sorted.length * percent / 100)] / 1e3;
    }

    private static final class Handoff {
        volatile Thread sleeper;
        volatile int asleep;
        volatile int rung;
        volatile int done;
        volatile long stamp;
        volatile int word;
    }
}
