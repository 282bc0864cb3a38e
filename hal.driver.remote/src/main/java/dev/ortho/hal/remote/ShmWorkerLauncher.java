package dev.ortho.hal.remote;

import java.nio.file.Path;
import java.util.List;

/**
 * How a host starts the child JVM of a PROCESS-mode shared-memory worker that serves devices
 * it creates by URI ({@code remote://shm?device=URI}). A host whose driver registry is not
 * reachable from a plain {@code java -cp} child (an OSGi framework: {@code ortho.jar}) registers
 * one as a service; the child it starts must call {@link ShmWorker#serve} with the given mailbox
 * and capacity and a supplier creating {@code device} through the child's own registry.
 * Implementations are stateless and thread-safe.
 */
@FunctionalInterface
public interface ShmWorkerLauncher {
    /**
     * The child's command line (program first).
     *
     * @param mailbox the mailbox file the child maps (already created, owner-only)
     * @param capacity the mailbox capacity in bytes, for {@link ShmWorker#serve}
     * @param device the device URI the child serves (a fresh device per client session)
     * @throws dev.ortho.base.StatusException UNAVAILABLE if this host cannot start a child
     */
    List<String> command(Path mailbox, long capacity, String device);
}
