package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriver;
import dev.ortho.hal.cpu.internal.task.LocalTaskOptions;
import dev.ortho.hal.frontier.QueueAxes;

/** {@link VmvxDispatchSuite} on local-task: workgroups spread over the executor's workers. */
class LocalTaskVmvxDispatchTest extends VmvxDispatchSuite {
    @Override
    Device createDevice() {
        try (LocalTaskDriver driver = new LocalTaskDriver(VmvxFixtures.registry(), LocalTaskOptions.DEFAULTS,
                QueueAxes.process())) {
            return driver.createDevice(DeviceUri.parse("local-task://"));
        }
    }
}
