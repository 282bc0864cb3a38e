package dev.ortho.task.internal;

import dev.ortho.task.DrainResult;
import dev.ortho.task.ScanPolicy;
import dev.ortho.task.WorkerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

abstract class WorkerPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** Worker-owned state plus counters read (opaquely) by stats. */
abstract class WorkerFields extends WorkerPad0 {
    volatile int state;
    long drains;
    long parks;
    long wakes;
    long scans;
    long completed;
    /** Polls of the idle spin, each after a {@code Thread.yield()} (tests read it). */
    long spinYields;
    /** Polls of the linger, each after a {@code Thread.yield()} (tests read it). */
    long lingerPolls;
}

abstract class WorkerPad1 extends WorkerFields {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/**
 * One worker (IREE's {@code iree_task_worker_t}). The loop follows IREE's
 * {@code pump_until_exit}: relay wake-ups, scan the compute slots, and only when no compute
 * process made progress drain the immediate list (the seed's pseudo-code checks the immediate
 * list first; we follow the code). With nothing to do the worker marks itself idle, re-checks,
 * spins (longer while aggregate demand exceeds the active workers) and parks.
 *
 * <p>Nothing on the scan and drain path allocates, locks or captures a lambda: the
 * {@link DrainResult} and the scan table are allocated once per worker.
 */
final class Worker extends WorkerPad1 implements WorkerContext, Runnable {
    static final int DRAINING = 0;
    static final int SPINNING = 1;
    static final int PARKED = 2;
    static final int EXITED = 3;
    private static final String[] STATE_NAMES = {"DRAINING", "SPINNING", "PARKED", "EXITED"};

