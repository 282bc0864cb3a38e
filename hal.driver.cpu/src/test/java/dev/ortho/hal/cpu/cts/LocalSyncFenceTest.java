package dev.ortho.hal.cpu.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.cts.FenceSuite;

class LocalSyncFenceTest extends FenceSuite {
    @Override
    protected Device createDevice() {
        return LocalSync.device();
    }
}
