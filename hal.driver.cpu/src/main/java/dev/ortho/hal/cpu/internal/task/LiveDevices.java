package dev.ortho.hal.cpu.internal.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@link LocalTaskDevice}s one factory created that are not torn down yet (each owns an
 * executor and its worker threads), and the off-heap bytes their allocators hold. A device joins
 * when it is created and leaves when it is torn down: by its last release, or by {@link #close}
 * when the factory goes away (its driver bundle stops), which tears every live device down at once
 * whoever still holds it, as DESIGN §3 asks: unfinished work fails with UNAVAILABLE and the
 * workers exit.
 *
 * <p>Thread-safe.
 */
public final class LiveDevices {
    private final String driverName;
    private final AtomicLong offHeapBytes = new AtomicLong();
    private final List<LocalTaskDevice> devices = new ArrayList<>(); // guarded by this
    private boolean closed; // guarded by this

    /** @param driverName the driver named in the errors of devices created after {@link #close} */
    public LiveDevices(String driverName) {
        this.driverName = driverName;
    }

    /**
     * Adds a device just created.
     *
     * @throws StatusException UNAVAILABLE if this set was closed (the device is then torn down)
     */
    void add(LocalTaskDevice device) {
        synchronized (this) {
            if (!closed) {
                devices.add(device);
                return;
            }
        }
        device.terminate(closedError());
        throw closedError();
    }

    /** Removes a device torn down (idempotent). */
    synchronized void remove(LocalTaskDevice device) {
        devices.remove(device);
    }

    /**
     * The bytes the devices' allocators hold now (buffers not freed yet, including those that
     * outlive their device); the counter the allocators share.
     */
    AtomicLong offHeapBytes() {
        return offHeapBytes;
    }

    /** Off-heap bytes allocated by the devices and not freed yet (a snapshot). */
    public long liveBytes() {
        return offHeapBytes.get();
    }

    /** Devices created and not torn down yet (a snapshot). */
    public synchronized int count() {
        return devices.size();
    }

    /**
     * Tears down every live device (their unfinished operations fail with UNAVAILABLE, their
     * executors stop) and refuses devices created from now on. Returns once every device is torn
     * down. Idempotent.
     */
    public void close() {
        List<LocalTaskDevice> live;
        synchronized (this) {
            closed = true;
            live = List.copyOf(devices);
        }
        for (LocalTaskDevice device : live) {
            device.terminate(new StatusException(StatusCode.UNAVAILABLE, "device '" + device.info().name()
                    + "' was torn down because driver '" + driverName + "' was stopped"));
        }
    }

    private StatusException closedError() {
        return new StatusException(StatusCode.UNAVAILABLE, "driver '" + driverName + "' was stopped");
    }
}
