package dev.ortho.task;

/**
 * Order in which workers visit the executor's compute slots. Only the order changes; any worker
 * may drain any process under every policy. Can be swapped on a running executor with
 * {@link Executor#setScanPolicy(ScanPolicy)}.
 */
public enum ScanPolicy {
    /** Slot index order from a per-worker rotating start (the default; IREE's only policy). */
    ROUND_ROBIN,
    /** Occupied slots ordered by {@link Process.Builder#priority(int)}, highest first. */
    PRIORITY,
    /**
     * Slots repeated in the scan table in proportion to their process's wake budget (capped at
     * 8 entries per slot), so a budget-8 process is visited about four times as often as a
     * budget-2 one.
     */
    BUDGET_WEIGHTED
}
