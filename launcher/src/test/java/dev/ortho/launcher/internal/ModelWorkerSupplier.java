package dev.ortho.launcher.internal;

import dev.ortho.hal.Device;
import java.util.function.Supplier;

/**
 * What the shared-memory workers of {@link IreeCompiledModelsTest} serve: a {@code local-task}
 * device with the VMVX loader, as {@code remote://shm?supplier=CLASS} names it (public, no-arg).
 */
public final class ModelWorkerSupplier implements Supplier<Device> {
    @Override
    public Device get() {
        return IreeCompiledModelsTest.registry().createDevice("local-task://");
    }
}
