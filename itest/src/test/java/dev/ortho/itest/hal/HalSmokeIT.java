package dev.ortho.itest.hal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.text.BufferViewText;
import dev.ortho.itest.OrthoFramework;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.ops4j.pax.exam.util.Filter;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * A smoke subset of the HAL conformance suite run inside the framework (Felix and Equinox)
 * against the {@code local-sync} device obtained from the {@link DriverRegistry} service:
 * allocate/fill/read back, buffer views, dispatches through the builtin kernel library service
 * and through a library registered by the test, and a cross-thread semaphore wait.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HalSmokeIT {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Hang guard only: every wait here is satisfied long before it on any machine. */
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30));

    @Inject
    private DriverRegistry registry;

    @Inject
    @Filter("(" + KernelLibrary.SERVICE_PROPERTY + "=builtin)")
    private KernelLibrary builtin;

    @Inject
    private BundleContext context;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    private Device device() {
        return registry.createDevice("local-sync://");
    }

    @Test
    public void allocateFillAndReadBack() {
        try (Device device = device(); Semaphore done = device.createSemaphore(0);
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64)) {
            device.queueFill(ANY, NONE, SemaphoreList.of(done, 1), buffer, 16, 32, 0x5A5A5A5A, 4, 0);
            done.await(1, GUARD);
            MemorySegment bytes = MemorySegment.ofArray(new byte[64]);
            buffer.read(0, bytes);
            int[] words = bytes.toArray(I32);
            for (int i = 0; i < words.length; i++) {
                assertEquals("word " + i, i >= 4 && i < 12 ? 0x5A5A5A5A : 0, words[i]);
            }
            assertEquals(64, device.allocator().statistics().bytesLive());
        }
    }

    @Test
    public void bufferViewsParseIntoDeviceMemoryAndFormatBack() {
        try (Device device = device(); BufferView view = BufferViewText.parse("2x3xi32=[1 2 3][4 5 6]", device)) {
            assertEquals(24, view.byteLength());
            assertEquals("2x3xi32=[1 2 3][4 5 6]", BufferViewText.format(view));
        }
    }

    @Test
    public void dispatchThroughTheBuiltinKernelLibraryService() {
        assertEquals("builtin", builtin.name());
        int n = 3000; // three workgroups of the builtin's 1024 elements
        try (Device device = device(); ExecutableCache cache = device.createExecutableCache("itest");
                Executable executable = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(builtin.name(), "add_f32"), new int[0]));
                Buffer lhs = floats(device, n, 1f); Buffer rhs = floats(device, n, 0.5f);
                Buffer out = device.allocator().allocateBuffer(BufferParams.hostLocal(), n * 4L);
                Semaphore done = device.createSemaphore(0)) {
            ExecutableFunctionInfo info = executable.functionInfo(0);
            assertEquals("add_f32", info.name());
            int groups = (n + info.workgroupSizeX() - 1) / info.workgroupSizeX();
            device.queueDispatch(ANY, NONE, SemaphoreList.of(done, 1), executable, 0, DispatchConfig.ofCount(groups, 1, 1),
                    ints(n), new BufferRef[] {BufferRef.of(lhs), BufferRef.of(rhs), BufferRef.of(out)}, 0);
            done.await(1, GUARD);
            float[] result = read(out).toArray(F32);
            for (int i = 0; i < n; i++) {
                assertEquals("element " + i, i * 1f + i * 0.5f, result[i], 0f);
            }
        }
    }

    @Test
    public void aKernelLibraryRegisteredAtRuntimeIsDispatchable() {
        KernelFunction negate = new KernelFunction(new ExecutableFunctionInfo("negate_i32", 1, 1, 64, 1, 1, 0),
                (dispatch, workgroup) -> {
                    MemorySegment data = dispatch.binding(0);
                    int count = dispatch.constant(0);
                    int begin = workgroup.workgroupIdX() * dispatch.workgroupSizeX();
                    int end = Math.min(count, begin + dispatch.workgroupSizeX());
                    for (int i = begin; i < end; i++) {
                        data.setAtIndex(I32, i, -data.getAtIndex(I32, i));
                    }
                });
        KernelLibrary library = new KernelLibrary() {
            @Override
            public String name() {
                return "itest-negate";
            }

            @Override
            public List<KernelFunction> functions() {
                return List.of(negate);
            }
        };
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put(KernelLibrary.SERVICE_PROPERTY, library.name());
        ServiceRegistration<KernelLibrary> registration =
                context.registerService(KernelLibrary.class, library, properties);
        ExecutableParams params = new ExecutableParams(JvmStaticFormat.FORMAT, JvmStaticFormat.encode(library.name()),
                new int[0]);
        try (Device device = device(); ExecutableCache cache = device.createExecutableCache("itest")) {
            try (Executable executable = cache.prepareExecutable(params);
                    Buffer data = device.allocator().allocateBuffer(BufferParams.hostLocal(), 400);
                    Semaphore done = device.createSemaphore(0)) {
                int[] values = new int[100];
                for (int i = 0; i < values.length; i++) {
                    values[i] = i;
                }
                data.write(0, MemorySegment.ofArray(values));
                device.queueDispatch(ANY, NONE, SemaphoreList.of(done, 1), executable,
                        executable.lookupFunction("negate_i32"), DispatchConfig.ofCount(2, 1, 1), ints(100),
                        new BufferRef[] {BufferRef.of(data)}, 0);
                done.await(1, GUARD);
                int[] result = read(data).toArray(I32);
                for (int i = 0; i < values.length; i++) {
                    assertEquals("element " + i, -i, result[i]);
                }
            }
            registration.unregister();
            try {
                cache.prepareExecutable(params).release();
                fail("an unregistered kernel library must not resolve");
            } catch (StatusException e) {
                assertEquals(StatusCode.NOT_FOUND, e.code());
                assertTrue(e.getMessage(), e.getMessage().contains("itest-negate"));
            }
        }
    }

    @Test
    public void aQueueOperationWaitsForAHostSignalFromAnotherThread() throws Exception {
        try (Device device = device(); Semaphore go = device.createSemaphore(0);
                Semaphore done = device.createSemaphore(0)) {
            // local-sync runs the barrier on the submitting thread once go >= 1: submit from a helper
            CompletableFuture<Void> submitted = CompletableFuture.runAsync(
                    () -> device.queueBarrier(ANY, SemaphoreList.of(go, 1), SemaphoreList.of(done, 1), 0),
                    runnable -> Thread.ofPlatform().daemon().name("itest-submitter").start(runnable));
            assertEquals(0, done.query());
            go.signal(1);
            done.await(1, GUARD);
            submitted.get(30, TimeUnit.SECONDS);
            assertEquals(1, done.query());
            assertEquals(StatusCode.DEADLINE_EXCEEDED, expectStatus(() -> done.await(2, Timeout.immediate())));
        }
    }

    private static StatusCode expectStatus(Runnable call) {
        try {
            call.run();
        } catch (StatusException e) {
            return e.code();
        }
        throw new AssertionError("expected a StatusException");
    }

    private static Buffer floats(Device device, int n, float scale) {
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = i * scale;
        }
        Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), n * 4L);
        buffer.write(0, MemorySegment.ofArray(values));
        return buffer;
    }

    private static MemorySegment ints(int... values) {
        MemorySegment segment = MemorySegment.ofArray(new byte[values.length * 4]);
        for (int i = 0; i < values.length; i++) {
            segment.setAtIndex(I32, i, values[i]);
        }
        return segment;
    }

    private static MemorySegment read(Buffer buffer) {
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, copy);
        return copy;
    }
}