    private static final VarHandle STATE;
    private static final VarHandle DRAINS;
    private static final VarHandle PARKS;
    private static final VarHandle WAKES;
    private static final VarHandle SCANS;
    private static final VarHandle COMPLETED;
    private static final VarHandle SPIN_YIELDS;
    private static final VarHandle LINGER_POLLS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(WorkerFields.class, "state", int.class);
            DRAINS = l.findVarHandle(WorkerFields.class, "drains", long.class);
            PARKS = l.findVarHandle(WorkerFields.class, "parks", long.class);
            WAKES = l.findVarHandle(WorkerFields.class, "wakes", long.class);
            SCANS = l.findVarHandle(WorkerFields.class, "scans", long.class);
            COMPLETED = l.findVarHandle(WorkerFields.class, "completed", long.class);
            SPIN_YIELDS = l.findVarHandle(WorkerFields.class, "spinYields", long.class);
            LINGER_POLLS = l.findVarHandle(WorkerFields.class, "lingerPolls", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ExecutorImpl executor;
    private final int index;
    private final int processorId;
    /** A sweeper is a thread-less worker used after shutdown: it cancels, never drains. */
    private final boolean sweeper;
    private final DrainResult result = new DrainResult();
    private final int[] scanTable = new int[Tuning.COMPUTE_SLOTS * Tuning.MAX_SCAN_WEIGHT];
    private final int[] scanKeys = new int[Tuning.COMPUTE_SLOTS];
    private int scanTableLength;
    private int scanTableVersion = -1;
    private ScanPolicy scanTablePolicy;
    private int scanCursor;
    /**
     * A budget-1 process this worker activated by completing its last upstream process and
     * drains next (state QUEUED, owned by this worker as if popped from the immediate list).
     * Only this worker's thread touches it; it never outlives the drain call that set it.
     */
    private ProcessImpl handoff;
    /** This worker set its idle bit before parking and has not cleared it since. */
    private boolean markedIdle = true;
    /** This worker drained something since its last idle phase (it may linger; see {@link #linger}). */
    private boolean workedSinceIdle;
    /** While {@link #lingerArmed}: when the current linger window ends ({@code System.nanoTime}). */
    private long lingerDeadline;
    private boolean lingerArmed;
    /** Adaptive linger: when this worker last ran out of work ({@code System.nanoTime}). */
    private long idleSince;
    /** Adaptive linger: {@link #idleSince} is set and no work has been found since. */
    private boolean gapPending;
    /**
     * Adaptive linger: how long this worker was out of work the last time, from running out to
     * finding work again (lingering, parked or both); at first longer than any window.
     */
    private long lastGap = Long.MAX_VALUE;
    /** Adaptive linger: no linger starts before this time after a preempted one. */
    private long lingerBackoffUntil;
    /** Adaptive linger: the last back-off pause (0: none yet); the next one doubles it or restarts. */
    private long lingerBackoff;
    Thread thread;

    Worker(ExecutorImpl executor, int index, int processorId, boolean sweeper) {
        this.executor = executor;
        this.index = index;
        this.processorId = processorId;
        this.sweeper = sweeper;
        this.scanCursor = index < 0 ? 0 : index % Tuning.COMPUTE_SLOTS;
        this.lingerBackoffUntil = System.nanoTime();
    }

    @Override
    public int workerIndex() {
        return index;
    }

    @Override
    public int workerCount() {
        return executor.workerCount();
    }

    @Override
    public int processorId() {
        return processorId;
    }

    // ---- counters: single writer (this worker), opaque so stats readers never see torn longs --

    private void soState(int s) {
        STATE.setOpaque(this, s);  // opaque: stats only; no ordering needed
    }

    String stateName() {
        return STATE_NAMES[(int) STATE.getOpaque(this)];
    }

    long lpDrains() {
        return (long) DRAINS.getOpaque(this);
    }

    long lpParks() {
        return (long) PARKS.getOpaque(this);
    }

    long lpWakes() {
        return (long) WAKES.getOpaque(this);
    }

    long lpScans() {
        return (long) SCANS.getOpaque(this);
    }

    long lpCompleted() {
        return (long) COMPLETED.getOpaque(this);
    }

    long lpSpinYields() {
        return (long) SPIN_YIELDS.getOpaque(this);
    }

    long lpLingerPolls() {
        return (long) LINGER_POLLS.getOpaque(this);
    }

    // ---- main loop --------------------------------------------------------------------------

    @Override
    public void run() {
        IdleMask idle = executor.idleMask;
        try {
            while (true) {
                if (markedIdle) {
                    // Only after a park phase: a busy or spinning worker never writes the shared
                    // mask word, so schedulers reading it in wakeWorkers keep the line cached.
                    idle.setActive(index);
                    markedIdle = false;
                }
                soState(DRAINING);
                relayWake();
                if (executor.lvExitRequested()) {
                    return;
                }
                int version = executor.lvSlotVersion();
                boolean did = drainComputeSlots();
                did |= drainHandoffs();
                if (!did) {
                    while (drainImmediate()) {
                        did = true;
                    }
                }
                if (did) {
                    if (gapPending) {
                        gapPending = false;
                        lastGap = System.nanoTime() - idleSince;
                    }
                    workedSinceIdle = true;
                } else if (!linger(version)) {
                    idleUntilWork(version);
                }
            }
        } finally {
            idle.setActive(index);
            soState(EXITED);
        }
    }

    /**
     * After work, before the idle path: if the executor lingers and no other worker does, spin
     * until the linger window (opened by the first idle scan after work) ends, watching for new
     * work while holding the executor's linger token, which a scheduler claims instead of
     * unparking a parked worker ({@link ExecutorImpl#wakeWorkers}). A scan that finds nothing
     * (the run lists changed without work for us, e.g. a slot was released) resumes the same
     * window; a scan that finds work opens a new one after it.
     *
     * <p>Adaptive ({@link ExecutorImpl#adaptiveLinger}): the window opens only if this worker's
     * previous time out of work (from its first idle scan to the next scan that found work,
     * however it got there: lingering, spinning or parked) was no longer than the window, i.e.
     * work has been coming back within the window; otherwise the worker goes straight to its
     * idle path. So a burst of work that stops costs one window, after which the worker parks
     * at its next idle scan, and work that arrives more slowly than the window never makes it
     * linger. A poll that comes later than the window (and at least
     * {@link Tuning#LINGER_PREEMPTED_MIN_NANOS}) after the one before it means the yield let
     * other threads run for a time slice: the core is contended, and a scheduler that claimed the
     * token meanwhile counted on a lingerer that starts the work only when it gets the core back
     * (an unparked worker would have been run sooner; a spinning one has used up its share).
     * Then the linger ends (one scan, as if claimed) and none opens for a pause that doubles
     * while this recurs ({@link Tuning#LINGER_BACKOFF_MIN_NANOS} to
     * {@link Tuning#LINGER_BACKOFF_MAX_NANOS}). A fixed linger never backs off.
     *
     * <p>No lost wake: a scheduler publishes its work, then claims the token (CAS 1 → 0). The
     * lingerer leaves either because it saw new work, or because its own CAS 1 → 0 failed
     * (claimed: the work was published before), and then scans; or its CAS succeeded at the end
     * of the window (or on a preemption), so no scheduler counted on it and it takes the normal
     * idle path (idle bit, re-check, park).
     *
     * @return true to scan again (new work or claimed), false to go on to the idle path
     */
    private boolean linger(int seenVersion) {
        long limit = executor.lingerNanos();
        if (limit == 0 || sweeper) {
            return false;
        }
        boolean adaptive = executor.adaptiveLinger();
        long now = System.nanoTime();
        if (workedSinceIdle) {
            workedSinceIdle = false;
            lingerDeadline = now + limit;
            if (adaptive) {
                lingerArmed = lastGap <= limit && now - lingerBackoffUntil >= 0;
                idleSince = now;
                gapPending = true;
            } else {
                lingerArmed = true;
            }
        }
        if (!lingerArmed || now - lingerDeadline >= 0) {
            lingerArmed = false;
            return false;
        }
        if (!executor.tryStartLinger()) {
            return false;  // another worker lingers
        }
        soState(SPINNING);
        long preempted = Math.max(limit, Tuning.LINGER_PREEMPTED_MIN_NANOS);
        long lastPoll = now;
        while (true) {
            long poll = System.nanoTime();
            if (adaptive && poll - lastPoll > preempted) {
                // Our yield let other threads run for a time slice: this core is contended, and
                // a claim made meanwhile waited for us. Stop, scan once (claimed or not), back off.
                lingerArmed = false;
                backOffLinger(now, poll);
                executor.endLinger();
                return true;
            }
            lastPoll = poll;
            if (executor.hasNewWork(seenVersion) || !executor.lingerUnclaimed()) {
                executor.endLinger();  // if still ours; either way we scan
                return true;
            }
            if (poll - lingerDeadline >= 0) {
                lingerArmed = false;
                return !executor.endLinger();  // failed: claimed just now, so scan
            }
            LINGER_POLLS.setOpaque(this, lingerPolls + 1);
            Thread.yield(); // not onSpinWait: on a loaded machine the thread we wait for may need this core
        }
    }

    /**
     * After a preempted adaptive linger that started at {@code start}: no linger before
     * {@code now} plus a pause, twice the last one if this linger started soon after the last
     * pause ended (within four of its lengths: the core stays contended), else the minimum (a
     * one-off, e.g. a JIT compiler thread that took the core for a few milliseconds). Measured
     * from the start, not from {@code now}: the preemption itself lasts a time slice.
     */
    private void backOffLinger(long start, long now) {
        long pause = lingerBackoff;
        if (pause == 0 || start - lingerBackoffUntil > 4 * pause) {
            pause = Tuning.LINGER_BACKOFF_MIN_NANOS;
        } else {
            pause = Math.min(2 * pause, Tuning.LINGER_BACKOFF_MAX_NANOS);
        }
        lingerBackoff = pause;
        lingerBackoffUntil = now + pause;
    }

    /**
     * Idle path: spin polling the run lists, then mark idle, re-check and park until posted.
     *
     * <p>A spinning worker does not hold an idle bit: it finds new work itself (immediate list,
     * slot version, relay demand), exactly like a worker that is between two scans, so a
     * scheduler that sees no idle bit posts to nobody and the worker that spins picks the work
     * up. Only a worker about to park sets its bit, and it re-checks the run lists after that
     * volatile RMW (Dekker pair with the scheduler's publish-then-read-mask in
     * {@link ExecutorImpl#wakeWorkers}). Before this, every idle phase set and every loop
     * cleared the bit, so with a producer slower than the workers each schedule missed on the
     * mask line and claimed a bit by CAS (≈ 50 % of the producer's time in the budget-1
     * throughput profile).
     */
    private void idleUntilWork(int seenVersion) {
        IdleMask idle = executor.idleMask;
        soState(SPINNING);
        long spin = executor.spinNanosFor();
        if (spin > 0) {
            long start = System.nanoTime();
            do {
                if (executor.hasNewWork(seenVersion)) {
                    return;
                }
                // Yield, not onSpinWait: a worker goes idle right after its last completion, whose
                // callback has typically just woken the thread waiting for the result (and about to
                // submit more). When the kernel queues that thread on this core, a busy spin keeps
                // it waiting for the core until the spin ends or the time slice does (issue 18:
                // 15-19 µs median hand-back to the waiter at the end of a dispatch chain, 4-7 µs
                // without the spin). With no other runnable thread here, yield returns at once.
                Thread.yield();
                SPIN_YIELDS.setOpaque(this, spinYields + 1);
            } while (System.nanoTime() - start < spin);
        }
        idle.setIdle(index);  // volatile RMW; Dekker pair with the scheduler's mask read
        markedIdle = true;
        if (executor.hasNewWork(seenVersion)) {
            return;
        }
        soState(PARKED);
        PARKS.setOpaque(this, parks + 1);
        while (idle.isIdle(index)) {
            if (executor.hasNewWork(seenVersion)) {
                return;
            }
            LockSupport.park(this);
        }
        WAKES.setOpaque(this, wakes + 1);  // a scheduler or relay claimed our idle bit
    }

    /** Wake-tree relay: claim a share of the desired wake count and post that many idle peers. */
    private void relayWake() {
        int claimed = executor.claimDesiredWake();
        while (claimed-- > 0) {
            int target = executor.idleMask.claimIdle(index);
            if (target < 0) {
                return;
            }
            executor.post(target);
        }
    }

    // ---- immediate list ---------------------------------------------------------------------

    /**
     * Takes {@code p} as this worker's hand-off if it has none (never the sweeper, which only
     * cancels from the caller's thread). Called from this worker's own completion path.
     */
    boolean offerHandoff(ProcessImpl p) {
        if (sweeper || handoff != null) {
            return false;
        }
        handoff = p;
        return true;
    }

    /** Drains the hand-off, and the hand-offs its completion sets, one after another. */
    private boolean drainHandoffs() {
        boolean did = false;
        int run = 0;
        ProcessImpl p;
        while ((p = handoff) != null) {
            handoff = null;
            if (run++ == Tuning.MAX_HANDOFF_RUN) {
                if (executor.hasWaitingWork()) {
                    executor.requeue(p);  // still QUEUED: the list takes it as schedule would have
                    return true;
                }
                // Nothing else waits: yielding would only push the chain to the list and wake
                // the other worker for it (an unpark, and then a worker spinning beside the chain
                // on a busy machine). Start a new run instead.
                run = 1;
            }
            drainOwned(p);
            did = true;
        }
        return did;
    }

    /** Pops one immediate process and drains it until it completes or sleeps (IREE drain_process). */
    boolean drainImmediate() {
        ProcessImpl p = executor.immediate.pop();
        if (p == null) {
            return false;
        }
        drainOwned(p);
        drainHandoffs();
        return true;
    }

    /** Drains a QUEUED process this worker owns (popped or handed off) until it completes or sleeps. */
    private void drainOwned(ProcessImpl p) {
        // Volatile store; we own the process exclusively (QUEUED → DRAINING).
        p.svScheduleState(ProcessImpl.SCHED_DRAINING);
        DrainResult r = result;
        while (true) {
            if (sweeper) {
                p.cancel();
            }
            boolean finished = p.shouldBail();
            if (!finished) {
                callDrain(p, r);
                finished = r.isCompleted() || p.shouldBail();
            }
            if (finished) {
                if (p.tryClaimCompletion()) {
                    COMPLETED.setOpaque(this, completed + 1);
                    p.runCompletion(this);
                    p.runRelease();  // single exclusive drainer: release right after completion
                }
                return;
            }
            if (r.isDidWork() || r.isKeepActive() || p.xchgNeedsDrain()) {
                continue;
            }
            // Sleep: DRAINING → IDLE, then re-check needs-drain. Both are volatile (seq-cst) and
            // pair with schedule's volatile needs-drain store followed by its CAS of the state:
            // either we see its signal here or its CAS sees IDLE and re-queues the process.
            p.svScheduleState(ProcessImpl.SCHED_IDLE);
            if (p.lvNeedsDrain() != 0 && p.casScheduleState(ProcessImpl.SCHED_IDLE, ProcessImpl.SCHED_DRAINING)) {
                continue;
            }
            return;
        }
    }

    /** One call of {@code p}'s drain function into {@code r}; a thrown exception fails the process. */
    private void callDrain(ProcessImpl p, DrainResult r) {
        r.clear();
        try {
            p.drain.drain(p, this, r);
        } catch (RuntimeException e) {
            p.recordDrainFailure(e);
        }
        DRAINS.setOpaque(this, drains + 1);
    }

    // ---- compute slots ----------------------------------------------------------------------

    /** One pass over the compute slots in scan-policy order (IREE drain_compute_slots). */
    boolean drainComputeSlots() {
        ComputeSlot[] slots = executor.slots;
        ScanPolicy policy = executor.lvScanPolicy();
        int n;
        if (policy == ScanPolicy.ROUND_ROBIN) {
            n = Tuning.COMPUTE_SLOTS;
        } else {
            refreshScanTable(policy);
            n = scanTableLength;
        }
        boolean did = false;
        int start = n == 0 ? 0 : scanCursor % n;
        // Round robin visits only the slots the occupancy mask marks (one volatile read instead
        // of one line per slot: with one process placed, a pass used to read 7.5 empty slots on
        // average before its one-tile drain; issue 18, 64-tile chain profile). Same order.
        long occupied = policy == ScanPolicy.ROUND_ROBIN ? executor.lvSlotMask() : -1L;
        for (int i = 0; i < n && !did; i++) {
            int at = start + i;
            if (at >= n) {
                at -= n;
            }
            int slotIndex = policy == ScanPolicy.ROUND_ROBIN ? at : scanTable[at];
            if ((occupied & (1L << slotIndex)) != 0) {
                did = drainSlot(slots[slotIndex]);
            }
        }
        scanCursor = n == 0 ? 0 : (start + 1) % n;
        SCANS.setOpaque(this, scans + 1);
        return did;
    }

    private boolean drainSlot(ComputeSlot slot) {
        Object quick = slot.lvProcess();  // acquire: pairs with soProcess in ExecutorImpl.tryPlace
        if (quick == null || quick == ComputeSlot.RESERVED) {
            return false;
        }
        long previous = slot.getAndIncrementDrainers();
        if (ComputeSlot.count(previous) < 0) {  // a release is in progress
            slot.getAndDecrementDrainers();
            return false;
        }
        // Re-read under the drainer claim: the release clears the process before it resets the
        // count, so a non-null read here belongs to the generation we entered.
        Object o = slot.lvProcess();
        if (!(o instanceof ProcessImpl p)) {
            slot.getAndDecrementDrainers();
            return false;
        }
        int epoch = slot.lvPlacementEpoch();  // acquire: pairs with soPlacementEpoch
        if (epoch == 0 || epoch != p.lvPlacementEpoch()) {
            slot.getAndDecrementDrainers();
            return false;
        }
        if (sweeper) {
            p.cancel();
        }
        boolean terminal = p.shouldBail();
        boolean work = false;
        boolean keep = false;
        boolean earlierWork = false;
        if (!terminal) {
            DrainResult r = result;
            for (int call = 1; ; call++) {
                callDrain(p, r);
                terminal = r.isCompleted() || p.shouldBail();
                work = r.isDidWork();
                keep = r.isKeepActive();
                // Alone (no other slot occupied, nothing on the immediate list, no wake demand):
                // call again under the same drainer claim instead of leaving the slot, scanning
                // and re-entering (issue 18: per one-tile call that protocol cost about as much as
                // an empty tile). Each call is still one unit of work: the process is re-checked
                // for cancellation, and as soon as anything else waits the worker scans again.
                if (!work || terminal || call == Tuning.MAX_CALLS_PER_ENTRY || !executor.isAlone(slot.index)) {
                    break;
                }
                earlierWork = true;
            }
            if (work && !terminal) {
                p.svNeedsDrain(1);  // tells the last drainer to keep the slot (consumed below)
            }
        }
        if (terminal && p.tryClaimCompletion()) {
            COMPLETED.setOpaque(this, completed + 1);
            p.runCompletion(this);  // eager: dependents start while peers may still be in drain
        }
        boolean did = work || keep;
        long old = slot.getAndDecrementDrainers();  // volatile RMW: publishes our drain to the releaser
        long generation = old & ~ComputeSlot.COUNT_MASK;
        if (ComputeSlot.count(old) - 1 == 0) {
            boolean needs = did;
            if (!terminal && !needs) {
                needs = p.xchgNeedsDrain();
            }
            if (needs && !terminal) {
                did = true;
            } else {
                executor.tryReleaseSlot(slot, p, generation, epoch, terminal);
            }
        }
        return did || earlierWork;
    }

    /** Rebuilds this worker's private scan table when slots or the policy changed. */
    private void refreshScanTable(ScanPolicy policy) {
        int version = executor.lvSlotVersion();
        if (version == scanTableVersion && policy == scanTablePolicy) {
            return;
        }
        scanTableVersion = version;
        scanTablePolicy = policy;
        ComputeSlot[] slots = executor.slots;
        int occupied = 0;
        for (int s = 0; s < slots.length; s++) {
            if (slots[s].lvProcess() instanceof ProcessImpl p) {
                scanKeys[occupied] = policy == ScanPolicy.PRIORITY ? p.priority
                        : Math.min(p.lvWakeBudget(), Tuning.MAX_SCAN_WEIGHT);
                scanTable[occupied++] = s;
            }
        }
        if (policy == ScanPolicy.PRIORITY) {
            // Insertion sort by key, highest first, stable in slot order; at most 16 entries.
            for (int i = 1; i < occupied; i++) {
                int k = scanKeys[i];
                int v = scanTable[i];
                int j = i - 1;
                while (j >= 0 && scanKeys[j] < k) {
                    scanKeys[j + 1] = scanKeys[j];
                    scanTable[j + 1] = scanTable[j];
                    j--;
                }
                scanKeys[j + 1] = k;
                scanTable[j + 1] = v;
            }
            scanTableLength = occupied;
            return;
        }
        // Budget-weighted: round r lists every slot whose weight exceeds r, so entries interleave.
        int[] order = scanKeys;  // reuse: weights, slots copied into the tail of scanTable
        int base = scanTable.length - occupied;
        System.arraycopy(scanTable, 0, scanTable, base, occupied);
        int length = 0;
        for (int round = 0; round < Tuning.MAX_SCAN_WEIGHT; round++) {
            for (int e = 0; e < occupied; e++) {
                if (order[e] > round && length < base) {
                    scanTable[length++] = scanTable[base + e];
                }
            }
        }
        scanTableLength = length;
    }
}
