package dev.ortho.bench.task;

import java.util.Locale;

/**
 * Whether a slow period of the 64-tile {@link DispatchChainBenchmark} chain is the machine's: every
 * second it prints the chain's ns per link (one side, chains back to back as in JMH) and then the
 * round trip of one cache line between two threads that spin on it (no pool, no Ortho code). On
 * a VM the host may move the two vCPUs closer or farther apart while the guest sees nothing;
 * the line's round trip then changes by several times, and so does every protocol that moves
 * lines between the workers on each step. Not a JMH benchmark.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.ChainLinePingPong ortho 8
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.ChainLinePingPong forkjoin-cf 8
 * </pre>
 *
 * Arguments: the side ({@code impl} of DispatchChainBenchmark), seconds to run, tiles per link
 * (default 64) and work per tile in {@code Blackhole.consumeCPU} tokens (default 0).
 */
public final class ChainLinePingPong {
    private static final int ROUND_TRIPS = 200_000;
    private static volatile int ball;

    private ChainLinePingPong() {
    }

    public static void main(String[] args) throws Exception {
        DispatchChainBenchmark b = new DispatchChainBenchmark();
        b.impl = args.length > 0 ? args[0] : "ortho";
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        b.tiles = args.length > 2 ? Integer.parseInt(args[2]) : 64;
        b.tileTokens = args.length > 3 ? Long.parseLong(args[3]) : 0;
        b.setUp();
        try {
            System.out.printf(Locale.ROOT, "%s tiles=%d tokens=%d: per second, ns per link | cache-line round trip ns%n",
                    b.impl, b.tiles, b.tileTokens);
            for (int s = 0; s < seconds; s++) {
                long chains = 0;
                long t0 = System.nanoTime();
                long elapsed;
                do {
                    b.chain();
                    chains++;
                    elapsed = System.nanoTime() - t0;
                } while (elapsed < 1_000_000_000L);
                double perLink = elapsed / (double) (chains * DispatchChainBenchmark.LINKS);
                System.out.printf(Locale.ROOT, "%8.0f | %5.0f%n", perLink, lineRoundTripNanos());
            }
        } finally {
            b.tearDown();
        }
    }

    /** Mean round trip of {@link #ball} between this thread and a second one, both spinning. */
    private static double lineRoundTripNanos() throws InterruptedException {
        ball = 0;
        Thread other = new Thread(() -> {
            for (int i = 0; i < ROUND_TRIPS; i++) {
                while (ball != 2 * i + 1) {
                    Thread.onSpinWait();
                }
                ball = 2 * i + 2;
            }
        }, "ping-pong");
        other.start();
        long t0 = System.nanoTime();
        for (int i = 0; i < ROUND_TRIPS; i++) {
            ball = 2 * i + 1;
            while (ball != 2 * i + 2) {
                Thread.onSpinWait();
            }
        }
        long elapsed = System.nanoTime() - t0;
        other.join();
        return elapsed / (double) ROUND_TRIPS;
    }
}
