package dev.ortho.hal.validation.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.StreamOrderedAllocationSuite;

class ValidationLocalTaskStreamOrderedAllocationTest extends StreamOrderedAllocationSuite {
    @Override
    protected Device createDevice() {
        return ValidationLocalTask.device();
    }

    @Override
    protected Device createDeviceWithPoolQuota(long bytes) {
        return ValidationLocalTask.device(
                "validation+local-task://?queue_count=3&task_topology_group_count=2&pool_quota_bytes=" + bytes);
    }
}
