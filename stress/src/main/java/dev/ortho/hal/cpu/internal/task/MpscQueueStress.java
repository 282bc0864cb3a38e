package dev.ortho.hal.cpu.internal.task;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The CPU driver's ready-list queue ({@link MpscQueue}; package-private, hence this package):
 * the consumer's stub re-push against a producer, and two producers against each other. After
 * the actors, the arbiter polls (quiescent) while {@link MpscQueue#isEmpty} says something is
 * queued, so a node the queue forgot shows up as never polled.
 */
public final class MpscQueueStress {
    private MpscQueueStress() {
    }

    static final class N extends MpscQueue.Node {
        final int id;

        N(int id) {
            this.id = id;
        }
    }

    /**
     * {@code x} is queued; a producer offers {@code a} while the consumer polls once (its
     * "last node: re-push the stub" path). Result: (racing poll: 0 null, 1 x; times x and a were
     * polled in total; 1 if a came before x).
     */
    @JCStressTest
    @Description("MpscQueue: a producer races the consumer's stub re-push")
    @Outcome(id = "1, 1, 1, 0", expect = ACCEPTABLE, desc = "the racing poll took x; a polled later")
    @Outcome(id = "0, 1, 1, 0", expect = ACCEPTABLE, desc = "the racing poll saw the offer half done and returned null")
    @Outcome(id = {"1, 1, 0, 0", "0, 1, 0, 0", "0, 0, 1, 0"}, expect = FORBIDDEN,
            desc = "lost element: isEmpty() said empty (or poll never returned it) with a node queued")
    @Outcome(id = {"1, 2, 1, 0", "0, 2, 1, 0", "1, 1, 2, 0", "0, 1, 2, 0"}, expect = FORBIDDEN, desc = "a node polled twice")
    @Outcome(expect = FORBIDDEN, desc = "FIFO broken (a before x) or other counts")
    @State
    public static class ProducerVsStubRepush {
        final MpscQueue<N> queue = new MpscQueue<>();
        final N x = new N(1);
        final N a = new N(2);

        public ProducerVsStubRepush() {
            queue.offer(x);
        }

        @Actor
        public void producer() {
            queue.offer(a);
        }

        @Actor
        public void consumer(IIII_Result r) {
            N n = queue.poll();
            r.r1 = n == null ? 0 : n.id;
        }

        @Arbiter
        public void drain(IIII_Result r) {
            int xs = r.r1 == 1 ? 1 : 0;
            int as = 0;
            for (int i = 0; i < 6 && !queue.isEmpty(); i++) {
                N n = queue.poll();
                if (n == x) {
                    xs++;
                } else if (n == a) {
                    if (xs == 0) {
                        r.r4 = 1;
                    }
                    as++;
                }
            }
            r.r2 = xs;
            r.r3 = as;
        }
    }

    /** Two producers offer into an empty queue. Result: (times a, b polled; 1 if still non-empty). */
    @JCStressTest
    @Description("MpscQueue: two producers race their head swaps")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "both nodes queued once, empty afterwards")
    @Outcome(id = {"0, 1, 0", "1, 0, 0", "0, 0, 0"}, expect = FORBIDDEN, desc = "lost element")
    @Outcome(id = {"2, 1, 0", "1, 2, 0"}, expect = FORBIDDEN, desc = "a node polled twice")
    @Outcome(expect = FORBIDDEN, desc = "isEmpty() false with nothing queued, or other counts")
    @State
    public static class TwoProducers {
        final MpscQueue<N> queue = new MpscQueue<>();
        final N a = new N(2);
        final N b = new N(3);

        @Actor
        public void producerA() {
            queue.offer(a);
        }

        @Actor
        public void producerB() {
            queue.offer(b);
        }

        @Arbiter
        public void drain(III_Result r) {
            for (int i = 0; i < 6 && !queue.isEmpty(); i++) {
                N n = queue.poll();
                if (n == a) {
                    r.r1++;
                } else if (n == b) {
                    r.r2++;
                }
            }
            r.r3 = queue.isEmpty() ? 0 : 1;
        }
    }
}
