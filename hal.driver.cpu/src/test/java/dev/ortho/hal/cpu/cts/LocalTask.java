package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.KernelLibraryRegistry;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriver;
import dev.ortho.hal.cpu.internal.task.LocalTaskOptions;
import java.util.List;
import dev.ortho.hal.frontier.QueueAxes;

/**
 * How the CTS subclasses of this package get a local-task device: 3 queues, 2 workers (its
 * capabilities, hence the suites' capability tags, come from {@code Device.capabilities()}).
 */
final class LocalTask {

    private LocalTask() {}

    static Device device() {
        return device("local-task://?queue_count=3&task_topology_group_count=2");
    }

    static Device device(String uri) {
        try (LocalTaskDriver driver = new LocalTaskDriver(new KernelLibraryRegistry(List.of(new BuiltinKernels())),
                LocalTaskOptions.DEFAULTS, QueueAxes.process())) {
            return driver.createDevice(DeviceUri.parse(uri));
        }
    }
}
