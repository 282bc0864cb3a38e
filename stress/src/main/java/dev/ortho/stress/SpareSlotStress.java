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

    /** Result: (what the taker saw: 0 empty, 1 the box with its payload 42, 2 the box with a stale payload; 1 if the box is pooled afterwards). */
    @JCStressTest
    @Description("SpareSlot: offer (after writing the object) races take")
    @Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "take ran first and found nothing; the box stays pooled")
    @Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "take got the box with the write made before offering it")
    @Outcome(id = "0, 0", expect = FORBIDDEN, desc = "the box was offered, nobody took it, yet it is gone")
    @Outcome(id = "1, 1", expect = FORBIDDEN, desc = "the box was taken and is still pooled")
    @Outcome(id = {"2, 0", "2, 1"}, expect = FORBIDDEN, desc = "the taker saw the box without the write made before offering it")
    @State
    public static class OfferVsTake {
        final SpareSlot<Box> slot = new SpareSlot<>();
        final Box box = new Box();

        @Actor
        public void offerer() {
            box.payload = 42;
            slot.offer(box);
        }

        @Actor
        public void taker(II_Result r) {
            Box b = slot.take();
            r.r1 = b == null ? 0 : b.payload == 42 ? 1 : 2;
        }

        @Arbiter
        public void check(II_Result r) {
            r.r2 = slot.take() == box ? 1 : 0;
        }
    }

    /** Result: (1 if offer A succeeded, 1 if offer B succeeded, which object is pooled: 1 A, 2 B, 0 none). */
    @JCStressTest
    @Description("SpareSlot: two offers into the empty slot")
    @Outcome(id = {"1, 0, 1", "0, 1, 2"}, expect = ACCEPTABLE, desc = "one offer won and its object is pooled")
    @Outcome(expect = FORBIDDEN, desc = "both or neither won, or the loser overwrote the winner")
    @State
    public static class TwoOffers {
        final SpareSlot<Box> slot = new SpareSlot<>();
        final Box a = new Box();
        final Box b = new Box();

        @Actor
        public void offerA(III_Result r) {
            r.r1 = slot.offer(a) ? 1 : 0;
        }

        @Actor
        public void offerB(III_Result r) {
            r.r2 = slot.offer(b) ? 1 : 0;
        }

        @Arbiter
        public void check(III_Result r) {
            Box left = slot.take();
            r.r3 = left == a ? 1 : left == b ? 2 : 0;
        }
    }
}
