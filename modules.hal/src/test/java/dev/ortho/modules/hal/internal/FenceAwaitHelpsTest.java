package dev.ortho.modules.hal.internal;

import static dev.ortho.modules.hal.internal.Harness.p;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Driver;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDriverFactory;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.RefObject;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a synchronous invocation waiting in {@code hal.fence.await} (how IREE-compiled
 * programs wait; {@code run-module}, {@code benchmark-module}) on a {@code local-task} fence runs
 * the tiles of the operation that signals it, as {@code Semaphore.await} does
 * ({@code task_waiter_helps}, the default): with processor id {@code worker_count}, stopping at
 * a kernel failure (which fails the semaphore, not the waiter) and at the wait's deadline.
 * Workers' tiles block on {@link #hold} until the invoking thread parks, so it finds tiles left.
 */
class FenceAwaitHelpsTest {
    private static final int WORKERS = 2;
    private static final int TILES = 64;
    private static final long INFINITE = -1;

    private final AtomicIntegerArray processorOf = new AtomicIntegerArray(TILES);
    private final AtomicInteger onWaiter = new AtomicInteger();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile CountDownLatch hold = new CountDownLatch(0);
    private volatile Thread testThread;
    /** Command buffers submitted by the test, released when it ends. */
    private final List<CommandBuffer> submitted = new java.util.ArrayList<>();

    private record Library(String name, List<KernelFunction> functions) implements KernelLibrary {}

    /** Runs one tile: blocks a worker until let go; counts the tiles of the test thread. */
    private boolean tile() {
        ran.incrementAndGet();
        if (Thread.currentThread() != testThread) {
            try {
                hold.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return false;
        }
        onWaiter.incrementAndGet();
        return true;
    }

    private KernelLibrary library() {
        Kernel record = (d, w) -> {
            tile();
            processorOf.set(w.workgroupIdX(), w.processorId());
        };
        Kernel failOnWaiter = (d, w) -> {
            if (tile()) {
                throw new StatusException(StatusCode.DATA_LOSS, "tile " + w.workgroupIdX() + " failed on the waiter");
            }
        };
        Kernel slowOnWaiter = (d, w) -> {
            if (tile()) {
                try {
                    Thread.sleep(200); // past the wait's 20 ms timeout: the waiter must stop after this tile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        return new Library("fencehelps", List.of(
                new KernelFunction(new ExecutableFunctionInfo("record", 0, 0, 1, 1, 1, 0), record),
                new KernelFunction(new ExecutableFunctionInfo("failOnWaiter", 0, 0, 1, 1, 1, 0), failOnWaiter),
                new KernelFunction(new ExecutableFunctionInfo("slowOnWaiter", 0, 0, 1, 1, 1, 0), slowOnWaiter)));
    }

    @FunctionalInterface
    private interface Body {
        void run(Harness h, Device device, Executable exe) throws Exception;
    }

    private void withHarness(Body body) throws Exception {
        testThread = Thread.currentThread();
        try (CpuDriverFactory factory = CpuDrivers.builder().kernelLibrary(library()).workerCount(WORKERS)
                        .localTaskFactory();
                Driver driver = factory.createDriver("local-task")) {
            Device device = driver.createDevice(DeviceUri.parse("local-task://"));
            try (Harness h = new Harness(device, null);
                    ExecutableCache cache = device.createExecutableCache("c");
                    Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                            JvmStaticFormat.encode("fencehelps"), new int[0]))) {
                try {
                    body.run(h, device, exe);
                } finally {
                    submitted.forEach(CommandBuffer::release);
                }
            }
        }
    }

