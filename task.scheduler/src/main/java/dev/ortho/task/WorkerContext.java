package dev.ortho.task;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The worker calling a {@link DrainFunction}. Passed by the executor; valid only during the
 * drain call it was passed to, and only on that worker's thread.
 */
@ProviderType
public interface WorkerContext {
    /** This worker's index in {@code [0, workerCount())}; stable for the worker's lifetime. */
    int workerIndex();

    /** Number of workers of the executor this worker belongs to. */
    int workerCount();

    /**
     * Logical processor (CPU id) of the topology group this worker was created for, or -1 when
     * the topology did not name one. Informational: workers are not pinned.
     */
    int processorId();
}
