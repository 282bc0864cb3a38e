package dev.ortho.task;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The bounded unit of work of a {@link Process}: called by executor workers, possibly by several
 * workers at once for a process whose wake budget is above one (or that was built with
 * {@link Process.Builder#computeSlot()}).
 *
 * <p>An implementation does a bounded amount of work (one tile batch, one queue operation, one
 * region pass) and returns; it reports what happened through {@code result} (see
 * {@link DrainResult}). It must never block: a worker inside {@code drain} cannot service other
 * processes. It must be thread-safe for concurrent calls when the process can be drained by more
 * than one worker.
 *
 * <p>Errors: throwing a {@link dev.ortho.base.StatusException} records it as the process's first
 * error (if no other error was recorded before) and completes the process; any other
 * {@link RuntimeException} is recorded as {@code INTERNAL} with the exception as cause. The
 * dependents of a failed process are still activated, inherit the error and are completed
 * without being drained.
 *
 * <p>{@code worker} and {@code result} are borrowed for the duration of the call only and must
 * not be retained.
 */
@ConsumerType
@FunctionalInterface
public interface DrainFunction {
    /**
     * Performs one bounded step of the process's work.
     *
     * @param process the process being drained (the same object for every call)
     * @param worker the calling worker; valid only during this call
     * @param result cleared before the call; set its flags to describe this step
     */
    void drain(Process process, WorkerContext worker, DrainResult result);
}
