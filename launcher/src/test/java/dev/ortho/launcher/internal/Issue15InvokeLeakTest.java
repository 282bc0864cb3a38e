package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.CpuDriverFactory;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import java.io.ByteArrayInputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 §3: a long-lived host that invokes programs on {@code local-task} over and over, as
 * the shell's {@code vm:invoke} does (a fresh context and device per call), must come back to
 * where it started: no worker thread, live device, off-heap byte or file descriptor may be left
 * per invocation. The examples' MLP ran 200 times here used to leave 400 {@code ortho-worker}
 * threads (its parameter loader kept a device and an allocator reference in registers).
 */
class Issue15InvokeLeakTest {
    private static final int INVOCATIONS = 200;
    private static final long SETTLE_NANOS = 30_000_000_000L;
    private static final Path EXAMPLES = Path.of("..", "examples");

    @Test
    void twoHundredShellInvocationsOfTheExamplesLeaveNothingBehind() throws Exception {
        // 100 x (mlp.predict, simple_mul), then 20 x (pipelined.cube, pipelined.cube$async)
        CpuDriverFactory localTask = CpuDrivers.builder().extensions(HalPrograms.EXTENSIONS).localTaskFactory();
        DriverRegistry registry = new DriverRegistry();
        registry.register(localTask);
        Instance instance = new Instance();
        VmTools tools = new VmTools(instance, registry, () -> HalPrograms.EXTENSIONS,
                () -> new ByteArrayInputStream(new byte[0]));
        List<Module> mlp = List.of(tools.load(EXAMPLES.resolve("mlp.vmasm").toString()));
        List<Module> mul = List.of(tools.load(EXAMPLES.resolve("simple_mul.vmasm").toString()));
        List<Module> pipelined = List.of(tools.load(EXAMPLES.resolve("pipelined.vmasm").toString()));
        // Warm up (classes, the JIT, lazily opened jars) before taking the baseline.
        invokeBoth(tools, mlp, mul);
        invokePipelined(tools, pipelined);

        Set<Thread> threadsBefore = workers();
        long halBytesBefore = localTask.liveBytes();
        long offHeapBefore = offHeapBytes();
        long descriptorsBefore = openFileDescriptors();
        for (int i = 0; i < INVOCATIONS / 2; i++) {
            invokeBoth(tools, mlp, mul);
        }
        for (int i = 0; i < INVOCATIONS / 10; i++) {
            invokePipelined(tools, pipelined);
        }

        awaitAtMost("live local-task devices", localTask::liveDevices, 0);
        Set<Thread> threadsAfter = workers();
        threadsAfter.removeAll(threadsBefore);
        assertTrue(threadsAfter.isEmpty(), "worker threads left after " + INVOCATIONS + " invocations: "
                + threadsAfter.size() + " " + threadsAfter);
        awaitAtMost("off-heap bytes of HAL buffers", localTask::liveBytes, halBytesBefore);
        awaitAtMost("off-heap bytes of the JVM's direct and mapped buffer pools", Issue15InvokeLeakTest::offHeapBytes,
                offHeapBefore);
        if (descriptorsBefore >= 0) {
            // A small slack for descriptors the JVM opens on its own; a leak per call would be 200.
            awaitAtMost("open file descriptors", Issue15InvokeLeakTest::openFileDescriptors, descriptorsBefore + 8);
        }
        // Each call's hal module registered the hal types once more; closing the tools (the shell
        // component deactivating) must leave none, or another modules.hal revision cannot register.
        tools.close();
        assertEquals(null, instance.lookupType("hal.device"), "hal types still registered");
    }

    private static void invokeBoth(VmTools tools, List<Module> mlp, List<Module> mul) {
        String predicted = tools.invoke(mlp, "mlp.predict", List.of("1x784xf32=0.5"));
        assertTrue(predicted.startsWith("EXEC @predict\nresult[0]: hal.buffer_view\n1x10xf32=[0.0"), predicted);
        assertEquals("EXEC @simple_mul\nresult[0]: hal.buffer_view\n4xf32=2 4 6 8",
                tools.invoke(mul, "simple_mul.simple_mul", List.of("4xf32=1 2 3 4", "4xf32=2")));
    }

    /** The stream-ordered example, synchronous and with IREE's coarse-fences ABI (fences appended). */
    private static void invokePipelined(VmTools tools, List<Module> pipelined) {
        String expected = "result[0]: hal.buffer_view\n4xf32=1 8 27 64";
        assertEquals("EXEC @cube\n" + expected, tools.invoke(pipelined, "pipelined.cube", List.of("4xf32=1 2 3 4")));
        assertEquals("EXEC @cube$async\n" + expected,
                tools.invoke(pipelined, "pipelined.cube$async", List.of("4xf32=1 2 3 4")));
    }

    /** Live executor worker threads ({@code ortho-worker-N}) of any executor in this JVM. */
    static Set<Thread> workers() {
        Set<Thread> workers = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("ortho-worker-")) {
                workers.add(t);
            }
        }
        return workers;
    }

    /**
     * Bytes of the JVM's direct and mapped NIO buffer pools ({@code Arena} memory, which HAL
     * buffers use, is not counted there: the driver's own counter covers it).
     */
    static long offHeapBytes() {
        long bytes = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            bytes += Math.max(0, pool.getMemoryUsed());
        }
        return bytes;
    }

    /** Open file descriptors of this process (Linux {@code /proc/self/fd}), or -1 where unknown. */
    static long openFileDescriptors() {
        Path fds = Path.of("/proc/self/fd");
        if (!Files.isDirectory(fds)) {
            return -1;
        }
        try (Stream<Path> list = Files.list(fds)) {
            return list.count();
        } catch (java.io.IOException e) {
            return -1;
        }
    }

    /**
     * Waits (collecting garbage, bounded) until {@code value} is at most {@code limit}; fails with
     * the last value. Garbage collection lets memory only the GC frees (mapped archives) go.
     */
    static void awaitAtMost(String what, LongSupplier value, long limit) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE_NANOS;
        long last = value.getAsLong();
        while (last > limit) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(what + ": " + last + " now, expected at most " + limit);
            }
            System.gc();
            Thread.sleep(50);
            last = value.getAsLong();
        }
    }
}
