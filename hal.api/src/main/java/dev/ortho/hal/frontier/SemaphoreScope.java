package dev.ortho.hal.frontier;

/**
 * How widely a semaphore's signals must be visible, fixed when the semaphore is created (seed
 * 002, "Scopes"). Each wider scope adds latency and a heavier primitive but more visibility; a
 * scheduler picks the narrowest scope that covers every waiter, so the common case
 * (queue-local sequential work) pays nothing. Constants are ordered from narrowest to widest.
 *
 * <p>Frontiers: a {@link #QUEUE_LOCAL} semaphore records none (its waiters are on the queue that
 * signals it, whose FIFO and own frontier already cover the signaller's causal past), so its
 * signal is one atomic update with no lock; every wider scope records the frontier of each
 * signalled value ({@link TimelineFrontiers}) for waiters elsewhere. The scope also decides which
 * primitive carries the timeline value on devices that have several.
 */
public enum SemaphoreScope {
    /**
     * Signalled and waited on by one queue only. No device primitive: ordering comes from the
     * queue's FIFO and frontier tracking. Zero synchronisation cost.
     */
    QUEUE_LOCAL,
    /**
     * Visible to every queue of one device: a device-side primitive (an HSA signal, a Vulkan
     * timeline semaphore, an atomic word on a CPU device). Cross-queue cost only.
     */
    DEVICE,
    /**
     * Visible across a group of peer devices through a P2P-capable primitive (XGMI, NVLink):
     * device-to-device signalling without the host.
     */
    DEVICE_GROUP,
    /**
     * Visible to the host and to every device in the process through a host-visible primitive
     * (for devices without P2P): each signal crosses the host.
     */
    PROCESS,
    /**
     * Visible to other processes and drivers through an exportable handle (a sync_fd, a Win32
     * handle): the most expensive, kernel-mediated signalling. Signals that arrive this way from
     * outside the scheduler are external and tainted (see {@link TimelineFrontiers}).
     */
    SYSTEM;

    /** Whether a semaphore of this scope is visible wherever one of scope {@code other} is. */
    public boolean includes(SemaphoreScope other) {
        return compareTo(other) >= 0;
    }
}
