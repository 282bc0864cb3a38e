package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.StreamOrderedAllocationSuite;

/** The StreamOrderedAllocation suite on local-task with FIFO queues. */
class LocalTaskFifoStreamOrderedAllocationTest extends StreamOrderedAllocationSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }

    @Override
    protected Device createDeviceWithPoolQuota(long bytes) {
        return LocalTask.device("local-task://?queue_count=3&task_topology_group_count=2&queue_order=fifo"
                + "&pool_quota_bytes=" + bytes);
    }
}
