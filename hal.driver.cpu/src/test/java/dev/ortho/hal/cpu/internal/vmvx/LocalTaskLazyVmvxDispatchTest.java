package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriver;
import dev.ortho.hal.cpu.internal.task.LocalTaskOptions;
import dev.ortho.vm.bytecode.ExecutionMode;

/**
 * {@link VmvxDispatchSuite} on local-task with {@code vmvx_compile=lazy}: the dispatch functions
 * start interpreted and are compiled by the executor worker whose workgroup crosses the threshold
 * while the other workers keep interpreting.
 */
class LocalTaskLazyVmvxDispatchTest extends VmvxDispatchSuite {
    @Override
    Device createDevice() {
        try (LocalTaskDriver driver = new LocalTaskDriver(VmvxFixtures.registry(), LocalTaskOptions.DEFAULTS,
                QueueAxes.process())) {
            return driver.createDevice(DeviceUri.parse("local-task://?vmvx_compile=lazy&task_topology_group_count=2"));
        }
    }

    @Override
    ExecutionMode kernelExecution() {
        return ExecutionMode.LAZY;
    }
}
