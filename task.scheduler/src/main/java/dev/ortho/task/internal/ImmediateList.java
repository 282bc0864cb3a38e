package dev.ortho.task.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

abstract class ImmediateListPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** Producer side: the most recently pushed node, or the stub when the list is empty. */
abstract class ImmediateListHead extends ImmediateListPad0 {
    volatile ProcessImpl head;
}

abstract class ImmediateListPad1 extends ImmediateListHead {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/** Consumer side: the oldest node (plain, handed between consumers by the claim) and the claim. */
abstract class ImmediateListTail extends ImmediateListPad1 {
    ProcessImpl tail;
    volatile int consumerClaim;
}

abstract class ImmediateListPad2 extends ImmediateListTail {
    long p40, p41, p42, p43, p44, p45, p46, p47;
    long p50, p51, p52, p53, p54, p55, p56, p57;
}

/**
 * Lock-free multi-producer list of processes, intrusive through {@link ProcessImpl#next}, FIFO
 * (Vyukov's intrusive MPSC queue with a stub node, with one change described below).
 *
 * <p>Departure from IREE: IREE's immediate list is an atomic slist (Treiber stack) that any
 * worker pops. A Java object cannot carry a pointer tag, and processes are re-pushed after they
 * sleep, so a Treiber pop would suffer ABA. Here producers never block, and a consumer first
 * claims the single consumer role with one CAS; a worker that loses the claim treats the list
 * as empty for this pass (the claim holder pops the item and loops again, so nothing is
 * stranded).
 *
 * <p><b>Empty check: one volatile read.</b> The invariant is {@code head == stub} exactly when
 * nothing is queued (producers that have swapped the head but not yet linked count as queued).
 * Producers only ever store their own node into the head. The stub goes back into the head only
 * when the consumer detaches the last node {@code t}, and it does so with one
 * {@code compareAndSet(head, t, stub)}: it succeeds only if no producer has swapped since, so
 * the list is empty at that instant. Vyukov's original pop instead reads the head, then
 * re-pushes the stub with a getAndSet; a producer swapping in between (its link still pending)
 * ends up queued <em>before</em> the stub, leaving {@code head == stub} with items queued. That
 * lost wake-up was found by ImmediateThroughputBenchmark and first fixed by also reading the tail
 * in the empty check (two volatile reads); the CAS closes the window itself, see
 * {@code Issue3ImmediateListRestubTest}.
 */
final class ImmediateList extends ImmediateListPad2 {
    private static final VarHandle HEAD;
    private static final VarHandle CONSUMER_CLAIM;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(ImmediateListHead.class, "head", ProcessImpl.class);
            CONSUMER_CLAIM = l.findVarHandle(ImmediateListTail.class, "consumerClaim", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ProcessImpl stub;
    /**
     * Test seam: run by the consumer after it found the tail node without a successor and
     * before it tries to put the stub back. Null in production (one plain read on that path).
     */
    Runnable beforeRestub;

    ImmediateList(ProcessImpl stub) {
        this.stub = stub;
        this.tail = stub;  // plain: published with the head's release store below
        HEAD.setRelease(this, stub);  // release: publishes the stub before any producer swaps it
    }

    /**
     * True if nothing is queued: one volatile read. Pairs with the getAndSet in {@link #swapHead}
     * (a push that has swapped the head is seen even if its link store is still in flight) and
     * with the consumer's CAS in {@link #popClaimed}; it is also the idle worker's half of the
     * park/wake Dekker pair (after its volatile idle-mask RMW).
     */
    boolean isEmpty() {
        return HEAD.getVolatile(this) == stub;
    }

    /** Appends {@code p}; wait-free for producers. Any thread. */
    void push(ProcessImpl p) {
        link(swapHead(p), p);
    }

    /**
     * First half of a push: makes {@code p} the head and returns the node it must be linked
     * behind. Package-private only so tests can stop a producer between its two halves.
     */
    ProcessImpl swapHead(ProcessImpl p) {
        p.spNext(null);  // plain: p is not yet reachable from the list
        // getAndSet (volatile): orders p's link reset and every write the producer made to p
        // before the swap; also the producer's half of the park/wake Dekker pair (the next read
        // is of the idle mask).
        return (ProcessImpl) HEAD.getAndSet(this, p);
    }

    /** Second half of a push: links {@code p} behind {@code prev}. */
    static void link(ProcessImpl prev, ProcessImpl p) {
        prev.soNext(p);  // release: pairs with the consumer's lvNext() acquire in popClaimed
    }

    /**
     * Pops the oldest process, or returns null if the list is empty, another consumer holds the
     * claim, or a producer is between its swap and its link store (it will wake a worker after
     * the store, and until then {@link #isEmpty} is false so no worker parks).
     */
    ProcessImpl pop() {
        if (isEmpty()) {
            return null;
        }
        // CAS (volatile): acquires the consumer role and everything the last holder wrote to tail.
        if (!CONSUMER_CLAIM.compareAndSet(this, 0, 1)) {
            return null;
        }
        try {
            return popClaimed();
        } finally {
            CONSUMER_CLAIM.setRelease(this, 0);  // release: publishes tail to the next claimant
        }
    }

    private ProcessImpl popClaimed() {
        ProcessImpl t = tail;
        ProcessImpl n = t.lvNext();  // acquire: pairs with soNext in link
        if (t == stub) {
            if (n == null) {
                return null;  // the producer that swapped the head past the stub has not linked
            }
            tail = n;
            t = n;
            n = n.lvNext();  // acquire: pairs with soNext in link
        }
        if (n != null) {
            tail = n;
            return t;
        }
        // t looks like the last node. The stub is unreachable here (the tail has passed it and
        // its one producer has linked), so its link can be reset with a plain store that the
        // CAS below publishes before any producer can swap the stub out of the head again.
        Runnable hook = beforeRestub;
        if (hook != null) {
            hook.run();
        }
        stub.spNext(null);
        // CAS (volatile): pairs with the producers' getAndSet. Success means no producer swapped
        // after t, so t is detached and the list is empty; failure means one did and will link
        // behind t shortly; t stays queued and the head stays non-stub.
        if (HEAD.compareAndSet(this, t, stub)) {
            tail = stub;
            return t;
        }
        return null;
    }
}
