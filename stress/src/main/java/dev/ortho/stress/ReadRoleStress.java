package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.hal.remote.internal.transport.ReadRole;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The read role of a remote TCP connection ({@link ReadRole}): its I/O loop and callers waiting
 * for a reply take turns parsing received bytes. Never two readers at once, and never a lost
 * wake-up: if the loop stopped watching reads because a caller held the role, the caller's
 * return arranges the rearm (else frames nobody waits for would never be read: a hang).
 */
public final class ReadRoleStress {
    private ReadRoleStress() {
    }

    /** Result: (1 if caller A took the role, 1 if caller B took it, 1 if the loop took it). */
    @JCStressTest
    @Description("ReadRole: two waiting callers and the loop try to take the free role at once")
    @Outcome(id = {"1, 0, 0", "0, 1, 0", "0, 0, 1"}, expect = ACCEPTABLE, desc = "exactly one reader")
    @Outcome(expect = FORBIDDEN, desc = "two readers at once, or nobody took a free role")
    @State
    public static class ThreeTakers {
        final ReadRole role = new ReadRole();

        @Actor
        public void callerA(III_Result r) {
            r.r1 = role.takeForCaller() ? 1 : 0;
        }

        @Actor
        public void callerB(III_Result r) {
            r.r2 = role.takeForCaller() ? 1 : 0;
        }

        @Actor
        public void loop(III_Result r) {
            r.r3 = role.takeForLoop() ? 1 : 0;
        }
    }

    /**
     * Result: (1 if the loop took the role, else 0: it stopped watching reads; what the caller's
     * return asked for: 0 nothing, 1 rearm now, 2 rearm later).
     */
    @JCStressTest
    @Description("ReadRole: a receiving caller returns while the loop is woken for the same bytes")
    @Outcome(id = {"1, 0"}, expect = ACCEPTABLE, desc = "the caller returned first; the loop reads")
    @Outcome(id = {"0, 2"}, expect = ACCEPTABLE, desc = "the loop stopped watching; the caller's return rearms it")
    @Outcome(id = {"0, 0"}, expect = FORBIDDEN, desc = "lost wake-up: the loop stopped watching and nobody rearms it")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class CallerReturnsVsLoopWakes {
        final ReadRole role = new ReadRole();

        public CallerReturnsVsLoopWakes() {
            role.takeForCaller();
        }

        @Actor
        public void caller(II_Result r) {
            r.r2 = role.releaseByCaller(false);
        }

        @Actor
        public void loop(II_Result r) {
            boolean took = role.takeForLoop();
            r.r1 = took ? 1 : 0;
            if (took) {
                role.releaseByLoop();
            }
        }
    }

    /**
     * Result: (what the scheduled rearm found: 0 a caller holds, 1 watch again and read, 2 read;
     * 1 if the next caller took the role; 1 if, in the end, the loop watches reads or a rearm
     * is asked for).
     */
    @JCStressTest
    @Description("ReadRole: the scheduled rearm races the next waiting caller taking and returning the role")
    @Outcome(id = {"1, 1, 1", "0, 1, 1"}, expect = ACCEPTABLE, desc = "the loop watches again, now or after the caller")
    @Outcome(expect = FORBIDDEN, desc = "the loop may stay deaf: a lost rearm")
    @State
    public static class RearmVsNextCaller {
        final ReadRole role = new ReadRole();
        int askedByReturn;

        public RearmVsNextCaller() {
            role.takeForCaller();
            role.takeForLoop(); // woken while the caller held it: stops watching
            role.releaseByCaller(false); // REARM_LATER: a rearm is scheduled (the rearm actor)
        }

        @Actor
        public void rearm(III_Result r) {
            r.r1 = role.rearm();
        }

        @Actor
        public void nextCaller(III_Result r) {
            boolean took = role.takeForCaller();
            r.r2 = took ? 1 : 0;
            if (took) {
                askedByReturn = role.releaseByCaller(false);
            }
        }

        @Arbiter
        public void arbiter(III_Result r) {
            // deaf loop = it stopped watching, and neither the scheduled rearm re-armed it
            // (it found the caller) nor the caller's return asked for another
            boolean rearmed = r.r1 == ReadRole.WATCH_AND_READ;
            boolean asked = askedByReturn != ReadRole.NOTHING;
            r.r3 = rearmed || asked || !role.loopOff() ? 1 : 0;
        }
    }

    /**
     * Result: (what the urgent return asked for: 0 nothing, 1 rearm now, 2 rearm later; what the
     * already scheduled later rearm found: 0 a caller holds, 1 watch again and read, 2 read).
     */
    @JCStressTest
    @Description("ReadRole: a caller returns expecting frames nobody waits for while a later rearm is scheduled")
    @Outcome(id = {"1, 0", "1, 1"}, expect = ACCEPTABLE, desc = "the loop watches again now, whatever the later rearm finds")
    @Outcome(expect = FORBIDDEN, desc = "the loop may stay deaf until the later rearm: a late frame")
    @State
    public static class UrgentReturnWithALaterRearmScheduled {
        final ReadRole role = new ReadRole();

        public UrgentReturnWithALaterRearmScheduled() {
            role.takeForCaller();
            role.takeForLoop(); // woken while the caller held it: stops watching
            role.releaseByCaller(false); // REARM_LATER: scheduled (the rearm actor)
            role.takeForCaller(); // the next caller, back to back
        }

        @Actor
        public void caller(II_Result r) {
            r.r1 = role.releaseByCaller(false, true);
        }

        @Actor
        public void rearm(II_Result r) {
            r.r2 = role.rearm();
        }
    }

    /**
     * Result: (1 if the loop took the role, else 0: it stopped watching reads; what the caller's
     * urgent return asked for: 0 nothing, 1 rearm now, 2 rearm later).
     */
    @JCStressTest
    @Description("ReadRole: a caller returns expecting frames while the loop is woken for the same bytes")
    @Outcome(id = {"1, 0"}, expect = ACCEPTABLE, desc = "the caller returned first; the loop reads (no needless wake-up)")
    @Outcome(id = {"0, 1"}, expect = ACCEPTABLE, desc = "the loop stopped watching; the return rearms it now")
    @Outcome(id = {"0, 0"}, expect = FORBIDDEN, desc = "lost wake-up")
    @Outcome(id = {"0, 2"}, expect = FORBIDDEN, desc = "a late rearm although frames are expected")
    @Outcome(expect = FORBIDDEN, desc = "anything else")
    @State
    public static class UrgentReturnVsLoopWakes {
        final ReadRole role = new ReadRole();

        public UrgentReturnVsLoopWakes() {
            role.takeForCaller();
        }

        @Actor
        public void caller(II_Result r) {
            r.r2 = role.releaseByCaller(false, true);
        }

        @Actor
        public void loop(II_Result r) {
            boolean took = role.takeForLoop();
            r.r1 = took ? 1 : 0;
            if (took) {
                role.releaseByLoop();
            }
        }
    }
}
