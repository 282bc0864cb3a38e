package dev.ortho.hal.remote.internal.client;

import dev.ortho.hal.Device;

/** Test access to client internals. */
public final class ClientProbe {
    private ClientProbe() {}

    /** How many foreign semaphores {@code device} currently has imported. */
    public static int imports(Device device) {
        return ((RemoteDevice) device).importCount();
    }

    /** The machine index {@code device}'s server announced. */
    public static int machine(Device device) {
        return ((RemoteDevice) device).machine();
    }

    /** Whether {@code device}'s connection expects a frame nobody is receiving for (a reply or an owed report). */
    public static boolean expectsFrames(Device device) {
        return ((RemoteDevice) device).connection().expectsFrames();
    }
}
