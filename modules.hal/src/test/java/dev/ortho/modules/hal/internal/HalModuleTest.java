package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Device;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.RefType;
import dev.ortho.vm.Signal;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HalModuleTest {
    @Test
    void exportsMatchIreeNamesCallingConventionsAndOrder() {
        try (Device device = Harness.localSync()) {
            Module hal = HalModule.create(new Instance(), List.of(device));
            assertEquals("hal", hal.name());
            assertEquals(7, hal.version());
            Map<String, String> actual = new LinkedHashMap<>();
            for (Function f : hal.exports()) {
                actual.put(f.name(), f.cconv().text());
            }
            assertEquals(new ArrayList<>(IreeHalExports.table().entrySet()), new ArrayList<>(actual.entrySet()));
            assertTrue(hal.imports().isEmpty());
            assertTrue(hal.dependencies().isEmpty());
        }
    }

    @Test
    void createRegistersEveryHalRefTypeWithTheInstance() {
        Instance instance = new Instance();
        try (Device device = Harness.localSync()) {
            HalModule.create(instance, List.of(device));
        }
        for (String name : List.of("hal.allocator", "hal.buffer", "hal.buffer_view", "hal.channel",
                "hal.command_buffer", "hal.device", "hal.event", "hal.executable", "hal.fence", "hal.file",
                "hal.semaphore")) {
            RefType type = instance.lookupType(name);
            assertNotNull(type, name);
            assertTrue(HalTypes.ALL.contains(type));
        }
    }

    @Test
    void programImportingEveryExportWithIreeCconvsLinks() {
        try (Harness h = new Harness()) {
            assertNotNull(h.context.resolveFunction("caller.call"));
        }
    }

    @Test
    void devicesCountAndGetExposeTheModuleDevicesWithStableRefs() {
        try (Harness h = new Harness();
                Harness.Results count = h.call("devices.count", p());
                Harness.Results first = h.call("devices.get", p(0));
                Harness.Results again = h.call("devices.get", p(0));
                Harness.Results outside = h.call("devices.get", p(1));
                Harness.Results negative = h.call("devices.get", p(-1))) {
            assertEquals(1, count.i32(0));
            assertSame(h.device, HalRefs.device(first.ref(0)));
            assertSame(first.ref(0), again.ref(0), "devices.get returns the context's one ref per device");
            assertNull(outside.ref(0));
            assertNull(negative.ref(0));
        }
    }

    @Test
    void contextsRetainTheDevicesUntilTheyClose() {
        Instance instance = new Instance();
        Device device = Harness.localSync();
        Module hal = HalModule.create(instance, List.of(device));
        Context context = Context.create(instance, hal);
        device.release(); // only the context's state holds the device now
        device.createEvent().release(); // still open
        context.notify(Signal.LOW_MEMORY); // trims the allocators; must not fail
        context.close();
        Harness.expect(StatusCode.FAILED_PRECONDITION, () -> device.createEvent());
    }

    @Test
    void nullDeviceIsRejected() {
        Harness.expect(StatusCode.INVALID_ARGUMENT,
                () -> HalModule.create(new Instance(), Arrays.asList((Device) null)));
    }

    @Test
    void forkedContextSharesDevicesAndExecutableCachesBeyondItsParent() {
        Instance instance = new Instance();
        Device device = Harness.localSync();
        Module hal = HalModule.create(instance, List.of(device));
        Context parent = Context.create(instance, hal);
        Context child = parent.fork();
        parent.close();
        device.release(); // only the child context holds the device now
        VmList out = VmList.ofVariants(1);
        VmList in = VmList.ofVariants(5);
        VmBuffer format = Harness.string("jvm-static");
        VmBuffer data = Harness.string("library=builtin\n");
        try {
            in.pushI32(0);
            Invocation.invoke(child, child.resolveFunction("hal.devices.get"), in, out);
            assertSame(device, HalRefs.device(out.getRef(0)));
            in.resize(0);
            in.pushRefRetain(out.getRef(0));
            in.pushI64(-1);
            in.pushRefRetain(format);
            in.pushRefRetain(data);
            in.pushRefRetain(null);
            Invocation.invoke(child, child.resolveFunction("hal.executable.create"), in, out);
            assertTrue(HalRefs.executable(out.getRef(0)).functionCount() > 0, "the shared cache still prepares");
        } finally {
            in.release();
            out.release();
            format.release();
            data.release();
            child.close();
        }
        Harness.expect(StatusCode.FAILED_PRECONDITION, device::createEvent);
    }
}
