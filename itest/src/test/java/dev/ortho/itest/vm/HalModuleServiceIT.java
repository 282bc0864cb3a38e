package dev.ortho.itest.vm;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.fail;

import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.itest.OrthoFramework;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmList;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * The {@code hal} module (version 7) is a {@code ModuleProvider} service of bundle
 * {@code dev.ortho.modules.hal}: it links through the {@link ModuleRegistry}, registers the HAL
 * ref types with the shared {@link Instance}, and exposes the configured default device
 * ({@code local-sync}) created through the {@link DriverRegistry} service.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HalModuleServiceIT {
    private static final long WAIT_NANOS = 10_000_000_000L;

    @Inject
    private ModuleRegistry registry;

    @Inject
    private Instance instance;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void halModuleServiceExposesTheConfiguredDevice() throws Exception {
        awaitTrue("hal module provider tracked", () -> Integer.valueOf(7).equals(registry.modules().get("hal")));
        try (Context context = Context.create(instance)) {
            registry.registerWithDependencies(context, registry.create(instance, "hal", 7));
            assertNotNull(instance.lookupType(HalTypes.BUFFER_VIEW.name()));
            VmList out = VmList.ofVariants(1);
            try {
                Invocation.invoke(context, context.resolveFunction("hal.devices.count"), null, out);
                assertEquals(1, out.getI32(0));
                VmList index = VmList.ofVariants(1);
                index.pushI32(0);
                Invocation.invoke(context, context.resolveFunction("hal.devices.get"), index, out);
                index.release();
                RefObject ref = out.getRef(0);
                Device device = HalRefs.device(ref);
                assertEquals("local-sync", device.info().name());
            } finally {
                out.release();
            }
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting: " + what);
            }
            Thread.sleep(10);
        }
    }
}
