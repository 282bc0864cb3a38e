package dev.ortho.task.internal;

// Hot shared executor counters, each on its own cache-line pair (IREE executor_impl.h keeps
// desired_wake, the idle mask and the immediate list on separate lines for the same reason).

abstract class ExecutorPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p10, p11, p12, p13, p14, p15, p16, p17;
}

/** Wake-tree demand: added by schedulers, claimed by relaying workers. */
abstract class ExecutorDesiredWake extends ExecutorPad0 {
    volatile int desiredWake;
}

abstract class ExecutorPad1 extends ExecutorDesiredWake {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p30, p31, p32, p33, p34, p35, p36, p37;
}

/**
 * Bumped on every slot placement and release; idle workers compare it to detect new slots. Next
 * to it (written in the same operations, read by the same scanners) the occupancy mask: bit i
 * set while compute slot i holds a process.
 */
abstract class ExecutorSlotVersion extends ExecutorPad1 {
    volatile int slotVersion;
    volatile long slotMask;
}

abstract class ExecutorPad2 extends ExecutorSlotVersion {
    long p40, p41, p42, p43, p44, p45, p46, p47;
    long p50, p51, p52, p53, p54, p55, p56, p57;
}

/**
 * The linger token: 1 while a worker that just finished work spins for more and may be claimed by
 * a scheduler instead of waking a parked worker; 0 otherwise (see {@code Worker.linger}).
 */
abstract class ExecutorLinger extends ExecutorPad2 {
    volatile int lingering;
}

abstract class ExecutorPad3 extends ExecutorLinger {
    long p60, p61, p62, p63, p64, p65, p66, p67;
    long p70, p71, p72, p73, p74, p75, p76, p77;
}

/** Cold lifecycle state: read by workers once per loop, written at shutdown. */
abstract class ExecutorLifecycle extends ExecutorPad3 {
    volatile int runState;
    volatile boolean exitRequested;
    volatile int sweepClaim;
}
