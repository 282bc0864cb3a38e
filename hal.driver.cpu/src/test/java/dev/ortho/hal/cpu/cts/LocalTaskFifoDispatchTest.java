package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cts.DispatchSuite;

/** The Dispatch suite on local-task with FIFO queues. */
class LocalTaskFifoDispatchTest extends DispatchSuite {
    @Override
    protected Device createDevice() {
        return LocalTask.fifoDevice();
    }

    @Override
    protected ExecutableParams testExecutable() {
        return LocalSync.testExecutable();
    }
}
