package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.cpu.CpuDrivers;

/**
 * How the CTS subclasses of this package get a local-task device: 3 queues, 2 workers (its
 * capabilities, hence the suites' capability tags, come from {@code Device.capabilities()}).
 */
final class LocalTask {

    private LocalTask() {}

    static Device device() {
        return CpuDrivers.builder().queueCount(3).workerCount(2).localTask();
    }

    /** The same device with FIFO queues ({@code queue_order=fifo}). */
    static Device fifoDevice() {
        return CpuDrivers.builder().queueCount(3).workerCount(2).fifoQueues(true).localTask();
    }

    static Device device(String uri) {
        try (Driver driver = CpuDrivers.builder().localTaskFactory().createDriver("local-task")) {
            return driver.createDevice(DeviceUri.parse(uri));
        }
    }
}