    /**
     * Submits {@code function} over {@link #TILES} workgroups signalling a new semaphore to 1 with
     * the workers' tiles held, and returns a {@code hal.fence} ref on that value (owned by the caller).
     */
    private RefObject submitHeld(Device device, Executable exe, String function, CountDownLatch gate) {
        hold = gate;
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
        submitted.add(cb);
        try (Semaphore s = device.createSemaphore(0)) {
            cb.begin();
            cb.dispatch(exe, exe.lookupFunction(function), DispatchConfig.ofCount(TILES, 1, 1), MemorySegment.NULL,
                    new BufferRef[0], 0);
            cb.end();
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(s, 1), cb,
                    BindingTable.empty(), 0);
            Fence fence = Fence.at(s, 1);
            try {
                return HalRefs.wrap(fence);
            } finally {
                fence.release();
            }
        }
    }

    /** Lets the workers go once the test thread parks (nothing left for it; at most 30 s). */
    private Thread releaseWhenWaiterParks(CountDownLatch gate) {
        Thread waiter = testThread;
        return Thread.ofPlatform().start(() -> {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.getState() != Thread.State.WAITING
                    && System.nanoTime() < end) {
                Thread.onSpinWait();
            }
            gate.countDown();
        });
    }

    @FunctionalInterface
    private interface FenceWait {
        void run(Harness h, RefObject fence) throws Exception;
    }

    /**
     * Submits {@code function} with the workers' tiles held and runs {@code wait} on this thread
     * with the fence it signals; the workers are let go once this thread parks.
     */
    private void waitWithTilesHeld(String function, FenceWait wait) throws Exception {
        withHarness((h, device, exe) -> {
            CountDownLatch gate = new CountDownLatch(1);
            RefObject fence = submitHeld(device, exe, function, gate);
            Thread releaser = releaseWhenWaiterParks(gate);
            try {
                wait.run(h, fence);
            } finally {
                gate.countDown();
                releaser.join();
                fence.release();
            }
        });
    }

    @Test
    void theInvokingThreadRunsTheTilesLeftWithProcessorIdWorkerCount() throws Exception {
        waitWithTilesHeld("record", (h, fence) -> {
            assertEquals(0, h.call("fence.await", p(INFINITE, 0, 1), fence).i32(0));
            assertEquals(TILES, ran.get(), "every workgroup ran once");
            // Before: the invoking thread parked and the workers ran every tile.
            // The workers hold at most one batch each (MAX(1, 64 / (4 * 2)) = 8) while blocked.
            assertTrue(onWaiter.get() >= TILES - 2 * 8, "tiles on the invoking thread: " + onWaiter.get());
            int withWaiterId = 0;
            for (int i = 0; i < TILES; i++) {
                assertTrue(processorOf.get(i) <= WORKERS, "workgroup " + i + " processor " + processorOf.get(i));
                withWaiterId += processorOf.get(i) == WORKERS ? 1 : 0;
            }
            assertEquals(onWaiter.get(), withWaiterId, "the waiter's tiles carry processor id worker_count");
        });
    }

    @Test
    void aKernelFailureOnTheInvokingThreadFailsTheFenceNotTheWaiter() throws Exception {
        waitWithTilesHeld("failOnWaiter", (h, fence) -> {
            StatusException e = h.fails(StatusCode.DATA_LOSS, "fence.await", p(INFINITE, 0, 1), fence);
            assertTrue(e.getMessage().contains("failed on the waiter"), e.getMessage());
            assertEquals(1, onWaiter.get(), "the waiter stops at the failure");
            assertEquals(StatusCode.DATA_LOSS.value(), h.call("fence.query", p(), fence).i32(0),
                    "the operation's fence carries it");
        });
    }

    @Test
    void aTimedWaitStopsHelpingAtItsDeadline() throws Exception {
        withHarness((h, device, exe) -> {
            CountDownLatch gate = new CountDownLatch(1);
            RefObject fence = submitHeld(device, exe, "slowOnWaiter", gate);
            try {
                assertEquals(StatusCode.DEADLINE_EXCEEDED.value(), h.call("fence.await", p(20, 0, 1), fence).i32(0));
                assertEquals(1, onWaiter.get(), "one tile (the one that ran past the deadline), no more");
                assertEquals(StatusCode.DEADLINE_EXCEEDED.value(), h.call("fence.await", p(0, 0, 1), fence).i32(0));
                assertEquals(1, onWaiter.get(), "an expired wait runs nothing");
            } finally {
                testThread = null; // the tiles left run without a pause, on whichever thread
                gate.countDown();
            }
            assertEquals(0, h.call("fence.await", p(INFINITE, 0, 1), fence).i32(0));
            fence.release();
        });
    }
}
