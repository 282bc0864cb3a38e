package dev.ortho.task.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Process;
import dev.ortho.task.WorkerContext;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.function.IntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's process. Lifecycle state (suspend count, state, first error, completion claim)
 * and scheduling state (wake budget, schedule state, needs-drain, placement epoch) are separate
 * field groups, unpadded; see {@link ProcessFields}. All mutable shared fields are accessed through
 * the VarHandles below with accessors named by memory order.
 */
public final class ProcessImpl extends ProcessScheduleFields implements Process {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessImpl.class);

    static final int STATE_SUSPENDED = 0;
    static final int STATE_RUNNABLE = 1;
    static final int STATE_COMPLETED = 2;
    static final int STATE_CANCELLED = 3;
    /** The state's low bits ({@code STATE_*}); above them, {@link #CLAIMED}. */
    private static final int STATE_MASK = 3;
    /**
     * Set in the state word by the one thread that wins the completion claim, in the same CAS
     * that moves RUNNABLE to COMPLETED: one atomic instead of a claim flag and a state CAS.
     */
    private static final int CLAIMED = 4;
    /**
     * Reusable processes only: set in the state word (volatile RMW) when the run's release
     * starts, after which the executor no longer touches the process; {@link #rearm} requires it.
     */
    private static final int RELEASED = 8;

    /** {@code retired}: registered, completion not yet finished. */
    static final int LIVE = 0;
    /** {@code retired}: completion finished; still linked in the live list. */
    static final int RETIRED = 1;
    /** {@code retired}, reusable processes only: the pruner is unlinking it (under its walk claim). */
    static final int UNLINKING = 2;
    /** {@code retired}, reusable processes only: unlinked; a re-arm must register it again. */
    static final int UNLINKED = 3;

    /** Not on any run list (IREE SCHEDULE_IDLE). */
    static final int SCHED_IDLE = 0;
    /** On the immediate list (IREE SCHEDULE_QUEUED). */
    static final int SCHED_QUEUED = 1;
    /** Held by a draining worker or placed in a compute slot (IREE SCHEDULE_DRAINING). */
    static final int SCHED_DRAINING = 2;

    private static final VarHandle SUSPEND_COUNT;
    private static final VarHandle STATE;
    private static final VarHandle ERROR;
    private static final VarHandle WAKE_BUDGET;
    private static final VarHandle SCHEDULE_STATE;
    private static final VarHandle NEEDS_DRAIN;
    private static final VarHandle PLACEMENT_EPOCH;
    private static final VarHandle NEXT;
    private static final VarHandle LIVE_NEXT;
    private static final VarHandle RETIRED_WORD;
    private static final VarHandle FIRST_DEPENDENT;
    private static final VarHandle ARMED = MethodHandles.arrayElementVarHandle(int[].class);
    private static final int ARMED_COUNT = 0;
    private static final int ARMED_BUDGET = 1;
    /**
     * Stored into {@code error} by a successful completion so that a later {@code casError}
     * (cancel, fail, a drain failure) loses: the outcome the completion callback saw is final.
     * Never visible outside: {@link #lvError} reports it as null.
     */
    private static final StatusException SUCCEEDED =
            new StatusException(StatusCode.UNKNOWN, "process completed without error");

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            SUSPEND_COUNT = l.findVarHandle(ProcessActivationFields.class, "suspendCount", int.class);
            STATE = l.findVarHandle(ProcessActivationFields.class, "state", int.class);
            ERROR = l.findVarHandle(ProcessActivationFields.class, "error", StatusException.class);
            WAKE_BUDGET = l.findVarHandle(ProcessScheduleFields.class, "wakeBudget", int.class);
            SCHEDULE_STATE = l.findVarHandle(ProcessScheduleFields.class, "scheduleState", int.class);
            NEEDS_DRAIN = l.findVarHandle(ProcessScheduleFields.class, "needsDrain", int.class);
            PLACEMENT_EPOCH = l.findVarHandle(ProcessScheduleFields.class, "placementEpoch", int.class);
            NEXT = l.findVarHandle(ProcessScheduleFields.class, "next", ProcessImpl.class);
            LIVE_NEXT = l.findVarHandle(ProcessColdFields.class, "liveNext", ProcessImpl.class);
            RETIRED_WORD = l.findVarHandle(ProcessActivationFields.class, "retired", int.class);
            FIRST_DEPENDENT = l.findVarHandle(ProcessColdFields.class, "firstDependent", ProcessImpl.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** A list stub: never scheduled, never drained. */
    ProcessImpl(String stubName) {
        this.name = stubName;
    }

    /** A stub marked reusable, for the live list's tests (never scheduled, never drained). */
    static ProcessImpl reusableStub(String stubName) {
        ProcessImpl p = new ProcessImpl(stubName);
        p.armed = new int[] {0, 1};
        return p;
    }

    /** Built with {@code reusable()}. */
    boolean isReusable() {
        return armed != null;
    }

    ProcessImpl(ProcessBuilderImpl b) {
        this.executor = b.executor;
        this.name = b.name;
        this.drain = b.drain;
        this.completionCallback = b.completionCallback;
        this.releaseCallback = b.releaseCallback;
        this.scope = b.scope;
        this.priority = b.priority;
        this.computeSlotFlag = b.computeSlot;
        this.fixedBudget = b.fixedBudget;
        if (b.workerStateFactory != null) {
            Object[] states = new Object[executor.workerCount() + 1];
            states[states.length - 1] = b.workerStateFactory;
            this.workerStates = states;
        }
        if (b.reusable) {
            this.armed = new int[] {b.suspendCount, b.wakeBudget};
        }
        // Plain initial stores: the process is published to other threads only through the
        // executor's live list (a CAS) or by the caller handing it over.
        SUSPEND_COUNT.set(this, b.suspendCount);
        WAKE_BUDGET.set(this, b.wakeBudget);
    }

    // ---- accessors named by memory order ---------------------------------------------------

    int lvSuspendCount() {
        return (int) SUSPEND_COUNT.getVolatile(this);
    }

    /** The lifecycle state ({@code STATE_*}), without the completion-claim bit. */
    int lvState() {
        return (int) STATE.getVolatile(this) & STATE_MASK;
    }

    /** Fails once the completion is claimed: every transition happens before the claim. */
    boolean casState(int expect, int update) {
        return STATE.compareAndSet(this, expect, update);
    }

    StatusException lvError() {
        StatusException e = (StatusException) ERROR.getVolatile(this);
        return e == SUCCEEDED ? null : e;
    }

    /** First error wins; the CAS (volatile) publishes the exception to every later reader. */
    boolean casError(StatusException update) {
        return ERROR.compareAndSet(this, (StatusException) null, update);
    }

    int lvWakeBudget() {
        return (int) WAKE_BUDGET.getVolatile(this);
    }

    int lvScheduleState() {
        return (int) SCHEDULE_STATE.getVolatile(this);
    }

    /** Volatile (seq-cst) store: one half of the sleep/wake Dekker pair with {@link #svNeedsDrain}. */
    void svScheduleState(int value) {
        SCHEDULE_STATE.setVolatile(this, value);
    }

    boolean casScheduleState(int expect, int update) {
        return SCHEDULE_STATE.compareAndSet(this, expect, update);
    }

    /** Volatile (seq-cst) store: the scheduler's half of the sleep/wake Dekker pair. */
    void svNeedsDrain(int value) {
        NEEDS_DRAIN.setVolatile(this, value);
    }

    int lvNeedsDrain() {
        return (int) NEEDS_DRAIN.getVolatile(this);
    }

    /** Consumes a pending needs-drain signal; pairs with {@link #svNeedsDrain} in schedule. */
    boolean xchgNeedsDrain() {
        return (int) NEEDS_DRAIN.getAndSet(this, 0) != 0;
    }

    int lvPlacementEpoch() {
        return (int) PLACEMENT_EPOCH.getVolatile(this);
    }

    /** Advances the placement epoch; the slot publishes it afterwards with a release store. */
    int incrementPlacementEpoch() {
        return (int) PLACEMENT_EPOCH.getAndAdd(this, 1) + 1;
    }

    ProcessImpl lvNext() {
        return (ProcessImpl) NEXT.getVolatile(this);
    }

    /** Release store: pairs with the acquire in {@link #lvNext} of the list consumer. */
    void soNext(ProcessImpl value) {
        NEXT.setRelease(this, value);
    }

    /** Plain store: only before the node is published by the list's getAndSet. */
    void spNext(ProcessImpl value) {
        NEXT.set(this, value);
    }

    /** Plain store: only before the process is published by the live list's CAS. */
    void spLiveNext(ProcessImpl value) {
        LIVE_NEXT.set(this, value);
    }

    /** Acquire load; pairs with {@link #soLiveNext} under the live list's walk claim. */
    ProcessImpl lvLiveNext() {
        return (ProcessImpl) LIVE_NEXT.getAcquire(this);
    }

    /** Release store by the live list's pruner (under its walk claim). */
    void soLiveNext(ProcessImpl value) {
        LIVE_NEXT.setRelease(this, value);
    }

    /**
     * Release store of {@link #RETIRED}: the completion has fully run; pairs with
     * {@link #lvRetired} in LiveList. Only the completing thread moves the word away from
     * {@link #LIVE}, so a plain store suffices even for reusable processes.
     */
    void soRetired() {
        RETIRED_WORD.setRelease(this, RETIRED);
    }

    /**
     * True unless {@link #LIVE}. Volatile: in {@code LiveList.snapshot} it is shutdown's half of
     * the Dekker pair with a registration or re-arm (which makes the process live, then reads
     * the executor's run state).
     */
    boolean lvRetired() {
        return (int) RETIRED_WORD.getVolatile(this) != LIVE;
    }

    /** The raw live-list membership word ({@link #LIVE} … {@link #UNLINKED}). */
    int lvRetiredWord() {
        return (int) RETIRED_WORD.getVolatile(this);
    }

    /** CAS of the membership word: the pruner's RETIRED → UNLINKING and re-arm's RETIRED → LIVE race. */
    boolean casRetired(int expect, int update) {
        return RETIRED_WORD.compareAndSet(this, expect, update);
    }

    /** Release store of the membership word (the pruner's UNLINKED; re-arm's LIVE before its re-registration). */
    void soRetiredWord(int value) {
        RETIRED_WORD.setRelease(this, value);
    }

    // ---- public API -------------------------------------------------------------------------

    @Override
    public String name() {
        return name;
    }

    @Override
    public State state() {
        return State.values()[lvState()];
    }

    @Override
    public boolean isTerminal() {
        return lvState() >= STATE_COMPLETED;
    }

    @Override
    public int suspendCount() {
        return lvSuspendCount();
    }

    @Override
    public StatusException error() {
        return lvError();
    }

    @Override
    public int wakeBudget() {
        return lvWakeBudget();
    }

    @Override
    public void setWakeBudget(int budget) {
        if (budget < 1) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "wake budget " + budget + " of process '" + name + "' is below 1");
        }
        if (fixedBudget && budget != 1) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "wake budget of queue process '" + name + "' is fixed at 1, cannot set " + budget);
        }
        // getAndSet (volatile): readers are the wake logic and scanners, which only need a hint.
        int old = (int) WAKE_BUDGET.getAndSet(this, budget);
        if (budget > old && lvScheduleState() == SCHED_DRAINING && usesComputeSlots(old)) {
            executor.wakeWorkers(budget - old);
        }
    }

    @Override
    public void addDependent(Process dependent) {
        if (!(dependent instanceof ProcessImpl d) || d.executor != executor) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "dependent of process '" + name + "' belongs to another executor");
        }
        if (d == this) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "process '" + name + "' cannot depend on itself");
        }
        if (lvState() != STATE_SUSPENDED || lvScheduleState() != SCHED_IDLE) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "process '" + name + "' already started; add dependents before scheduling it");
        }
        if (d.lvState() != STATE_SUSPENDED) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "dependent '" + d.name + "' is already " + d.state());
        }
        // acq_rel: the dependent may be signalled concurrently by another upstream process.
        SUSPEND_COUNT.getAndAdd(d, 1);
        int[] dArmed = d.armed;
        if (dArmed != null) {
            ARMED.getAndAdd(dArmed, ARMED_COUNT, 1);  // atomic: edges may be added from several threads
        }
        // The first edge takes one CAS and no lock (a chain has one dependent per process);
        // concurrent callers that lose it append under the monitor. Completion reads both after
        // the schedule that must follow every addDependent (see the contract), which orders them.
        if (FIRST_DEPENDENT.compareAndSet(this, (ProcessImpl) null, d)) {
            return;
        }
        synchronized (this) {
            if (moreDependents == null) {
                moreDependents = new ProcessImpl[4];
            } else if (moreDependentCount == moreDependents.length) {
                moreDependents = Arrays.copyOf(moreDependents, moreDependentCount * 2);
            }
            moreDependents[moreDependentCount++] = d;
        }
    }

    @Override
    public void signal() {
        if (!signalInternal()) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "process '" + name + "' has no suspension to remove");
        }
    }

    /**
     * Removes one suspension; returns false if the count was already zero. acq_rel fetch-sub:
     * the release publishes this signaller's writes, the acquire (on the thread reaching zero)
     * sees every earlier signaller's writes; the scan's acquire of the list/slot then hands them
     * to the draining worker (seed "suspension and wake ordering").
     */
    boolean signalInternal() {
        return signalInternal(null);
    }

    /**
     * As {@link #signalInternal()}; {@code completer} is the worker whose completion of an
     * upstream process sends this signal (null elsewhere), which may take an activated budget-1
     * process over directly instead of queueing it (see {@link ExecutorImpl#schedule}).
     */
    boolean signalInternal(Worker completer) {
        int old;
        do {
            old = lvSuspendCount();
            if (old <= 0) {
                return false;
            }
        } while (!SUSPEND_COUNT.compareAndSet(this, old, old - 1));
        if (old == 1 && casState(STATE_SUSPENDED, STATE_RUNNABLE)) {
            executor.schedule(this, false, completer);
        }
        return true;
    }

    @Override
    public void schedule() {
        if (lvSuspendCount() != 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "process '" + name + "' is suspended (count " + lvSuspendCount() + ")");
        }
        if (lvState() == STATE_SUSPENDED) {
            // Activation of a count-zero process; losing the CAS means someone else activated it.
            casState(STATE_SUSPENDED, STATE_RUNNABLE);
        }
        executor.schedule(this, false);
    }

    /**
     * {@link #schedule()} for a process that may still be suspended: does nothing while the
     * suspend count is above zero (the signal that activates it schedules it). Used by
     * {@link QueueProcessImpl} after it queued an item.
     */
    void wakeIfActivated() {
        if (lvSuspendCount() != 0) {
            return;
        }
        if (lvState() == STATE_SUSPENDED) {
            casState(STATE_SUSPENDED, STATE_RUNNABLE);
        }
        executor.schedule(this, false);
    }

    @Override
    public void cancel() {
        terminate(new StatusException(StatusCode.CANCELLED, "process '" + name + "' was cancelled"),
                STATE_CANCELLED);
    }

    @Override
    public void fail(StatusException e) {
        terminate(e, STATE_COMPLETED);
    }

    /**
     * Records {@code e} (first error wins) and moves the process to {@code terminalState}.
     * A suspended process is completed here; a runnable one is (re)scheduled so a worker
     * completes it, waking it if it was sleeping.
     */
    void terminate(StatusException e, int terminalState) {
        casError(e);
        while (true) {
            int s = lvState();
            if (s >= STATE_COMPLETED) {
                return;
            }
            if (casState(s, terminalState)) {
                if (s == STATE_SUSPENDED) {
                    // No worker will ever see it: complete inline (IREE process_cancel).
                    if (tryClaimCompletion()) {
                        executor.completeDetached(this);
                    }
                } else {
                    executor.schedule(this, true);
                }
                return;
            }
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public <S> S workerState(WorkerContext worker) {
        if (workerStates == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "process '" + name + "' was built without a worker-state factory");
        }
        int i = worker.workerIndex();
        Object s = workerStates[i];  // plain: element i is only ever touched by worker i
        if (s == null) {
            s = ((IntFunction<?>) workerStates[workerStates.length - 1]).apply(i);
            workerStates[i] = s;
        }
        return (S) s;
    }

    @Override
    public void rearm() {
        int[] a = armed;
        if (a == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "process '" + name + "' was not built reusable; it runs once");
        }
        int s = (int) STATE.getVolatile(this);  // acquire: pairs with the RELEASED RMW in runRelease
        if ((s & RELEASED) == 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "process '" + name + "' cannot be re-armed before its run is released (state "
                            + State.values()[s & STATE_MASK] + ")");
        }
        executor.checkRunning(this);
        // The run is over: no list, slot, worker or hand-off refers to the process, and only its
        // owner acts on it (contract), so plain stores. They are published by the membership
        // update in executor.rearmed (a CAS; the state store comes before it), which a worker
        // that later gets the process (through a schedule that follows) or shutdown's snapshot
        // (a volatile read of the word) reads first.
        ERROR.set(this, (StatusException) null);
        SUSPEND_COUNT.set(this, a[ARMED_COUNT]);
        WAKE_BUDGET.set(this, a[ARMED_BUDGET]);
        SCHEDULE_STATE.set(this, SCHED_IDLE);
        NEEDS_DRAIN.set(this, 0);
        if (scope != null) {
            scope.onProcessCreated();  // before it is live: a shutdown cancel's onProcessDone balances it
        }
        // release: ordered before the membership CAS in rearmed, whose readers (shutdown's
        // snapshot, a later schedule) then see SUSPENDED and the resets above
        STATE.setRelease(this, STATE_SUSPENDED);
        executor.rearmed(this);
    }

    // ---- executor-side helpers --------------------------------------------------------------

    boolean usesComputeSlots(int budget) {
        return budget > 1 || computeSlotFlag;
    }

    /** True when workers must not call drain: terminal, failed, or its scope was aborted. */
    boolean shouldBail() {
        if (lvState() >= STATE_COMPLETED || lvError() != null) {
            return true;
        }
        ScopeImpl s = scope;
        if (s != null && s.lvAborted()) {
            casError(s.firstError());
            return true;
        }
        return false;
    }

    /**
     * Exactly-once completion guard: sets {@link #CLAIMED} and, if the process is still
     * RUNNABLE, moves it to COMPLETED in the same CAS, or to CANCELLED when the error recorded is
     * a cancellation (a cancel records its error before it moves the state, so a worker that bailed
     * on that error can claim in between; the process must still read CANCELLED). A cancelled or
     * failed process keeps its terminal state. The CAS orders the claim after everything the
     * winner saw.
     */
    boolean tryClaimCompletion() {
        int s;
        int terminal;
        do {
            s = (int) STATE.getVolatile(this);
            if ((s & CLAIMED) != 0) {
                return false;
            }
            terminal = s;
            if (s < STATE_COMPLETED) {
                StatusException e = lvError();
                terminal = e != null && e.code() == StatusCode.CANCELLED ? STATE_CANCELLED : STATE_COMPLETED;
            }
        } while (!STATE.compareAndSet(this, s, terminal | CLAIMED));
        return true;
    }

    /**
     * Runs the completion path; the caller holds the completion claim (which made the process
     * terminal). Calls the completion callback, passes an error to every dependent and signals
     * it, then tells the scope. {@code completer} is the worker running this (null on other
     * threads): the first budget-1 dependent it activates becomes its hand-off.
     */
    void runCompletion(Worker completer) {
        // Seal the outcome (CAS, first wins): either an error recorded before this point is
        // reported, or success is, and a racing cancel()/fail() can no longer change error()
        // after the callback was told (found by jcstress ProcessStress.SignalVsCancel).
        StatusException err = casError(SUCCEEDED) ? null : lvError();
        if (completionCallback != null) {
            try {
                completionCallback.onComplete(this, err);
            } catch (RuntimeException e) {
                LOG.warn("completion callback of process '{}' threw", name, e);
            }
        }
        ProcessImpl first = (ProcessImpl) FIRST_DEPENDENT.getAcquire(this);  // acquire: pairs with addDependent's CAS
        if (first != null) {
            signalDependent(first, err, completer);
            // Plain: every append happened before the schedule that led here. The array is
            // filled in order and null-terminated, so a read racing an append (a contract
            // violation) can only miss that dependent, never fail.
            ProcessImpl[] more = moreDependents;
            if (more != null) {
                for (ProcessImpl d : more) {
                    if (d == null) {
                        break;
                    }
                    signalDependent(d, err, completer);
                }
            }
        }
        if (scope != null) {
            scope.onProcessDone(err);
        }
        soRetired();  // last: shutdown waits for this, so callbacks and the scope have run
    }

    private static void signalDependent(ProcessImpl d, StatusException err, Worker completer) {
        if (err != null) {
            d.casError(err);
        }
        d.signalInternal(completer);
    }

    /**
     * Runs the release callback, if any. Called once per run, after the last drainer left. A
     * reusable process is marked {@link #RELEASED} first (volatile RMW: orders everything the
     * executor did with this run before a {@link #rearm} that sees the bit); nothing here
     * touches the process after that but the callback.
     */
    void runRelease() {
        if (armed != null) {
            STATE.getAndBitwiseOr(this, RELEASED);  // volatile RMW: pairs with rearm's state read
        }
        if (releaseCallback != null) {
            try {
                releaseCallback.onRelease(this);
            } catch (RuntimeException e) {
                LOG.warn("release callback of process '{}' threw", name, e);
            }
        }
    }

    /** Records an exception thrown by drain as the process's error (first wins). */
    void recordDrainFailure(RuntimeException e) {
        StatusException se = e instanceof StatusException s ? s
                : new StatusException(StatusCode.INTERNAL, "drain of process '" + name + "' threw " + e, e);
        casError(se);
        casState(STATE_RUNNABLE, STATE_COMPLETED);
    }

    @Override
    public String toString() {
        return "Process[" + name + ", " + state() + "]";
    }
}
