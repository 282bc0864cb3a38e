package dev.ortho.task.internal;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The executor's live list ({@link LiveList}) with reusable processes (issue 18): the re-arm of
 * a retired reusable process ({@link LiveList#revive}) races the pruner that would unlink it.
 * Lives in the list's package because the list is package-private; it uses only what
 * {@code ProcessImpl.rearm} and {@code LiveList.add} use.
 */
public final class LiveListStress {
    private LiveListStress() {
    }

    /**
     * {@code p} is retired and linked behind the head; one actor prunes, the other revives
     * {@code p}. Result: (times p is reachable from the head, p's membership word, processes the
     * list counts as live).
     */
    @JCStressTest
    @Description("LiveList: re-arm (revive) of a retired reusable process races the pruner")
    @Outcome(id = "1, 0, 2", expect = ACCEPTABLE, desc = "listed once and live (kept by the CAS, or unlinked and registered again)")
    @Outcome(id = {"0, 0, 1", "0, 0, 2"}, expect = FORBIDDEN, desc = "live but unreachable: shutdown would never cancel it")
    @Outcome(id = {"2, 0, 2", "2, 0, 3"}, expect = FORBIDDEN, desc = "linked twice")
    @Outcome(expect = FORBIDDEN, desc = "other")
    @State
    public static class ReviveVsPrune {
        final LiveList live = new LiveList();
        final ProcessImpl p = ProcessImpl.reusableStub("p");

        public ReviveVsPrune() {
            live.add(p);
            live.add(new ProcessImpl("head"));
            p.soRetired();
        }

        @Actor
        public void pruner() {
            live.prune();
        }

        @Actor
        public void rearm() {
            live.revive(p);
        }

        @Arbiter
        public void check(III_Result r) {
            int n = 0;
            for (ProcessImpl q = live.head; q != null; q = q.lvLiveNext()) {
                if (q == p) {
                    n++;
                }
            }
            r.r1 = n;
            r.r2 = p.lvRetiredWord();
            r.r3 = live.count();
        }
    }
}
