package dev.ortho.itest.hal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.itest.OrthoFramework;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * VMVX inside the framework (Felix and Equinox): the {@code vmvx} module is published as a
 * module provider, and a {@code vmvx-bytecode-fb} executable that needs ExtF32 (provided by
 * vm.core's extension services) and calls a {@code vmvx} microkernel is prepared and dispatched
 * on the {@code local-sync} and {@code local-task} devices from the driver registry, with the
 * dispatch function compiled, interpreted and lazily compiled.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class VmvxIT {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Hang guard only. */
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30));
    private static final long WAIT_NANOS = Duration.ofSeconds(30).toNanos();
    /** out[i] = (lhs[i] * rhs[i]) * 2 via vmvx.mul.2d.f32 and ExtF32 ops, four elements. */
    private static final String SOURCE = """
            vm.module @twice_mul version 0
            vm.type !vm.buffer
            vm.import @vmvx.mul.2d.f32 cconv "0rIIIrIIIrIIIII_v"
            vm.export @twice_mul
            vm.func @twice_mul(%r0: !vm.buffer, %r1: !vm.buffer, %r2: !vm.list<!vm.buffer>, %i0: i32, %i1: i32, %i2: i32, %i3: i32, %i4: i32, %i5: i32, %i6: i32, %i7: i32, %i8: i32) -> () attributes {binding_count = "3"} {
            ^bb0:
              %i9 = vm.const.i32 0
              %i10 = vm.const.i32 1
              %i11 = vm.const.i32 2
              %r3 = vm.list.get.ref %r2, %i9 : !vm.buffer
              %r4 = vm.list.get.ref %r2, %i10 : !vm.buffer
              %r5 = vm.list.get.ref %r2, %i11 : !vm.buffer
              %i12:13 = vm.const.i64 0
              %i14:15 = vm.const.i64 1
              %i16:17 = vm.const.i64 4
              vm.call @vmvx.mul.2d.f32(%r3, %i12:13, %i16:17, %i14:15, %r4, %i12:13, %i16:17, %i14:15, %r5, %i12:13, %i16:17, %i14:15, %i14:15, %i16:17)
              %i18 = vm.const.f32 2.0
              %i19 = vm.const.i32 4
              vm.br ^bb1(%i9->%i20)
            ^bb1:
              %i21 = vm.cmp.lt.i32.s %i20, %i19
              vm.cond_br %i21, ^bb2(), ^bb3()
            ^bb2:
              %i22:23 = vm.ext.i32.i64.s %i20
              %i24 = vm.buffer.load.f32 %r5, %i22:23
              %i24 = vm.mul.f32 %i24, %i18
              vm.buffer.store.f32 %i24, %r5, %i22:23
              %i20 = vm.add.i32 %i20, %i10
              vm.br ^bb1(%i20->%i20)
            ^bb3:
              vm.discard.refs %r3, %r4, %r5
              vm.return
            }
            """;

    @Inject
    private DriverRegistry drivers;

    @Inject
    private ModuleRegistry modules;

    @Inject
    private BundleContext context;

    @Inject
    private ConfigurationAdmin configurations;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void theVmvxModuleIsPublishedAsAModuleProvider() {
        assertEquals(Integer.valueOf(0), modules.modules().get("vmvx"));
    }

    @Test
    public void aVmvxExecutableUsingExtF32RunsOnLocalSync() throws Exception {
        runTwiceMul("local-sync://");
        runTwiceMul("local-sync://?vmvx_compile=off");
        runTwiceMul("local-task://?vmvx_compile=lazy");
    }

    /**
     * Issue 16: the CPU drivers take {@code vmvx_compile} (how dispatch functions run on devices
     * whose URI does not say) from ConfigAdmin; the driver component is re-created with it (its
     * service shows the property) and its devices run the kernel interpreted with the same result.
     */
    @Test
    public void theCpuDriversTakeVmvxCompileFromConfigAdmin() throws Exception {
        for (String pid : List.of("dev.ortho.hal.driver.local_sync", "dev.ortho.hal.driver.local_task")) {
            org.osgi.service.cm.Configuration configuration = configurations.getConfiguration(pid, "?");
            try {
                Hashtable<String, Object> properties = new Hashtable<>();
                properties.put("vmvx_compile", "off");
                configuration.update(properties);
                String driver = pid.endsWith("sync") ? "local-sync" : "local-task";
                awaitFactory("(&(hal.driver.name=" + driver + ")(vmvx_compile=off))");
                runTwiceMul(driver + "://");
            } finally {
                configuration.delete();
            }
        }
        awaitFactory("(&(hal.driver.name=local-sync)(!(vmvx_compile=off)))");
        awaitFactory("(&(hal.driver.name=local-task)(!(vmvx_compile=off)))");
        runTwiceMul("local-sync://");
    }

    /** ConfigAdmin and DS deliver asynchronously: wait (hang-guarded) for a DriverFactory service matching {@code filter}. */
    private void awaitFactory(String filter) throws Exception {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (context.getServiceReferences(DriverFactory.class, filter).isEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no DriverFactory service matches " + filter);
            }
            Thread.sleep(10);
        }
    }

    /** A device of {@code uri}, waiting (hang-guarded) while a re-created driver component is not tracked yet. */
    private Device createDevice(String uri) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (true) {
            try {
                return drivers.createDevice(uri);
            } catch (dev.ortho.base.StatusException e) {
                if (e.code() != dev.ortho.base.StatusCode.NOT_FOUND || System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(10);
            }
        }
    }

    /** Dispatches {@code twice_mul} on a new device of {@code uri} and checks its result. */
    private void runTwiceMul(String uri) throws Exception {
        List<InstructionExtension> extensions = new ArrayList<>();
        for (ServiceReference<InstructionExtension> ref : context.getServiceReferences(InstructionExtension.class, null)) {
            extensions.add(context.getService(ref));
        }
        assertTrue("ExtF32 is registered", extensions.stream().anyMatch(e -> e.prefix() == 0xE0));
        byte[] archive = BytecodeArchive.write(new Assembler(extensions).assemble(SOURCE, "twice_mul.vmasm"));
        try (Device device = createDevice(uri); ExecutableCache cache = device.createExecutableCache("it");
                Executable executable = cache.prepareExecutable(
                        new ExecutableParams("vmvx-bytecode-fb", MemorySegment.ofArray(archive), new int[0]));
                Buffer lhs = floats(device, 1, 2, 3, 4); Buffer rhs = floats(device, 5, 6, 7, 8);
                Buffer out = floats(device, 0, 0, 0, 0); Semaphore done = device.createSemaphore(0)) {
            device.queueDispatch(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), executable,
                    executable.lookupFunction("twice_mul"), DispatchConfig.ofCount(1, 1, 1), null,
                    new BufferRef[] {BufferRef.of(lhs), BufferRef.of(rhs), BufferRef.of(out)}, 0);
            done.await(1, GUARD);
            MemorySegment result = MemorySegment.ofArray(new byte[16]);
            out.read(0, result);
            assertArrayEquals(uri, new float[] {10, 24, 42, 64}, result.toArray(F32), 0f);
        }
    }

    private static Buffer floats(Device device, float... values) {
        Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * values.length);
        buffer.write(0, MemorySegment.ofArray(values));
        return buffer;
    }
}
