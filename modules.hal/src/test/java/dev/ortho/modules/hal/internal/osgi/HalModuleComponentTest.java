package dev.ortho.modules.hal.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmList;
import java.lang.annotation.Annotation;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HalModuleComponentTest {
    static HalModuleComponent.Config config(String... uris) {
        return new HalModuleComponent.Config() {
            @Override
            public String[] hal_device() {
                return uris;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return HalModuleComponent.Config.class;
            }
        };
    }

    static DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().localSyncFactory());
        return registry;
    }

    @Test
    void createsHalModulesOverTheConfiguredDevicesSharedAcrossModules() {
        HalModuleComponent component = new HalModuleComponent(registry(), config("local-sync", "local-sync://"));
        Instance instance = new Instance();
        Module first = component.createModule(instance);
        Module second = component.createModule(instance);
        assertEquals("hal", first.name());
        assertEquals(7, first.version());
        try (Context a = Context.create(instance, first); Context b = Context.create(instance, second)) {
            VmList out = VmList.ofVariants(1);
            Invocation.invoke(a, a.resolveFunction("hal.devices.count"), null, out);
            assertEquals(2, out.getI32(0));
            VmList index = VmList.ofValues(ValueType.I32, 1);
            index.pushI32(1);
            Invocation.invoke(a, a.resolveFunction("hal.devices.get"), index, out);
            VmList other = VmList.ofVariants(1);
            Invocation.invoke(b, b.resolveFunction("hal.devices.get"), index, other);
            assertEquals(HalRefs.device(out.getRef(0)), HalRefs.device(other.getRef(0)),
                    "modules of one component share its devices");
            out.release();
            other.release();
            index.release();
        }
        component.deactivate();
    }

    /** Issue 15 §3: another revision of this bundle must be able to register its own hal types. */
    @Test
    void deactivationDropsTheHalTypeRegistrationsOfItsModules() {
        HalModuleComponent component = new HalModuleComponent(registry(), config("local-sync"));
        Instance instance = new Instance();
        component.createModule(instance);
        component.createModule(instance);
        assertNotNull(instance.lookupType("hal.buffer_view"));
        component.deactivate();
        assertNull(instance.lookupType("hal.buffer_view"), "hal types still registered after deactivation");
    }

    /** Issue 15 §3: a driver bundle stopping tears its devices down; the next module gets new ones. */
    @Test
    void theDevicesOfADriverThatGoesAwayAreReplacedOnTheNextModule() {
        HalModuleComponent component = new HalModuleComponent(registry(), config("local-sync://"));
        Instance instance = new Instance();
        Device first = firstDevice(instance, component.createModule(instance));
        component.unbindFactory(null, Map.of("hal.driver.name", "remote"));
        assertSame(first, firstDevice(instance, component.createModule(instance)), "another driver went away");
        component.unbindFactory(null, Map.of("hal.driver.name", "local-sync"));
        assertNotSame(first, firstDevice(instance, component.createModule(instance)));
        component.deactivate();
    }

    private static Device firstDevice(Instance instance, Module hal) {
        try (Context context = Context.create(instance, hal)) {
            VmList index = VmList.ofValues(ValueType.I32, 1);
            VmList out = VmList.ofVariants(1);
            try {
                index.pushI32(0);
                Invocation.invoke(context, context.resolveFunction("hal.devices.get"), index, out);
                return HalRefs.device(out.getRef(0));
            } finally {
                index.release();
                out.release();
            }
        }
    }

    @Test
    void unknownDriverFailsModuleCreationNamingTheConfiguration() {
        HalModuleComponent component = new HalModuleComponent(registry(), config("local-sync", "cuda://0"));
        StatusException e = assertThrows(StatusException.class, () -> component.createModule(new Instance()));
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertTrue(e.getMessage().contains("dev.ortho.modules.hal hal.device=[local-sync, cuda://0]"), e.getMessage());
        component.deactivate();
    }
}
