package dev.ortho.task.internal;

import dev.ortho.base.StatusException;
import dev.ortho.task.DrainFunction;
import dev.ortho.task.Process;
import java.util.function.IntFunction;

// Field groups of ProcessImpl, one cache line (plus adjacent-line prefetch) each, separated by
// padding superclasses (JCTools style; @Contended would need a JVM flag). The JVM lays out
// superclass fields first, so each group lands between two pads.

/** Line 0: written before activation, then read-only (IREE process cache line 0). */
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
    IntFunction<?> workerStateFactory;
    /** Indexed by worker; element i written and read only by worker i. */
    Object[] workerStates;
    /** Written only while this process is SUSPENDED (before it can run), read at completion. */
    ProcessImpl[] dependents;
    int dependentCount;
    /** The executor's live list (see LiveList): link and registration serial. */
    ProcessImpl liveNext;
    long liveSerial;
}

abstract class ProcessPad1 extends ProcessColdFields {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** Line 1: activation and completion, written by signalling threads (IREE line 1). */
abstract class ProcessActivationFields extends ProcessPad1 {
    volatile int suspendCount;
    volatile int state;
    volatile StatusException error;
    volatile int completionClaimed;
    /** Set once the completion path has run to its end (the live list then forgets it). */
    volatile int retired;
}

abstract class ProcessPad2 extends ProcessActivationFields {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/**
 * Line 2: scheduling state, written by drain functions and the scheduler (IREE line 2), and the
 * intrusive link of the immediate and overflow lists (IREE keeps it on a line 3). The link shares
 * this line because it changes hands in the same exchange: the scheduler writes the schedule
 * state and pushes, the consumer pops and writes the schedule state. As the last group it is not
 * padded after (nor was the separate link line): a separate line cost 128 bytes per process.
 */
abstract class ProcessScheduleFields extends ProcessPad2 {
    volatile int wakeBudget;
    volatile int scheduleState;
    volatile int needsDrain;
    volatile int placementEpoch;
    volatile ProcessImpl next;
}

