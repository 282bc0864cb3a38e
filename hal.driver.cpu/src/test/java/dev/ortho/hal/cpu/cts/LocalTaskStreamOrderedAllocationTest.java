package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.StreamOrderedAllocationSuite;

class LocalTaskStreamOrderedAllocationTest extends StreamOrderedAllocationSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.device();
    }


    @Override
    protected Device createDeviceWithPoolQuota(long bytes) {
        return LocalTask.device("local-task://?queue_count=3&task_topology_group_count=2&pool_quota_bytes=" + bytes);
    }
}
