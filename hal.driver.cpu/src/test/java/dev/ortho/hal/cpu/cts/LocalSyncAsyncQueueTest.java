package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.AsyncQueueSuite;

/** Runs the suite on local-sync, where it is skipped (visibly): local-sync has none of its capabilities. */
class LocalSyncAsyncQueueTest extends AsyncQueueSuite {
    @Override
    protected Device createDevice() {
        return LocalSync.device();
    }
}
