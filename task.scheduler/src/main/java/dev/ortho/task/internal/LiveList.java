package dev.ortho.task.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;

abstract class LiveListPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** Written by every registration (CAS); read by the pruner. */
abstract class LiveListHead extends LiveListPad0 {
    volatile ProcessImpl head;
}

abstract class LiveListPad1 extends LiveListHead {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/** Pruning state: the walk claim and the serial at which the next prune is due. */
abstract class LiveListPrune extends LiveListPad1 {
    volatile int walkClaim;
    volatile long nextPruneAt;
}

abstract class LiveListPad2 extends LiveListPrune {
    long p40, p41, p42, p43, p44, p45, p46, p47;
    long p50, p51, p52, p53, p54, p55, p56, p57;
}

/**
 * The executor's registry of processes whose completion has not finished, so shutdown can
 * cancel every one of them, including suspended and sleeping processes that sit on no run list.
 * It replaces a {@code ConcurrentHashMap} key set, whose add (identity hash, node allocation)
 * and remove (bin lock on the completing worker) dominated the cost of a short process.
 *
 * <p>An intrusive lock-free stack through {@link ProcessImpl#liveNext}: registration is one CAS
 * on the head; completion only marks the process retired ({@link ProcessImpl#soRetired}). Retired
 * processes are unlinked lazily by whoever registers the process whose serial reaches
 * {@code nextPruneAt}; the next prune is scheduled after max({@value #MIN_PRUNE_INTERVAL}, 2 ×
 * survivors) more registrations, so pruning costs O(1) amortised per registration and at most
 * that many retired processes stay reachable from here.
 *
 * <p>Every walk (prune, snapshot, count) holds {@code walkClaim}, so only one thread ever
 * rewrites interior links and no walker sees a half-unlinked chain; an unlinked process's own
 * link is cleared so that a process the user keeps does not retain everything registered before
 * it. Producers touch only the head, which a walk never unlinks.
 */
final class LiveList extends LiveListPad2 {
    static final int MIN_PRUNE_INTERVAL = 1024;
    private static final VarHandle HEAD;
    private static final VarHandle WALK_CLAIM;
    private static final VarHandle NEXT_PRUNE_AT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(LiveListHead.class, "head", ProcessImpl.class);
            WALK_CLAIM = l.findVarHandle(LiveListPrune.class, "walkClaim", int.class);
            NEXT_PRUNE_AT = l.findVarHandle(LiveListPrune.class, "nextPruneAt", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    LiveList() {
        NEXT_PRUNE_AT.setRelease(this, (long) MIN_PRUNE_INTERVAL);  // release: published with the executor
    }

    /** Registers {@code p}; lock-free, any thread. Occasionally prunes (amortised O(1)). */
    void add(ProcessImpl p) {
        ProcessImpl h;
        do {
            h = (ProcessImpl) HEAD.getVolatile(this);  // acquire: sees h's serial, written before its CAS
            p.spLiveNext(h);  // plain: published by the CAS below
            p.liveSerial = h == null ? 1 : h.liveSerial + 1;
            // CAS (volatile): publishes p's link and serial; pairs with the walkers' head read.
            // It is also the registration half of the shutdown Dekker pair (see ExecutorImpl.register).
        } while (!HEAD.compareAndSet(this, h, p));
        if (p.liveSerial >= (long) NEXT_PRUNE_AT.getOpaque(this)) {  // opaque: a hint, re-read under the claim
            prune();
        }
    }

    /** Unlinks retired processes (but never the head); package-private for tests. */
    void prune() {
        if (!WALK_CLAIM.compareAndSet(this, 0, 1)) {
            return;  // a walk is under way; the next due registration prunes
        }
        try {
            ProcessImpl h = (ProcessImpl) HEAD.getVolatile(this);  // acquire: pairs with add's CAS
            long survivors = 1;
            ProcessImpl pred = h;
            ProcessImpl cur = pred.lvLiveNext();
            while (cur != null) {
                ProcessImpl next = cur.lvLiveNext();
                // A reusable process may be re-armed right now (RETIRED → LIVE by CAS, see
                // revive): the CAS to UNLINKING decides; losing it keeps the process linked.
                if (cur.lvRetired() && (!cur.isReusable() || cur.casRetired(ProcessImpl.RETIRED, ProcessImpl.UNLINKING))) {
                    pred.soLiveNext(next);  // release: unlinks cur for later walkers
                    cur.soLiveNext(null);  // a retained process must not retain older ones
                    if (cur.isReusable()) {
                        cur.soRetiredWord(ProcessImpl.UNLINKED);  // release: revive may now link it again
                    }
                } else {
                    pred = cur;
                    survivors++;
                }
                cur = next;
            }
            NEXT_PRUNE_AT.setOpaque(this, h.liveSerial + Math.max(MIN_PRUNE_INTERVAL, 2 * survivors));
        } finally {
            WALK_CLAIM.setRelease(this, 0);  // release: publishes the rewritten links to the next walker
        }
    }

    /**
     * Makes a retired reusable process live again for its next run (called by
     * {@link ProcessImpl#rearm}, on the owner's thread). If the pruner has not unlinked it, one
     * CAS RETIRED → LIVE keeps it where it is (the pruner's own CAS RETIRED → UNLINKING then
     * fails and it stays linked); if the pruner has, it is registered again like a new process.
     * A pruner caught between the two (UNLINKING) holds the walk claim; waiting for the claim
     * waits for the unlink to finish. The caller has written the process's fields before; the
     * CAS (or {@link #add}'s) publishes them.
     */
    void revive(ProcessImpl p) {
        while (true) {
            int word = p.lvRetiredWord();
            if (word == ProcessImpl.RETIRED) {
                if (p.casRetired(ProcessImpl.RETIRED, ProcessImpl.LIVE)) {
                    return;
                }
            } else if (word == ProcessImpl.UNLINKED) {
                // Unreachable from the list and touched by nobody else: registration as new.
                p.soRetiredWord(ProcessImpl.LIVE);
                add(p);
                return;
            } else if (word == ProcessImpl.UNLINKING) {
                claimWalk();  // the pruner holds it until the unlink is done
                WALK_CLAIM.setRelease(this, 0);  // release: pairs with claimWalk's CAS
            } else {
                throw new StatusException(StatusCode.INTERNAL, "process '" + p.name() + "' is re-armed while live");
            }
        }
    }

    /** Processes not yet retired, oldest last. Not for hot paths (allocates, may wait for a prune). */
    List<ProcessImpl> snapshot() {
        List<ProcessImpl> out = new ArrayList<>();
        claimWalk();
        try {
            for (ProcessImpl p = (ProcessImpl) HEAD.getVolatile(this); p != null; p = p.lvLiveNext()) {
                if (!p.lvRetired()) {
                    out.add(p);
                }
            }
        } finally {
            WALK_CLAIM.setRelease(this, 0);  // release: pairs with claimWalk's CAS
        }
        return out;
    }

    /** Number of processes not yet retired (walks the list; for stats and shutdown). */
    int count() {
        claimWalk();
        try {
            int n = 0;
            for (ProcessImpl p = (ProcessImpl) HEAD.getVolatile(this); p != null; p = p.lvLiveNext()) {
                if (!p.lvRetired()) {
                    n++;
                }
            }
            return n;
        } finally {
            WALK_CLAIM.setRelease(this, 0);  // release: pairs with claimWalk's CAS
        }
    }

    /** Waits for a running prune (bounded: one pass over the list) and takes the walk claim. */
    private void claimWalk() {
        while (!WALK_CLAIM.compareAndSet(this, 0, 1)) {  // CAS (volatile): acquires the links
            Thread.yield();
        }
    }
}
