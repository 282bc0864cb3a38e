package dev.ortho.task.internal;

import dev.ortho.base.StatusException;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.Process;

// Field groups of ProcessImpl; the JVM lays out superclass fields first, so the groups follow
// each other in this order. There is no padding between them. The groups used to sit on lines
// of their own, separated by two 128-byte pads (JCTools style), which made a process ~370 bytes:
// every short-lived process paid for the pads in allocation and zeroing, and that was most of
// the time the dispatch-chain benchmark's thread spent building processes (bench/README.md,
// DispatchChainBenchmark, issue 18). The pads protected little: the activation fields are
// written a handful of times per process lifetime, and every drain reads the scheduling fields
// (placement epoch, needs-drain) that the other writers dirty, so the cold fields beside them
// come with a line the drainer loads anyway. Long-lived, hot processes (a QueueProcess, a
// command-buffer block processor) are few; TileOverheadBenchmark and ImmediateThroughputBenchmark
// were re-measured without the pads (same file).

/** Written before activation, then read-only (IREE process cache line 0). */
abstract class ProcessColdFields {
    ExecutorImpl executor;
    String name;
    DrainFunction drain;
    Process.CompletionCallback completionCallback;
    Process.ReleaseCallback releaseCallback;
    ScopeImpl scope;
    int priority;
    boolean computeSlotFlag;
    /** A queue process: the wake budget stays 1 (its drain state is single-consumer). */
    boolean fixedBudget;
    /**
     * Null unless built with {@code reusable()} ({@code rearm} may then start another run once
     * this one is released): {@code [ARMED_COUNT]} the suspend count a run starts with (the built
     * count plus one per {@code addDependent} edge targeting the process; edges are kept),
     * {@code [ARMED_BUDGET]} its wake budget. One reference rather than two ints (and the
     * worker-state factory folded into {@code workerStates}) keeps a one-shot process at 112
     * bytes, as before reusable processes (two ints made it 120).
     */
    int[] armed;
    /**
     * Null without a worker-state factory; else indexed by worker (element i written and read
     * only by worker i), with the factory in the last element (one field instead of two keeps a
     * process at 112 bytes).
     */
    Object[] workerStates;
    /**
     * The first dependent (set by CAS, so that a single {@code addDependent} takes no lock) and
     * any further ones (appended under the process's monitor, in order, null after the last).
     * Written only while this process is SUSPENDED (before it can run), read at completion.
     */
    volatile ProcessImpl firstDependent;
    ProcessImpl[] moreDependents;
    int moreDependentCount;
    /** The executor's live list (see LiveList): link and registration serial. */
    ProcessImpl liveNext;
    long liveSerial;
}

/** Activation and completion, written by signalling threads (IREE line 1). */
abstract class ProcessActivationFields extends ProcessColdFields {
    volatile int suspendCount;
    /** ProcessImpl.STATE_* in the low bits, plus the completion claim and released bits. */
    volatile int state;
    volatile StatusException error;
    /**
     * Live-list membership (ProcessImpl.LIVE, RETIRED, UNLINKING, UNLINKED): RETIRED once the
     * completion path has run to its end (the live list then forgets it); the last two only for
     * reusable processes, whose re-arm races the pruner (see LiveList).
     */
    volatile int retired;
}

/**
 * Scheduling state, written by drain functions and the scheduler (IREE line 2), and the
 * intrusive link of the immediate and overflow lists (IREE keeps it on a line 3): it changes
 * hands in the same exchange (the scheduler writes the schedule state and pushes, the consumer
 * pops and writes the schedule state).
 */
abstract class ProcessScheduleFields extends ProcessActivationFields {
    volatile int wakeBudget;
    volatile int scheduleState;
    volatile int needsDrain;
    volatile int placementEpoch;
    volatile ProcessImpl next;
}

