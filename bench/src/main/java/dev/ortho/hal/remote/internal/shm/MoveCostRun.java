package dev.ortho.hal.remote.internal.shm;

import java.util.Arrays;
import java.util.Locale;

/**
 * What {@link Affinity#moveOff} costs the thread it moves (the worker's pump leaving its client's
 * CPU, see {@link MailboxTransport}): this thread spins 2 ms on the highest CPU it may use, then
 * moves off it, {@code MOVES} times; with {@code busy}, another thread spins on the lowest CPU
 * meanwhile, so each move lands behind it. Prints the cost's percentiles. Needs two CPUs and
 * {@code --enable-native-access=ALL-UNNAMED}. Lives in the transport's package (bench only) to
 * reach the package-private {@link Affinity}.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp bench/target/benchmarks.jar dev.ortho.hal.remote.internal.shm.MoveCostRun [MOVES] [busy]
 * </pre>
 */
public final class MoveCostRun {
    private static volatile boolean stop;

    private MoveCostRun() {
    }

    public static void main(String[] args) throws InterruptedException {
        int moves = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        boolean busy = args.length > 1 && args[1].equals("busy");
        long allowed = Affinity.currentThreadMask();
        if (Long.bitCount(allowed) < 2 || Affinity.currentCpu() < 0) {
            System.out.println("needs two CPUs and native access");
            return;
        }
        long low = Long.lowestOneBit(allowed);
        long high = Long.highestOneBit(allowed);
        Thread spinner = null;
        if (busy) {
            spinner = Thread.ofPlatform().daemon().start(() -> {
                Affinity.restrictCurrentThread(low);
                while (!stop) {
                    Thread.onSpinWait();
                }
            });
        }
        long[] cost = new long[moves];
        int left = 0;
        for (int i = 0; i < moves; i++) {
            Affinity.restrictCurrentThread(high); // onto the high CPU, then free again
            Affinity.restrictCurrentThread(allowed);
            for (long end = System.nanoTime() + 2_000_000; System.nanoTime() < end; ) {
                Thread.onSpinWait();
            }
            int cpu = Affinity.currentCpu();
            long t0 = System.nanoTime();
            boolean moved = Affinity.moveOff(cpu);
            cost[i] = System.nanoTime() - t0;
            left += moved && Affinity.currentCpu() != cpu ? 1 : 0;
        }
        stop = true;
        if (spinner != null) {
            spinner.join();
        }
        Arrays.sort(cost);
        System.out.printf(Locale.ROOT, "moveOff (%s): %d of %d moves left the CPU; µs p10 %.1f, p50 %.1f, p90 %.1f,"
                + " max %.1f%n", busy ? "the other CPU busy" : "the other CPU idle", left, moves, cost[moves / 10] / 1e3,
                cost[moves / 2] / 1e3, cost[moves * 9 / 10] / 1e3, cost[moves - 1] / 1e3);
    }
}
