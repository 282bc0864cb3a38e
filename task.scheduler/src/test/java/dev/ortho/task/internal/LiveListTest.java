package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 5, unit = TimeUnit.SECONDS)
class LiveListTest {
    @Test
    void retiredProcessesArePrunedAndForgetTheirSuccessors() {
        LiveList live = new LiveList();
        List<ProcessImpl> kept = new ArrayList<>();
        ProcessImpl firstRetired = null;
        int n = 5 * LiveList.MIN_PRUNE_INTERVAL;
        for (int i = 0; i < n; i++) {
            ProcessImpl p = new ProcessImpl("p" + i);
            live.add(p);
            if (i % 100 == 0) {
                kept.add(p);
            } else {
                p.soRetired();
                if (firstRetired == null && i > 0) {
                    firstRetired = p;
                }
            }
        }
        assertEquals(kept.size(), live.count());
        List<ProcessImpl> snapshot = live.snapshot();
        assertEquals(kept.size(), snapshot.size());
        assertTrue(snapshot.containsAll(kept));
        assertNull(firstRetired.lvLiveNext(), "a pruned process must not keep older ones reachable");
        int reachable = 0;
        for (ProcessImpl p = live.head; p != null; p = p.lvLiveNext()) {
            reachable++;
        }
        assertTrue(reachable < kept.size() + 2L * LiveList.MIN_PRUNE_INTERVAL + 2,
                "pruning bounds the retired processes still linked: " + reachable);
    }
    private static int occurrences(LiveList live, ProcessImpl target) {
        int n = 0;
        for (ProcessImpl p = live.head; p != null; p = p.lvLiveNext()) {
            if (p == target) {
                n++;
            }
        }
        return n;
    }

    /** Issue 18: a reusable process re-armed before or after the pruner unlinked it is listed once. */
    @Test
    void revivedReusableProcessIsListedExactlyOnce() {
        LiveList live = new LiveList();
        ProcessImpl linked = ProcessImpl.reusableStub("linked");
        ProcessImpl pruned = ProcessImpl.reusableStub("pruned");
        live.add(pruned);
        live.add(linked);
        live.add(new ProcessImpl("head"));  // the pruner never unlinks the head
        pruned.soRetired();
        live.prune();
        assertEquals(ProcessImpl.UNLINKED, pruned.lvRetiredWord(), "the pruner unlinked the retired process");
        assertEquals(0, occurrences(live, pruned));
        live.revive(pruned);
        assertEquals(ProcessImpl.LIVE, pruned.lvRetiredWord());
        assertEquals(1, occurrences(live, pruned), "registered again");

        linked.soRetired();
        live.revive(linked);  // before any prune: one CAS, stays where it is
        live.prune();
        assertEquals(ProcessImpl.LIVE, linked.lvRetiredWord());
        assertEquals(1, occurrences(live, linked));
        assertEquals(3, live.count());
        assertTrue(live.snapshot().containsAll(List.of(linked, pruned)));
    }
}
