package dev.ortho.task.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

abstract class ImmediateListPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** Producer side: the most recently pushed node. */
abstract class ImmediateListHead extends ImmediateListPad0 {
    volatile ProcessImpl head;
}

abstract class ImmediateListPad1 extends ImmediateListHead {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/** Consumer side: the oldest node and the consumer claim. */
abstract class ImmediateListTail extends ImmediateListPad1 {
    volatile ProcessImpl tail;
    volatile int consumerClaim;
}

abstract class ImmediateListPad2 extends ImmediateListTail {
    long p40, p41, p42, p43, p44, p45, p46, p47;
    long p50, p51, p52, p53, p54, p55, p56, p57;
}

/**
 * Lock-free multi-producer list of processes, intrusive through {@link ProcessImpl#next}, FIFO
 * (Vyukov's intrusive MPSC queue with a stub node).
 *
 * <p>Departure from IREE: IREE's immediate list is an atomic slist (Treiber stack) that any
 * worker pops. A Java object cannot carry a pointer tag, and processes are re-pushed after they
 * sleep, so a Treiber pop would suffer ABA. Here producers never block, and a consumer first
 * claims the single consumer role with one CAS; a worker that loses the claim treats the list
 * as empty for this pass (the claim holder pops the item and loops again, so nothing is
 * stranded). An empty check is two volatile reads (head, then tail): the head alone is not
 * enough, because a consumer that re-pushes the stub while a producer is between its swap and
 * its link leaves {@code head == stub} with items still queued (a lost wake-up found by
 * ImmediateThroughputBenchmark; see the regression test).
 */
final class ImmediateList extends ImmediateListPad2 {
    private static final VarHandle HEAD;
    private static final VarHandle CONSUMER_CLAIM;
    private static final VarHandle TAIL;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(ImmediateListHead.class, "head", ProcessImpl.class);
            TAIL = l.findVarHandle(ImmediateListTail.class, "tail", ProcessImpl.class);
            CONSUMER_CLAIM = l.findVarHandle(ImmediateListTail.class, "consumerClaim", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ProcessImpl stub;

    ImmediateList(ProcessImpl stub) {
        this.stub = stub;
        TAIL.set(this, stub);  // plain: published with the head's release store below
        HEAD.setRelease(this, stub);  // release: publishes the stub before any producer swaps it
    }

    /**
     * True if nothing is queued. The head read pairs with the getAndSet in {@link #push} (a push
     * that has swapped the head is seen even if its link store is still in flight); the tail
     * read (acquire, pairs with soTail) rules out items left behind a re-pushed stub.
     */
    boolean isEmpty() {
        return HEAD.getVolatile(this) == stub && TAIL.getAcquire(this) == stub;
    }

    /** Release store under the consumer claim; pairs with the acquire in {@link #isEmpty}. */
    private void soTail(ProcessImpl t) {
        TAIL.setRelease(this, t);
    }

    /** Appends {@code p}; wait-free for producers. Any thread. */
    void push(ProcessImpl p) {
        p.spNext(null);  // plain: p is not yet reachable from the list
        // getAndSet (volatile): orders p's link reset and every write the producer made to p
        // before the swap; also the producer's half of the park/wake Dekker pair (the next read
        // is of the idle mask).
        ProcessImpl prev = (ProcessImpl) HEAD.getAndSet(this, p);
        prev.soNext(p);  // release: pairs with the consumer's lvNext() acquire in pop
    }

    /**
     * Pops the oldest process, or returns null if the list is empty, another consumer holds the
     * claim, or a producer is between its swap and its link store (it will wake a worker after
     * the store, so the item is not lost).
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
        ProcessImpl n = t.lvNext();  // acquire: pairs with soNext in push
        if (t == stub) {
            if (n == null) {
                return null;
            }
            soTail(n);
            t = n;
            n = n.lvNext();  // acquire: pairs with soNext in push
        }
        if (n != null) {
            soTail(n);
            return t;
        }
        if (t != HEAD.getVolatile(this)) {  // acquire: a producer is mid-push behind t
            return null;
        }
        push(stub);
        n = t.lvNext();  // acquire: pairs with soNext in push
        if (n != null) {
            soTail(n);
            return t;
        }
        return null;
    }
}
