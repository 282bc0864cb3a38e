package dev.ortho.task.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Regression for issue 3's lost immediate items (commit 54341a9): a producer that swapped the
 * head just before the consumer put the stub back, with its link store still pending, ended up
 * queued in front of the stub, so the one-read empty check said "empty" while two items were
 * queued and every worker parked. These tests drive that interleaving step by step on the list
 * itself, one thread, no timing: the producer is split into its two halves and the consumer is
 * stopped at the exact point through {@link ImmediateList#beforeRestub}.
 */
@Timeout(value = 5, unit = TimeUnit.SECONDS)
class Issue3ImmediateListRestubTest {
    private final ImmediateList list = new ImmediateList(new ProcessImpl("stub"));
    private final ProcessImpl a = new ProcessImpl("a");
    private final ProcessImpl b = new ProcessImpl("b");

    @Test
    void producerSwappingWhileConsumerRestubsKeepsTheListNonEmpty() {
        list.push(a);
        ProcessImpl[] prev = new ProcessImpl[1];
        // The consumer has seen a without a successor; now a producer swaps b in and stalls
        // before linking it behind a.
        list.beforeRestub = () -> prev[0] = list.swapHead(b);
        assertNull(list.pop(), "a's successor is not linked yet, so nothing can be popped");
        list.beforeRestub = null;
        assertSame(a, prev[0]);
        assertFalse(list.isEmpty(), "a and b are queued; an empty answer here lets every worker park");
        ImmediateList.link(prev[0], b);  // the producer finishes its push
        assertSame(a, list.pop());
        assertFalse(list.isEmpty());
        assertSame(b, list.pop());
        assertTrue(list.isEmpty());
        assertNull(list.pop());
    }

    @Test
    void producerSwappingRightAfterTheLastPopIsSeen() {
        list.push(a);
        assertSame(a, list.pop());
        assertTrue(list.isEmpty());
        ProcessImpl prev = list.swapHead(b);  // behind the stub the consumer just put back
        assertFalse(list.isEmpty(), "a swapped-in producer counts as queued before it links");
        assertNull(list.pop(), "its link is still pending");
        ImmediateList.link(prev, b);
        assertSame(b, list.pop());
        assertTrue(list.isEmpty());
    }

    @Test
    void reusedNodesKeepFifoOrderAcrossManyEmptyTransitions() {
        ProcessImpl c = new ProcessImpl("c");
        for (int round = 0; round < 1000; round++) {
            list.push(a);
            list.push(b);
            assertSame(a, list.pop());
            list.push(c);
            assertSame(b, list.pop());
            list.push(a);  // a is re-pushed after it was popped, as a woken sleeper is
            assertSame(c, list.pop());
            assertSame(a, list.pop());
            assertTrue(list.isEmpty());
            assertNull(list.pop());
        }
    }
}
