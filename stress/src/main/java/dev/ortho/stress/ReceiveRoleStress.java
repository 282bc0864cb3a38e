package dev.ortho.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import dev.ortho.hal.remote.internal.transport.ReceiveRole;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * The receive role of a remote TCP connection with blocking reads ({@link ReceiveRole}): its
 * reader thread (the pump) and callers waiting for a reply take turns reading the socket. Never
 * two readers at once; a caller refused by the pump is seen by the pump's hand-back check or
 * takes the role itself; an urgent return is never lost (else a frame nobody waits for would
 * wait for the pump's rearm delay).
 */
public final class ReceiveRoleStress {
    private ReceiveRoleStress() {
    }

    /** Result: (1 if caller A took the role, 1 if caller B took it, 1 if the pump took it). */
    @JCStressTest
    @Description("ReceiveRole: two waiting callers and the pump try to take the free role at once")
    @Outcome(id = {"1, 0, 0", "0, 1, 0", "0, 0, 1"}, expect = ACCEPTABLE, desc = "exactly one reader")
    @Outcome(expect = FORBIDDEN, desc = "two readers at once, or nobody took a free role")
    @State
    public static class ThreeTakers {
        final ReceiveRole role = new ReceiveRole();

        @Actor
        public void callerA(III_Result r) {
            r.r1 = role.takeForCaller() ? 1 : 0;
        }

        @Actor
        public void callerB(III_Result r) {
            r.r2 = role.takeForCaller() ? 1 : 0;
        }

        @Actor
        public void pump(III_Result r) {
            r.r3 = role.takeForPump(true) ? 1 : 0;
        }
    }

    /**
     * Result: (1 if the caller took the role; 1 if the pump saw it wanted before handing back;
     * the holder in the end: 0 nobody, 1 the pump, 2 the caller).
     */
    @JCStressTest
    @Description("ReceiveRole: a caller asks for the role while the pump hands it back")
    @Outcome(id = {"1, 0, 2"}, expect = ACCEPTABLE, desc = "the pump handed back first; the caller reads")
    @Outcome(id = {"0, 1, 0", "0, 0, 0"}, expect = ACCEPTABLE, desc = "refused while the pump held it; the role is free again")
    @Outcome(expect = FORBIDDEN, desc = "two holders, a lost holder, or a mark that outlives the hand-back")
    @State
    public static class CallerAsksWhilePumpHandsBack {
        final ReceiveRole role = new ReceiveRole();

        public CallerAsksWhilePumpHandsBack() {
            role.takeForPump(true);
        }

        @Actor
        public void caller(III_Result r) {
            r.r1 = role.takeForCaller() ? 1 : 0;
        }

        @Actor
        public void pump(III_Result r) {
            r.r2 = role.wanted() ? 1 : 0;
            role.releaseByPump();
        }

        @Arbiter
        public void arbiter(III_Result r) {
            r.r3 = role.holder() | (role.wanted() ? 4 : 0);
        }
    }

    /**
     * Result: (1 if the pump took the role while the caller returned; 1 if the pump holds it in
     * the end, after one more try without the rearm delay).
     */
    @JCStressTest
    @Description("ReceiveRole: a caller returns urgently while the pump tries to take the role early")
    @Outcome(id = {"1, 1", "0, 1"}, expect = ACCEPTABLE, desc = "the pump reads now or at its next try")
    @Outcome(expect = FORBIDDEN, desc = "a lost urgent return: the pump waits its rearm delay")
    @State
    public static class UrgentReturnVsEarlyPump {
        final ReceiveRole role = new ReceiveRole();
        boolean took;

        public UrgentReturnVsEarlyPump() {
            role.takeForCaller();
        }

        @Actor
        public void caller() {
            role.releaseByCaller(true);
        }

        @Actor
        public void pump(II_Result r) {
            took = role.takeForPump(false);
            r.r1 = took ? 1 : 0;
        }

        @Arbiter
        public void arbiter(II_Result r) {
            r.r2 = took || role.takeForPump(false) ? 1 : 0;
        }
    }
}
