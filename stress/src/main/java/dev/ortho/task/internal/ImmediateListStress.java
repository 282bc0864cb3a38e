package dev.ortho.task.internal;

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
 * The executor's immediate list ({@link ImmediateList}): producers racing the consumer's
 * restub, and consumers racing for the claim. Lives in the list's package because the list is
 * package-private; it uses only what {@code ExecutorImpl} and {@code Worker} use.
 */
public final class ImmediateListStress {
    private ImmediateListStress() {
    }

    static int code(ProcessImpl p, ProcessImpl x, ProcessImpl a, ProcessImpl b) {
        return p == null ? 0 : p == x ? 1 : p == a ? 2 : p == b ? 3 : 9;
    }

    /**
     * One node {@code x} is queued; a producer pushes {@code a} while the consumer pops once, so
     * the pop's "last node, put the stub back" CAS races the push's head swap (issue 3's lost
     * wake-up). Afterwards (quiescent) the arbiter pops as long as {@link ImmediateList#isEmpty}
     * admits to queued nodes. Result: (what the racing pop returned: 0 null, 1 x; times x and a
     * were popped in total; 1 if a was popped before x).
     */
    @JCStressTest
    @Description("ImmediateList: a producer races the consumer's restub CAS")
    @Outcome(id = "1, 1, 1, 0", expect = ACCEPTABLE, desc = "the racing pop took x; a popped later")
    @Outcome(id = "0, 1, 1, 0", expect = ACCEPTABLE,
            desc = "the racing pop saw x without a linked successor (the push in flight) and left it queued")
    @Outcome(id = {"1, 1, 0, 0", "0, 1, 0, 0", "0, 0, 1, 0"}, expect = FORBIDDEN,
            desc = "lost wake-up: isEmpty() said empty (or pop never returned it) while a node was queued")
    @Outcome(id = {"1, 2, 1, 0", "0, 2, 1, 0", "1, 1, 2, 0", "0, 1, 2, 0"}, expect = FORBIDDEN,
            desc = "a node popped twice")
    @Outcome(expect = FORBIDDEN, desc = "FIFO broken (a before x) or other counts")
    @State
    public static class ProducerVsRestub {
        final ImmediateList list = new ImmediateList(new ProcessImpl("stub"));
        final ProcessImpl x = new ProcessImpl("x");
        final ProcessImpl a = new ProcessImpl("a");

        public ProducerVsRestub() {
            list.push(x);
        }

        @Actor
        public void producer() {
            list.push(a);
        }

        @Actor
        public void consumer(IIII_Result r) {
            r.r1 = code(list.pop(), x, a, null);
        }

        @Arbiter
        public void drain(IIII_Result r) {
            int xs = r.r1 == 1 ? 1 : 0;
            int as = 0;
            for (int i = 0; i < 6 && !list.isEmpty(); i++) {
                int c = code(list.pop(), x, a, null);
                if (c == 1) {
                    xs++;
                } else if (c == 2) {
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

    /**
     * Two producers push {@code a} and {@code b} into an empty list at once (both swap the head
     * past the stub); the arbiter then pops everything. Result: (times a, b were popped; 1 if
     * the list still claimed to be non-empty after both were popped).
     */
    @JCStressTest
    @Description("ImmediateList: two producers race their head swaps")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "both nodes queued once, list empty afterwards")
    @Outcome(id = {"0, 1, 0", "1, 0, 0", "0, 0, 0"}, expect = FORBIDDEN, desc = "lost element")
    @Outcome(id = {"2, 1, 0", "1, 2, 0"}, expect = FORBIDDEN, desc = "a node popped twice")
    @Outcome(expect = FORBIDDEN, desc = "isEmpty() false with nothing queued (workers would spin forever) or other counts")
    @State
    public static class TwoProducers {
        final ImmediateList list = new ImmediateList(new ProcessImpl("stub"));
        final ProcessImpl a = new ProcessImpl("a");
        final ProcessImpl b = new ProcessImpl("b");

        @Actor
        public void producerA() {
            list.push(a);
        }

        @Actor
        public void producerB() {
            list.push(b);
        }

        @Arbiter
        public void drain(III_Result r) {
            for (int i = 0; i < 6 && !list.isEmpty(); i++) {
                int c = code(list.pop(), null, a, b);
                if (c == 2) {
                    r.r1++;
                } else if (c == 3) {
                    r.r2++;
                }
            }
            r.r3 = list.isEmpty() ? 0 : 1;
        }
    }

    /**
     * Two nodes queued, two consumers pop at once: the claim lets one in at a time, the loser
     * sees null. Result: (what consumer 1 got, what consumer 2 got: 0 null, 1 x, 2 y; how many
     * elements were lost or popped twice, counting the arbiter's drain).
     */
    @JCStressTest
    @Description("ImmediateList: two consumers race for the consumer claim")
    @Outcome(id = {"1, 2, 0", "2, 1, 0"}, expect = ACCEPTABLE, desc = "the pops ran one after the other")
    @Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "one pop lost the claim and saw null")
    @Outcome(id = {"1, 1, 1", "2, 2, 1"}, expect = FORBIDDEN, desc = "double claim: both consumers got the same node")
    @Outcome(id = {"2, 0, 0", "0, 2, 0"}, expect = FORBIDDEN, desc = "FIFO broken: y popped while x was queued")
    @Outcome(expect = FORBIDDEN, desc = "any other: a node lost or popped twice, or nobody got anything")
    @State
    public static class ConsumersVsClaim {
        final ImmediateList list = new ImmediateList(new ProcessImpl("stub"));
        final ProcessImpl x = new ProcessImpl("x");
        final ProcessImpl y = new ProcessImpl("y");

        public ConsumersVsClaim() {
            list.push(x);
            list.push(y);
        }

        @Actor
        public void consumer1(III_Result r) {
            r.r1 = code(list.pop(), x, y, null);
        }

        @Actor
        public void consumer2(III_Result r) {
            r.r2 = code(list.pop(), x, y, null);
        }

        @Arbiter
        public void drain(III_Result r) {
            int xs = (r.r1 == 1 ? 1 : 0) + (r.r2 == 1 ? 1 : 0);
            int ys = (r.r1 == 2 ? 1 : 0) + (r.r2 == 2 ? 1 : 0);
            for (int i = 0; i < 4 && !list.isEmpty(); i++) {
                int c = code(list.pop(), x, y, null);
                if (c == 1) {
                    xs++;
                } else if (c == 2) {
                    ys++;
                }
            }
            r.r3 = Math.abs(xs - 1) + Math.abs(ys - 1);
        }
    }
}
