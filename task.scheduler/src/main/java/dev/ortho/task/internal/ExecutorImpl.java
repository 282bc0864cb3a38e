package dev.ortho.task.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.Executor;
import dev.ortho.task.ExecutorStats;
import dev.ortho.task.Process;
import dev.ortho.task.QueueProcess;
import dev.ortho.task.ScanPolicy;
import dev.ortho.task.Topology;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor: workers, the immediate list, the compute slots and their overflow list, the
 * idle mask and the wake tree. Scheduling follows IREE's {@code schedule_process}; slot release
 * follows IREE's {@code release_compute_process} without warm retention.
 */
public final class ExecutorImpl extends ExecutorLifecycle implements Executor {
    private static final Logger LOG = LoggerFactory.getLogger(ExecutorImpl.class);
    static final int RUNNING = 0;
    static final int SHUTTING_DOWN = 1;
    static final int TERMINATED = 2;

    private static final VarHandle DESIRED_WAKE;
    private static final VarHandle SLOT_VERSION;
    private static final VarHandle SLOT_MASK;
    private static final VarHandle SWEEP_CLAIM;
    private static final VarHandle LINGERING;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            DESIRED_WAKE = l.findVarHandle(ExecutorDesiredWake.class, "desiredWake", int.class);
            SLOT_VERSION = l.findVarHandle(ExecutorSlotVersion.class, "slotVersion", int.class);
            SLOT_MASK = l.findVarHandle(ExecutorSlotVersion.class, "slotMask", long.class);
            SWEEP_CLAIM = l.findVarHandle(ExecutorLifecycle.class, "sweepClaim", int.class);
            LINGERING = l.findVarHandle(ExecutorLinger.class, "lingering", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String name;
    private final long spinNanos;
    private final long lingerNanos;
    private final boolean adaptiveLinger;
    private final Worker[] workers;
    private final Worker sweeper;
    final IdleMask idleMask;
    final ImmediateList immediate = new ImmediateList(new ProcessImpl("immediate-stub"));
    private final ImmediateList overflow = new ImmediateList(new ProcessImpl("overflow-stub"));
    final ComputeSlot[] slots = new ComputeSlot[Tuning.COMPUTE_SLOTS];
    private final LiveList live = new LiveList();
    private volatile ScanPolicy scanPolicy;

    /** Starts {@code workerCount} workers that do not linger; see {@link Executor.Builder}. */
    public ExecutorImpl(String name, Topology topology, int workerCount, long spinNanos, ScanPolicy policy) {
        this(name, topology, workerCount, spinNanos, 0, policy);
    }

    /** Starts {@code workerCount} workers with a fixed linger; see {@link Executor.Builder}. */
    public ExecutorImpl(String name, Topology topology, int workerCount, long spinNanos, long lingerNanos,
            ScanPolicy policy) {
        this(name, topology, workerCount, spinNanos, lingerNanos, false, policy);
    }

    /**
     * Starts {@code workerCount} workers; {@code adaptiveLinger} makes {@code lingerNanos} the
     * window of {@link Executor.Builder#adaptiveLingerNanos} instead of a fixed linger.
     */
    public ExecutorImpl(String name, Topology topology, int workerCount, long spinNanos, long lingerNanos,
            boolean adaptiveLinger, ScanPolicy policy) {
        if (workerCount < 1 || workerCount > Topology.MAX_GROUPS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "worker count " + workerCount + " outside [1, " + Topology.MAX_GROUPS + "]");
        }
        this.name = name;
        this.spinNanos = spinNanos;
        this.lingerNanos = lingerNanos;
        this.adaptiveLinger = adaptiveLinger && lingerNanos > 0;
        this.scanPolicy = policy;
        this.idleMask = new IdleMask(workerCount);
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new ComputeSlot(i);
        }
        this.workers = new Worker[workerCount];
        List<Topology.Group> groups = topology.groups();
        for (int i = 0; i < workerCount; i++) {
            int cpu = groups.isEmpty() ? -1 : groups.get(i % groups.size()).processorId();
            workers[i] = new Worker(this, i, cpu, false);
        }
        this.sweeper = new Worker(this, -1, -1, true);
        for (Worker w : workers) {
            Thread t = new Thread(w, "ortho-worker-" + w.workerIndex());
            t.setDaemon(true);
            w.thread = t;
        }
        for (Worker w : workers) {
            w.thread.start();
        }
        LOG.debug("executor '{}' started {} workers", name, workerCount);
    }

    // ---- accessors --------------------------------------------------------------------------

    boolean lvExitRequested() {
        return exitRequested;  // volatile: pairs with the store in shutdown
    }

    int lvRunState() {
        return runState;  // volatile: pairs with the stores in shutdown
    }

    int lvSlotVersion() {
        return (int) SLOT_VERSION.getVolatile(this);
    }

    /**
     * Bit i set while compute slot i holds a process (a hint for the scan: a slot placed after
     * this read is found on the next pass; the slot version, bumped after the bit is set, makes
     * an idle worker rescan). Volatile: pairs with the RMWs in tryPlace and releaseSlot.
     */
    long lvSlotMask() {
        return (long) SLOT_MASK.getVolatile(this);
    }

    ScanPolicy lvScanPolicy() {
        return scanPolicy;  // volatile: pairs with setScanPolicy
    }

    // ---- Executor API -----------------------------------------------------------------------

    @Override
    public Process.Builder newProcess(String processName, DrainFunction drain) {
        return new ProcessBuilderImpl(this, processName, drain);
    }

    @Override
    public QueueProcess.Builder newQueueProcess(String processName) {
        return new QueueProcessImpl.BuilderImpl(this, processName);
    }

    @Override
    public int workerCount() {
        return workers.length;
    }

    @Override
    public ScanPolicy scanPolicy() {
        return scanPolicy;
    }

    @Override
    public void setScanPolicy(ScanPolicy policy) {
        this.scanPolicy = Objects.requireNonNull(policy, "policy");
        SLOT_VERSION.getAndAdd(this, 1);  // volatile RMW: makes idle workers rescan
    }

    @Override
    public int aggregateBudget() {
        int sum = immediate.isEmpty() ? 0 : 1;
        for (ComputeSlot s : slots) {
            if (s.lvProcess() instanceof ProcessImpl p) {
                sum += p.lvWakeBudget();
            }
        }
        return sum;
    }

    @Override
    public ExecutorStats stats() {
        List<ExecutorStats.WorkerStats> ws = new ArrayList<>(workers.length);
        for (Worker w : workers) {
            ws.add(new ExecutorStats.WorkerStats(w.workerIndex(), w.stateName(), w.lpDrains(), w.lpParks(),
                    w.lpWakes(), w.lpScans(), w.lpCompleted()));
        }
        int occupied = 0;
        for (ComputeSlot s : slots) {
            if (s.lvProcess() instanceof ProcessImpl) {
                occupied++;
            }
        }
        return new ExecutorStats(name, scanPolicy, aggregateBudget(), occupied, live.count(), ws);
    }

    /** Sum of the workers' idle-spin polls (each after a yield); for tests. */
    long spinYields() {
        long n = 0;
        for (Worker w : workers) {
            n += w.lpSpinYields();
        }
        return n;
    }

    /** Sum of the workers' linger polls (each after a yield); for tests. */
    long lingerPolls() {
        long n = 0;
        for (Worker w : workers) {
            n += w.lpLingerPolls();
        }
        return n;
    }

    // ---- process registry -------------------------------------------------------------------

    void register(ProcessImpl p) {
        if (lvRunState() != RUNNING) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "executor '" + name + "' is shut down; cannot create process '" + p.name() + "'");
        }
        if (p.scope != null) {
            // before the process is live: whoever completes it (a worker, or shutdown's cancel
            // below or in shutdown()) balances this, never before it
            p.scope.onProcessCreated();
        }
        live.add(p);
        // Re-check after publishing (the list's CAS is volatile): shutdown sets the state, then
        // snapshots the list, so either it sees p or we see the new state. Both may; terminate's
        // state CAS completes the process exactly once, so its scope is counted down once.
        if (lvRunState() != RUNNING) {
            p.terminate(new StatusException(StatusCode.CANCELLED, "executor '" + name + "' is shutting down"),
                    ProcessImpl.STATE_CANCELLED);
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "executor '" + name + "' is shut down; cannot create process '" + p.name() + "'");
        }
    }

    /** Throws FAILED_PRECONDITION naming {@code p} unless the executor is running (re-arm's first check). */
    void checkRunning(ProcessImpl p) {
        if (lvRunState() != RUNNING) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "executor '" + name + "' is shut down; cannot re-arm process '" + p.name() + "'");
        }
    }

    /**
     * Makes a re-armed process (already SUSPENDED, its fields reset) live again. Then the same
     * Dekker re-check as {@link #register}: either shutdown's snapshot sees the process live and
     * cancels it, or this sees the new run state and cancels it here; either way the run that
     * the re-arm started completes exactly once (terminate's state CAS decides which).
     */
    void rearmed(ProcessImpl p) {
        live.revive(p);
        if (lvRunState() != RUNNING) {
            p.terminate(new StatusException(StatusCode.CANCELLED, "executor '" + name + "' is shutting down"),
                    ProcessImpl.STATE_CANCELLED);
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "executor '" + name + "' is shut down; re-armed process '" + p.name() + "' was cancelled");
        }
    }

    // ---- scheduling -------------------------------------------------------------------------

    /**
     * IREE's {@code schedule_process}. {@code force} schedules terminal processes too (used by
     * cancellation to wake a sleeping process so a worker completes it).
     */
    void schedule(ProcessImpl p, boolean force) {
        schedule(p, force, null);
    }

    /**
     * As {@link #schedule(ProcessImpl, boolean)}. When {@code completer} (the worker that just
     * completed the process activating {@code p}) is given and {@code p} goes to the immediate
     * list, the worker may keep it as its hand-off instead: it drains {@code p} next, right after
     * the completion, with no list push and no wake-up of another worker (a chain of dependent
     * budget-1 processes then runs back to back on one worker, as a continuation would). The
     * process is in the same QUEUED state as on the list, so {@code schedule} and
     * {@code cancel} behave the same while it waits.
     */
    void schedule(ProcessImpl p, boolean force, Worker completer) {
        if (!force && p.lvState() >= ProcessImpl.STATE_COMPLETED) {
            return;  // stale wake of a finished process
        }
        if (lvRunState() == TERMINATED) {
            cancelAfterTermination(p);
            return;
        }
        int budget = p.lvWakeBudget();
        // Volatile store, then volatile CAS of the schedule state: Dekker pair with the worker's
        // volatile IDLE store followed by its needs-drain load (Worker.drainImmediate and
        // releaseSlot). One of the two always sees the other.
        p.svNeedsDrain(1);
        if (!p.usesComputeSlots(budget)) {
            if (p.casScheduleState(ProcessImpl.SCHED_IDLE, ProcessImpl.SCHED_QUEUED)) {
                if (completer == null || !completer.offerHandoff(p)) {
                    immediate.push(p);
                    wakeWorkers(1);
                }
            }
        } else {
            if (p.casScheduleState(ProcessImpl.SCHED_IDLE, ProcessImpl.SCHED_DRAINING)) {
                p.svNeedsDrain(0);  // this placement consumes the activation
                placeOrOverflow(p);
            }
            wakeWorkers(budget);
        }
        if (lvRunState() == TERMINATED) {
            sweep();  // raced with termination: nobody else will pick it up
        }
    }

    /**
     * True if a process waits on the immediate list or sits in a compute slot (a snapshot): the
     * test a worker at the end of a hand-off run uses to decide whether to yield the chain.
     */
    boolean hasWaitingWork() {
        if (!immediate.isEmpty()) {
            return true;
        }
        for (ComputeSlot s : slots) {
            if (s.lvProcess() != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether compute slot {@code slotIndex} holds the only work there is: no other slot occupied,
     * nothing on the immediate list, no wake demand to relay (a snapshot; volatile reads only).
     */
    boolean isAlone(int slotIndex) {
        return lvSlotMask() == 1L << slotIndex && immediate.isEmpty() && (int) DESIRED_WAKE.getVolatile(this) == 0;
    }

    /** Puts a QUEUED process a worker held as its hand-off on the immediate list. */
    void requeue(ProcessImpl p) {
        immediate.push(p);
        wakeWorkers(1);
    }

    /** Places into a free slot; otherwise parks on the overflow list until a slot frees up. */
    private void placeOrOverflow(ProcessImpl p) {
        if (tryPlace(p)) {
            return;
        }
        overflow.push(p);
        // Dekker with releaseSlot (slot cleared, then overflow checked): re-check for a free slot.
        promoteOverflow();
    }

    /** IREE {@code try_place_in_compute_slot}: reserve by CAS, publish epoch, publish process. */
    boolean tryPlace(ProcessImpl p) {
        for (int i = 0; i < slots.length; i++) {
            ComputeSlot slot = slots[i];
            if (slot.lvProcess() == null && slot.casProcessFromEmpty(ComputeSlot.RESERVED)) {
                int epoch = p.incrementPlacementEpoch();
                slot.soPlacementEpoch(epoch);  // release: ordered before the process store below
                slot.soProcess(p);  // release: pairs with the scanner's acquire in Worker.drainSlot
                // volatile RMW, before the version bump: a scanner that sees the new version
                // reads the mask afterwards and finds the bit (pairs with lvSlotMask)
                SLOT_MASK.getAndBitwiseOr(this, 1L << i);
                SLOT_VERSION.getAndAdd(this, 1);  // volatile RMW: idle workers' re-check sees it
                return true;
            }
        }
        return false;
    }

    private void promoteOverflow() {
        while (!overflow.isEmpty()) {
            ProcessImpl o = overflow.pop();
            if (o == null) {
                // Another thread holds the consumer role or a push is mid-flight; both finish
                // within a few instructions and the holder re-checks after us.
                Thread.onSpinWait();
                continue;
            }
            if (!tryPlace(o)) {
                overflow.push(o);
                // Dekker with releaseSlot (slot cleared, then overflow checked): a slot freed
                // after our failed scan either finds o back on the list or is found here.
                if (!anySlotFree()) {
                    return;
                }
                continue;
            }
            wakeWorkers(o.lvWakeBudget());
        }
    }

    /**
     * After a push to the overflow list. The volatile version read comes after that push's
     * getAndSet in the synchronization order whenever the releaser's overflow check missed it, so
     * it sees the releaser's version bump, and with it the slot clear stored before the bump.
     * A version change during the scan (a release or placement finished) also means "look again".
     */
    private boolean anySlotFree() {
        int version = lvSlotVersion();
        for (ComputeSlot slot : slots) {
            if (slot.lvProcess() == null) {
                return true;
            }
        }
        return lvSlotVersion() != version;
    }

    /** Last-drainer release attempt (IREE {@code try_release_compute_process}). */
    void tryReleaseSlot(ComputeSlot slot, ProcessImpl p, long emptyGeneration, int epoch, boolean terminal) {
        if (slot.lvActiveDrainers() != emptyGeneration || slot.lvPlacementEpoch() != epoch) {
            return;  // a newer drainer entered, or the slot already belongs to a newer lifetime
        }
        long sentinel = emptyGeneration | ComputeSlot.SENTINEL;
        if (slot.casActiveDrainers(emptyGeneration, sentinel)) {
            releaseSlot(slot, p, sentinel, terminal);
        }
    }

    private void releaseSlot(ComputeSlot slot, ProcessImpl p, long sentinel, boolean terminal) {
        int releaseEpoch = slot.lvPlacementEpoch();
        boolean isTerminal = terminal || p.isTerminal();
        slot.soPlacementEpoch(0);  // release: stale scanners reject the slot by epoch
        // volatile RMW before the slot is emptied: a placement into this slot (possible as soon
        // as it reads null below) sets the bit after this clear, never before it
        SLOT_MASK.getAndBitwiseAnd(this, ~(1L << slot.index));
        slot.soProcess(null);  // release: no new scanner passes the quick check
        long nextGeneration = (sentinel & ~ComputeSlot.COUNT_MASK) + ComputeSlot.GEN_INCREMENT;
        // Scanners that raced in see the sentinel and back out; wait for their decrements.
        while (!slot.casActiveDrainers(sentinel, nextGeneration)) {
            Thread.onSpinWait();
        }
        SLOT_VERSION.getAndAdd(this, 1);  // volatile RMW: scan tables rebuild
        promoteOverflow();
        if (slot.lvProcess() instanceof ProcessImpl placed) {
            // Placed during the release window: workers woken for it may have bailed on the sentinel.
            wakeWorkers(placed.lvWakeBudget());
        }
        if (releaseEpoch != p.lvPlacementEpoch()) {
            return;  // a newer placement owns the process's scheduling state
        }
        if (!isTerminal) {
            p.svScheduleState(ProcessImpl.SCHED_IDLE);  // Dekker pair with schedule (see there)
            if (releaseEpoch != p.lvPlacementEpoch()) {
                return;
            }
            if (p.lvNeedsDrain() != 0
                    && p.casScheduleState(ProcessImpl.SCHED_IDLE, ProcessImpl.SCHED_DRAINING)) {
                placeOrOverflow(p);
                wakeWorkers(p.lvWakeBudget());
            }
            return;
        }
        p.runRelease();
    }

    // ---- waking -----------------------------------------------------------------------------

    /**
     * Wakes up to {@code count} workers: posts directly to a few idle workers and leaves the rest
     * of the demand in {@code desiredWake} for the woken workers to relay (wake tree).
     */
    void wakeWorkers(int count) {
        if (count > 0 && claimLingerer()) {
            if (--count == 0) {
                return;  // the lingering worker takes the work: nobody to unpark
            }
        }
        int remaining = count;
        int direct = Math.min(count, Tuning.DIRECT_WAKE_LIMIT);
        while (direct-- > 0) {
            int target = idleMask.claimIdle(-1);
            if (target < 0) {
                break;
            }
            post(target);
            remaining--;
        }
        if (remaining > 0 && remaining < count) {
            // Someone was idle, so more may be: relay. If nobody was idle every worker is
            // active and will see the new work on its next scan, so nothing to relay.
            DESIRED_WAKE.getAndAdd(this, remaining);  // volatile RMW: pairs with claimDesiredWake
        }
    }

    /**
     * Claims the lingering worker, if one is lingering: it will scan again (never park without
     * scanning), so it counts as one woken worker. Volatile read, then CAS 1 → 0: the CAS comes
     * after the caller published its work, and the lingerer that finds the token taken (its own
     * CAS fails) scans after that, so it sees the work. See {@code Worker.linger}.
     */
    private boolean claimLingerer() {
        return (int) LINGERING.getVolatile(this) == 1 && LINGERING.compareAndSet(this, 1, 0);
    }

    /** A worker that just finished work tries to take the linger token (at most one lingers). */
    boolean tryStartLinger() {
        return lingerNanos > 0 && (int) LINGERING.getVolatile(this) == 0 && LINGERING.compareAndSet(this, 0, 1);
    }

    /** Whether the lingerer's token is still unclaimed (a hint; the decision is {@link #endLinger}). */
    boolean lingerUnclaimed() {
        return (int) LINGERING.getVolatile(this) == 1;
    }

    /**
     * The lingerer gives the token back. Returns true if it was unclaimed (nobody counted on the
     * lingerer: it may go on to park), false if a scheduler claimed it (it must scan).
     */
    boolean endLinger() {
        return LINGERING.compareAndSet(this, 1, 0);
    }

    /** How long a worker that just finished work spins for more before its idle path (0: never). */
    long lingerNanos() {
        return lingerNanos;
    }

    /** Whether {@link #lingerNanos} is an adaptive window (see {@code Worker.linger}). */
    boolean adaptiveLinger() {
        return adaptiveLinger;
    }

    void post(int target) {
        LockSupport.unpark(workers[target].thread);
    }

    /** Claims up to {@link Tuning#WAKE_FANOUT} of the desired wake count (CAS loop). */
    int claimDesiredWake() {
        int desired = (int) DESIRED_WAKE.getVolatile(this);
        while (desired > 0) {
            int claim = Math.min(desired, Tuning.WAKE_FANOUT);
            int seen = (int) DESIRED_WAKE.compareAndExchange(this, desired, desired - claim);
            if (seen == desired) {
                return claim;
            }
            desired = seen;
        }
        return 0;
    }

    /** The idle worker's Dekker re-check: immediate work, a new slot, relay demand, or exit. */
    boolean hasNewWork(int seenSlotVersion) {
        return !immediate.isEmpty()
                || lvSlotVersion() != seenSlotVersion
                || (int) DESIRED_WAKE.getVolatile(this) > 0
                || exitRequested;
    }

    /** Adaptive spin: the base time, scaled up while demand exceeds the active workers. */
    long spinNanosFor() {
        if (spinNanos == 0) {
            return 0;
        }
        int active = Math.max(1, workers.length - idleMask.idleCount());
        int scale = Math.clamp(aggregateBudget() / active, 1, Tuning.MAX_SPIN_SCALE);
        return spinNanos * scale;
    }

    // ---- completion outside workers and shutdown --------------------------------------------

    /** Completes a cancelled, never-activated process on the calling thread. */
    void completeDetached(ProcessImpl p) {
        p.runCompletion(null);
        p.runRelease();
    }

    private void cancelAfterTermination(ProcessImpl p) {
        p.terminate(new StatusException(StatusCode.CANCELLED, "executor '" + name + "' is shut down"),
                ProcessImpl.STATE_CANCELLED);
        if (p.casScheduleState(ProcessImpl.SCHED_IDLE, ProcessImpl.SCHED_QUEUED)) {
            immediate.push(p);
        }
        sweep();
    }

    /**
     * After termination, completes whatever is left on the run lists on the calling thread
     * (the sweeper cancels instead of draining). Claimed by CAS so it never recurses.
     */
    private void sweep() {
        do {
            if (!SWEEP_CLAIM.compareAndSet(this, 0, 1)) {
                return;  // the holder loops until the lists are empty
            }
            try {
                boolean progress = true;
                while (progress) {
                    progress = false;
                    while (sweeper.drainImmediate()) {
                        progress = true;
                    }
                    while (sweeper.drainComputeSlots()) {
                        progress = true;
                    }
                    ProcessImpl o;
                    while ((o = overflow.pop()) != null) {
                        progress = true;
                        if (!tryPlace(o)) {
                            overflow.push(o);
                            break;
                        }
                    }
                }
            } finally {
                SWEEP_CLAIM.setVolatile(this, 0);  // volatile: pairs with the re-check below
            }
        } while (!immediate.isEmpty() || !overflow.isEmpty());
    }

    @Override
    public boolean shutdown(Duration timeout) {
        for (Worker w : workers) {
            if (w.thread == Thread.currentThread()) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION,
                        "executor '" + name + "' cannot be shut down from its own worker " + w.workerIndex());
            }
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        if (runState == RUNNING) {
            runState = SHUTTING_DOWN;  // volatile: register() re-checks after adding to live
        }
        for (ProcessImpl p : live.snapshot()) {
            p.terminate(new StatusException(StatusCode.CANCELLED, "executor '" + name + "' is shutting down"),
                    ProcessImpl.STATE_CANCELLED);
        }
        while (live.count() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
        }
        runState = TERMINATED;  // volatile: later schedules complete on the caller
        exitRequested = true;  // volatile: pairs with lvExitRequested in the worker loop
        for (Worker w : workers) {
            LockSupport.unpark(w.thread);
        }
        boolean joined = true;
        for (Worker w : workers) {
            long left = deadline - System.nanoTime();
            try {
                w.thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            joined &= !w.thread.isAlive();
        }
        sweep();
        // A build racing this shutdown may have listed its process after the wait above; its
        // re-check in register() cancels it on the building thread, so give it the time left.
        while (live.count() > 0 && System.nanoTime() - deadline < 0) {
            LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
            sweep();
        }
        int left = live.count();
        boolean clean = joined && left == 0;
        if (!clean) {
            LOG.warn("executor '{}' shutdown incomplete: {} live processes, workers joined={}",
                    name, left, joined);
        }
        return clean;
    }

    @Override
    public void close() {
        shutdown(Duration.ofSeconds(10));
    }

    @Override
    public String toString() {
        return "Executor[" + name + ", workers=" + workers.length + "]";
    }
}
