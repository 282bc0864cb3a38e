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
    IntFunction<?> workerStateFactory;
    /** Indexed by worker; element i written and read only by worker i. */
    Object[] workerStates;
    /** Written only while this process is SUSPENDED (before it can run), read at completion. */
    ProcessImpl[] dependents;
    int dependentCount;
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
}

abstract class ProcessPad2 extends ProcessActivationFields {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/** Line 2: scheduling state, written by drain functions and the scheduler (IREE line 2). */
abstract class ProcessScheduleFields extends ProcessPad2 {
    volatile int wakeBudget;
    volatile int scheduleState;
    volatile int needsDrain;
    volatile int placementEpoch;
}

abstract class ProcessPad3 extends ProcessScheduleFields {
    long p40, p41, p42, p43, p44, p45, p46, p47;
    long p50, p51, p52, p53, p54, p55, p56, p57;
}

/** Line 3: intrusive link for the immediate and overflow lists (IREE line 3). */
abstract class ProcessLinkFields extends ProcessPad3 {
    volatile ProcessImpl next;
}
