package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.vm.internal.SpareSlot;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The one-object pool behind the context's spare stack ({@link SpareSlot}, used by
 * {@code Invocation.invoke}): an object is never handed to two takers at once, an offer never
 * overwrites a pooled object, and what the offering thread wrote before offering is visible to
 * the taker.
 */
public final class SpareSlotStress {
    private SpareSlotStress() {
    }

    /** A pooled object with a plain field written before it is offered. */
    static final class Box {
        int payload;
    }

    /** Result: (1 if taker A got the box, 1 if taker B got it). */
    @JCStressTest
    @Description("SpareSlot: two threads take the one pooled object at once")
    @Outcome(id = {"1, 0", "0, 1"}, expect = ACCEPTABLE, desc = "exactly one taker got it, the other allocates")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "the same object was handed to both takers")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "the pooled object was lost")
    @State
    public static class TwoTakers {
        final SpareSlot<Box> slot = new SpareSlot<>();
        final Box box = new Box();

        public TwoTakers() {
            slot.offer(box);
        }

        @Actor
        public void takerA(II_Result r) {
            r.r1 = slot.take() == box ? 1 : 0;
        }

        @Actor
        public void takerB(II_Result r) {
            r.r2 = slot.take() == box ? 1 : 0;
        }
    }

    /**
     * Result: (what the taker saw: 0 empty, 1 the box with its payload 42, 2 the box with a stale
     * payload, 3 the other object;
     * 1 if the second offer was refused; 1 if the box is still pooled afterwards).
     */
    @JCStressTest
    @Description("SpareSlot: offer (after writing the object) races take and a second offer")
    @Outcome(id = "0, 1, 1", expect = ACCEPTABLE, desc = "take ran first and found nothing; first offer won, second refused")
    @Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "take found nothing; the other offer won the slot")
    @Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "take got the box; the other offer then filled the slot")
    @Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "take got the box after the other offer was refused")
    @Outcome(id = "3, 0, 0", expect = ACCEPTABLE, desc = "the other offer won; take got it; the box offer was refused")
    @Outcome(id = "3, 0, 1", expect = ACCEPTABLE, desc = "the other offer won; take got it; then the box filled the slot")
    @Outcome(id = "0, 1, 0", expect = FORBIDDEN, desc = "the box was offered, nobody took it, yet it is gone")
    @Outcome(id = {"2, 0, 0", "2, 1, 0", "2, 0, 1", "2, 1, 1"}, expect = FORBIDDEN,
            desc = "the taker saw the box without the write made before offering it")
    @Outcome(expect = FORBIDDEN, desc = "other")
    @State
    public static class OfferVsTake {
        final SpareSlot<Box> slot = new SpareSlot<>();
        final Box box = new Box();
        final Box other = new Box();
        int seen;
        int refused;

        @Actor
        public void offerer() {
            box.payload = 42;
            slot.offer(box);
        }

        @Actor
        public void taker() {
            Box b = slot.take();
            seen = b == null ? 0 : b == box ? (b.payload == 42 ? 1 : 2) : 3;
        }

        @Actor
        public void secondOfferer() {
            refused = slot.offer(other) ? 0 : 1;
        }

        @Arbiter
        public void check(III_Result r) {
            Box left = slot.take();
            r.r1 = seen;
            r.r2 = refused;
            r.r3 = left == box ? 1 : 0;
        }
    }
}
