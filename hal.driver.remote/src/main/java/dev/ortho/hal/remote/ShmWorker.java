package dev.ortho.hal.remote;

import dev.ortho.hal.Device;
import dev.ortho.hal.remote.internal.shm.ShmChild;
import java.nio.file.Path;
import java.util.function.Supplier;

/** The body of a shared-memory worker child JVM started by a {@link ShmWorkerLauncher}. */
public final class ShmWorker {
    private ShmWorker() {}

    /**
     * Maps {@code mailbox} (created by the client's worker pool, holding its token) and serves
     * one client session after another with a fresh device from {@code devices} each, until the
     * client shuts the mailbox down for good or the parent process dies. Blocks until then; the
     * caller then exits the JVM.
     *
     * @throws dev.ortho.base.StatusException if the mailbox cannot be mapped or is not a mailbox
     */
    public static void serve(Path mailbox, long capacity, Supplier<Device> devices) throws InterruptedException {
        ShmChild.serveChild(mailbox, capacity, devices);
    }
}
