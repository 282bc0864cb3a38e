package dev.ortho.task;

/**
 * What one {@link DrainFunction#drain} call reports back to its worker. Each worker owns one
 * instance and clears it before every call, so filling it in allocates nothing.
 *
 * <p>Flags (IREE's {@code iree_task_process_drain_result_t}):
 * <ul>
 *   <li>{@link #complete()}: the process has no work left (or hit a fatal error). Once a drain
 *       reports completion, every later call for the same process must report it too; the
 *       executor runs the completion path exactly once.</li>
 *   <li>{@link #didWork()}: this call made progress; the worker calls drain again soon. A call
 *       that reports neither work nor {@link #keepActive()} marks the process <em>sleeping</em>:
 *       it leaves the run lists until {@link Process#schedule()} wakes it.</li>
 *   <li>{@link #keepActive()}: no progress, but the process expects work very soon (e.g. waiting
 *       for a peer to finish a region) and should stay on the worker instead of sleeping.</li>
 * </ul>
 * IREE's warm-retention hints ({@code keep_warm}, retainer limits, retention epochs) are not
 * adopted: {@code keepActive} covers the short hand-off case without a second parking protocol.
 *
 * <p>Not thread-safe; confined to the worker that owns it.
 */
public final class DrainResult {
    private boolean completed;
    private boolean didWork;
    private boolean keepActive;

    /** Creates a cleared result. Workers own one each; tests may create their own. */
    public DrainResult() {
    }

    /** Clears every flag. Called by the worker before each drain. */
    public void clear() {
        completed = false;
        didWork = false;
        keepActive = false;
    }

    /** Reports that the process finished all of its work. Returns this for chaining. */
    public DrainResult complete() {
        completed = true;
        return this;
    }

    /** Reports that this call performed useful work. Returns this for chaining. */
    public DrainResult didWork() {
        didWork = true;
        return this;
    }

    /** Reports that the process should stay active although this call found no work. */
    public DrainResult keepActive() {
        keepActive = true;
        return this;
    }

    /** True if {@link #complete()} was called since the last {@link #clear()}. */
    public boolean isCompleted() {
        return completed;
    }

    /** True if {@link #didWork()} was called since the last {@link #clear()}. */
    public boolean isDidWork() {
        return didWork;
    }

    /** True if {@link #keepActive()} was called since the last {@link #clear()}. */
    public boolean isKeepActive() {
        return keepActive;
    }
}
