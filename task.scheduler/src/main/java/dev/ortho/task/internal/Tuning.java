package dev.ortho.task.internal;

/** Compile-time tuning constants (IREE's {@code tuning.h}, values chosen for this port). */
final class Tuning {
    /**
     * Compute slots. IREE's code uses 16 ({@code IREE_TASK_EXECUTOR_MAX_COMPUTE_SLOTS}); the seed
     * suggests 64. We follow the code: a local-task device has one to three compute processes
     * in flight, and extra slots only lengthen every scan.
     */
    static final int COMPUTE_SLOTS = 16;

    /**
     * Workers each woken worker wakes before it drains (wake-tree branching factor). The seed
     * describes a binary tree; IREE's code settled on 1 for x86. Two keeps log2(N) rounds.
     */
    static final int WAKE_FANOUT = 2;

    /**
     * Idle workers the scheduling thread posts to directly before handing the rest of the
     * demand to the relay tree. The seed wakes one; IREE's newer code posts to every idle
     * worker. Two lets a budget-2 process start on both workers of a small machine without a
     * relay hop while bounding the scheduling thread's cost on large ones.
     */
    static final int DIRECT_WAKE_LIMIT = 2;

    /** Largest multiplier of the base spin time while aggregate demand exceeds active workers. */
    static final int MAX_SPIN_SCALE = 4;

    /** Entries a single slot may take in a budget-weighted scan table. */
    static final int MAX_SCAN_WEIGHT = 8;

    /**
     * Consecutive hand-offs (a completed budget-1 process's activated dependent, drained next
     * by the completing worker) before the worker looks for other work; if a process waits on
     * the immediate list or in a compute slot it queues the next link on the immediate list and
     * goes back to scanning, so an endless chain cannot keep it from other work. Otherwise it
     * keeps the chain.
     */
    static final int MAX_HANDOFF_RUN = 64;

    /**
     * Drain calls a worker makes in a row under one drainer claim of a compute slot while that
     * process is the only work there is (no other slot occupied, nothing on the immediate list,
     * no wake demand); then it leaves the slot and scans as usual.
     */
    static final int MAX_CALLS_PER_ENTRY = 16;

    /**
     * An adaptive linger whose polls are further apart than its window, and at least this far,
     * lost its core to another thread for a time slice (a yield returns within a microsecond or
     * two on a free core; interrupts, a JIT compiler thread or the hypervisor take tens of
     * microseconds, which are not worth giving up the linger for) and ends; see
     * {@code Worker.linger}.
     */
    static final long LINGER_PREEMPTED_MIN_NANOS = 500_000L;

    /** First pause of adaptive lingering after a preempted linger; doubles while that recurs. */
    static final long LINGER_BACKOFF_MIN_NANOS = 1_000_000L;

    /** Longest pause of adaptive lingering after preempted lingers. */
    static final long LINGER_BACKOFF_MAX_NANOS = 64_000_000L;

    private Tuning() {
    }
}
