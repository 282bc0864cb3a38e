package dev.ortho.bench.task;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Ortho against its peer on a loaded machine: the two run in the same JVM in alternating
 * rounds (A, B, A, B, …), so load that comes and goes hits both alike, and the result is the
 * median of the per-round ratios next to each side's median and quartiles. A complement to the
 * JMH runs (which measure one peer after the other, minutes apart); not a JMH benchmark.
 *
 * <pre>
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.InterleavedRun chain 1 400
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.InterleavedRun chain 64 100
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.InterleavedRun chain 1 3000 0
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.InterleavedRun chain 1 1000 0 10
 * java -cp bench/target/benchmarks.jar dev.ortho.bench.task.InterleavedRun immediate 0 200
 * </pre>
 *
 * Arguments: the benchmark ({@code chain}: DispatchChainBenchmark, Ortho as {@code ortho} (a
 * chain built per call) and {@code ortho-rearm} (a reusable chain re-armed per call), peers
 * {@code forkjoin-cf} and {@code forkjoin-task}; {@code immediate}: ImmediateThroughputBenchmark, Ortho as {@code ortho} (a process per item) and
 * {@code ortho-queue} (one {@code QueueProcess})), tiles per link
 * (chain only), measured rounds (the first fifth more are warm-up and dropped), and for
 * {@code chain} the work per tile in {@code Blackhole.consumeCPU} tokens (default
 * {@value DispatchChainBenchmark#TILE_TOKENS}, about 1 µs; 0 leaves only the per-link overhead),
 * and for {@code chain} the chains each side runs back to back per round (default 1).
 *
 * <p>With one chain per round, every chain starts on a pool that has been idle while the three
 * other sides ran (its workers parked, or still spinning), and four pools are alive at once: a
 * cold start, where the wake-ups of parked threads (on this VM a halted vCPU's, 15–40 µs)
 * weigh as much as the chaining. JMH's {@code DispatchChainBenchmark}, the goal's measurement,
 * runs chains back to back in one pool; several chains per round come closer to it.
 */
public final class InterleavedRun {
    private InterleavedRun() {
    }

    /** One call of a side (its {@code opsPerCall} operations), or its teardown. */
    @FunctionalInterface
    public interface Op {
        void run() throws Exception;
    }

    /** One contestant: the first side is Ortho, the others its peers. */
    public record Side(String name, Op op, int opsPerCall, Op close) {
    }

    public static void main(String[] args) throws Exception {
        String which = args.length > 0 ? args[0] : "chain";
        int tiles = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 400;
        long tokens = args.length > 3 ? Long.parseLong(args[3]) : DispatchChainBenchmark.TILE_TOKENS;
        int chainsPerRound = args.length > 4 ? Integer.parseInt(args[4]) : 1;
        List<Side> sides = new ArrayList<>();
        if (which.equals("chain")) {
            for (String impl : new String[] {"ortho", "ortho-rearm", "forkjoin-cf", "forkjoin-task"}) {
                DispatchChainBenchmark b = new DispatchChainBenchmark();
                b.impl = impl;
                b.tiles = tiles;
                b.tileTokens = tokens;
                b.setUp();
                Op chains = () -> {
                    for (int c = 0; c < chainsPerRound; c++) {
                        b.chain();
                    }
                };
                sides.add(new Side(impl, chains, DispatchChainBenchmark.LINKS * chainsPerRound, b::tearDown));
            }
        } else {
            for (String impl : new String[] {"ortho", "ortho-queue", "forkjoin"}) {
                ImmediateThroughputBenchmark b = new ImmediateThroughputBenchmark();
                b.impl = impl;
                b.setUp();
                sides.add(new Side(impl, b::processes, ImmediateThroughputBenchmark.BATCH, b::tearDown));
            }
        }
        String title = which.equals("chain")
                ? String.format(Locale.ROOT, "chain tiles=%d tokens=%d chains/round=%d", tiles, tokens, chainsPerRound)
                : which;
        compare(title, sides, rounds);
    }

    /**
     * Runs {@code sides} in alternating rounds ({@code rounds} measured after a fifth more of
     * warm-up), prints each side's p25 / median / p75 ns per operation and, for every peer, the
     * median of the per-round ratios first side / peer; then closes the sides.
     */
    public static void compare(String title, List<Side> sides, int rounds) throws Exception {
        int warm = rounds / 5;
        double[][] ns = new double[sides.size()][rounds];
        for (int r = -warm; r < rounds; r++) {
            for (int s = 0; s < sides.size(); s++) {
                int k = (r + s) % sides.size();  // rotate who goes first
                k = k < 0 ? k + sides.size() : k;
                Side side = sides.get(k);
                long t0 = System.nanoTime();
                side.op().run();
                long t = System.nanoTime() - t0;
                if (r >= 0) {
                    ns[k][r] = t / (double) side.opsPerCall();
                }
            }
        }
        System.out.printf(Locale.ROOT, "%s rounds=%d (ns per op: p25 / median / p75; ratio = median of per-round ortho/peer)%n",
                title, rounds);
        for (int s = 0; s < sides.size(); s++) {
            double[] sorted = ns[s].clone();
            Arrays.sort(sorted);
            StringBuilder ratio = new StringBuilder();
            if (!sides.get(s).name().startsWith("ortho")) {
                for (int o = 0; o < sides.size(); o++) {  // every Ortho variant against this peer
                    if (!sides.get(o).name().startsWith("ortho")) {
                        continue;
                    }
                    double[] q = new double[rounds];
                    for (int r = 0; r < rounds; r++) {
                        q[r] = ns[o][r] / ns[s][r];
                    }
                    Arrays.sort(q);
                    ratio.append(String.format(Locale.ROOT, "  %s/%s = %.3f (p25 %.3f, p75 %.3f)", sides.get(o).name(),
                            sides.get(s).name(), q[rounds / 2], q[rounds / 4], q[rounds * 3 / 4]));
                }
            }
            System.out.printf(Locale.ROOT, "%-14s %10.1f / %10.1f / %10.1f%s%n", sides.get(s).name(),
                    sorted[rounds / 4], sorted[rounds / 2], sorted[rounds * 3 / 4], ratio);
        }
        for (Side side : sides) {
            side.close().run();
        }
    }
}
