package dev.ortho.task;

import java.util.List;

/**
 * Snapshot of an executor's workers, as shown by the {@code task:stats} shell command. Values
 * are read without synchronization and may be mutually inconsistent by a few events.
 *
 * @param name executor name
 * @param scanPolicy current scan policy
 * @param aggregateBudget sum of wake budgets on the run lists
 * @param occupiedSlots compute slots holding a process
 * @param liveProcesses processes built but not yet terminal
 * @param workers one entry per worker, by index
 */
public record ExecutorStats(String name, ScanPolicy scanPolicy, int aggregateBudget, int occupiedSlots,
                            int liveProcesses, List<WorkerStats> workers) {

    /** Defensive copy of {@code workers}. */
    public ExecutorStats {
        workers = List.copyOf(workers);
    }

    /**
     * Counters of one worker.
     *
     * @param index worker index
     * @param state {@code DRAINING}, {@code SPINNING}, {@code PARKED} or {@code EXITED}
     * @param drains drain calls made
     * @param parks times the worker parked
     * @param wakes times a wake post (direct from a scheduling thread, or relayed by another
     *     worker through the wake tree) ended this worker's park
     * @param scans compute-slot scans (revolutions over the slot table)
     * @param completed processes this worker completed
     */
    public record WorkerStats(int index, String state, long drains, long parks, long wakes, long scans,
                              long completed) {
    }

    /** Renders the snapshot as a fixed-width table (one line per worker). */
    public String toTable() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("executor %s  policy=%s  budget=%d  slots=%d  live=%d%n",
                name, scanPolicy, aggregateBudget, occupiedSlots, liveProcesses));
        sb.append(String.format("%-6s %-9s %12s %10s %10s %12s %10s%n",
                "worker", "state", "drains", "parks", "wakes", "scans", "completed"));
        for (WorkerStats w : workers) {
            sb.append(String.format("%-6d %-9s %12d %10d %10d %12d %10d%n",
                    w.index(), w.state(), w.drains(), w.parks(), w.wakes(), w.scans(), w.completed()));
        }
        return sb.toString();
    }
}
