package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
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
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDriverFactory;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 (submit → first workgroup): the thread that submits a command buffer or dispatch whose
 * waits are reached, with nothing running before it on the queue's processor, runs the first tile
 * itself instead of waiting for a parked worker to be woken ({@code task_caller_runs=1}); the
 * workers take the rest. Off by default (IREE's behaviour: every tile runs on a worker).
 */
class CallerRunsTest {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30));
    private static final int TILES = 64;

    /** Which thread ran each workgroup (x) of the current submission. */
    private final AtomicReferenceArray<Thread> ranOn = new AtomicReferenceArray<>(TILES);
    /** Held closed while a test wants a worker's tile to block; tiles on the test thread never block. */
    private volatile CountDownLatch hold = new CountDownLatch(0);
    private volatile Thread testThread;
    /** Workgroups recorded twice in one submission (asserted on the test thread). */
    private final AtomicInteger duplicates = new AtomicInteger();
    /** The thread that last ran function {@code where}. */
    private volatile Thread whereRan;

    private record Library(String name, List<KernelFunction> functions) implements KernelLibrary {}

    private KernelLibrary library() {
        Kernel record = (d, w) -> {
            if (Thread.currentThread() != testThread) {
                try {
                    hold.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (!ranOn.compareAndSet(w.workgroupIdX(), null, Thread.currentThread())) {
                duplicates.incrementAndGet();
            }
        };
        Kernel where = (d, w) -> whereRan = Thread.currentThread();
        Kernel fail = (d, w) -> {
            throw new StatusException(StatusCode.DATA_LOSS, "tile " + w.workgroupIdX() + " failed");
        };
        return new Library("callerruns", List.of(
                new KernelFunction(new ExecutableFunctionInfo("record", 0, 0, 1, 1, 1, 0), record),
                new KernelFunction(new ExecutableFunctionInfo("fail", 0, 0, 1, 1, 1, 0), fail),
                new KernelFunction(new ExecutableFunctionInfo("where", 0, 0, 1, 1, 1, 0), where)));
    }

    /** Runs {@code body} on a 2-worker local-task device with the given URI parameters. */
    private void withDevice(String params, DeviceBody body) {
        testThread = Thread.currentThread();
        try (CpuDriverFactory factory = CpuDrivers.builder().kernelLibrary(library()).workerCount(2).localTaskFactory();
                Driver driver = factory.createDriver("local-task");
                Device device = driver.createDevice(DeviceUri.parse("local-task://" + params));
                ExecutableCache cache = device.createExecutableCache("c");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode("callerruns"), new int[0]))) {
            body.run((LocalTaskDevice) device, exe);
        }
    }

    @FunctionalInterface
    private interface DeviceBody {
        void run(LocalTaskDevice device, Executable exe);
    }

    /** A command buffer of one dispatch of {@code tiles} workgroups per region, {@code regions} regions. */
    private static CommandBuffer dispatches(Device device, Executable exe, String function, int tiles, int regions) {
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
        cb.begin();
        for (int r = 0; r < regions; r++) {
            if (r > 0) {
                cb.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.DISPATCH, 0);
            }
            cb.dispatch(exe, exe.lookupFunction(function), DispatchConfig.ofCount(tiles, 1, 1), MemorySegment.NULL,
                    new BufferRef[0], 0);
        }
        cb.end();
        return cb;
    }

    /** Submits {@code cb} with no waits, signalling {@code s} to {@code value}. */
    private static void execute(Device device, CommandBuffer cb, Semaphore s, long value) {
        device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, value), cb, BindingTable.empty(), 0);
    }

    private void clearRecord() {
        for (int i = 0; i < TILES; i++) {
            ranOn.set(i, null);
        }
    }

    private int ranOnCaller(int tiles) {
        int n = 0;
        for (int i = 0; i < tiles; i++) {
            assertTrue(ranOn.get(i) != null, "workgroup " + i + " ran");
            if (ranOn.get(i) == testThread) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aOneTileCommandBufferRunsOnTheSubmittingThreadAndRetiresBeforeTheCallReturns() {
        withDevice("?task_caller_runs=1&task_waiter_helps=0", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0); CommandBuffer cb = dispatches(device, exe, "record", 1, 1)) {
                for (int i = 1; i <= 50; i++) {
                    clearRecord();
                    execute(device, cb, s, i);
                    // Before: the tile ran on a worker, usually after the call returned (value i - 1).
                    assertEquals(i, s.query(), "retired and signalled before queueExecute returned");
                    assertSame(testThread, ranOn.get(0));
                }
                assertEquals(50, device.callerTiles(0));
            }
        });
    }

    @Test
    void aOneTileDispatchRunsOnTheSubmittingThread() {
        withDevice("?task_caller_runs=1&task_waiter_helps=0", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0)) {
                device.queueDispatch(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1), exe,
                        exe.lookupFunction("record"), DispatchConfig.ofCount(1, 1, 1), MemorySegment.NULL,
                        new BufferRef[0], 0);
                assertEquals(1, s.query());
                assertSame(testThread, ranOn.get(0));
                assertEquals(1, device.callerTiles(0));
            }
        });
    }

    @Test
    void byDefaultEveryTileRunsOnAWorkerAsInIree() {
        assertEveryTileRunsOnAWorker("?task_waiter_helps=0"); // the waiting test thread would help (WaiterHelpsTest)
    }

    @Test
    void withCallerRunsOffEveryTileRunsOnAWorker() {
        assertEveryTileRunsOnAWorker("?task_caller_runs=0&task_waiter_helps=0");
    }

    @Test
    void byDefaultTheSubmittingThreadRunsNoTileBeforeItWaits() {
        withDevice("", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0); CommandBuffer cb = dispatches(device, exe, "record", 1, 1)) {
                execute(device, cb, s, 1);
                assertEquals(0, device.callerTiles(0), "queueExecute stays asynchronous");
                s.await(1, GUARD);
                assertEquals(device.waiterTiles(0), testThread == ranOn.get(0) ? 1 : 0, "only a waiter's tile");
            }
        });
    }

    private void assertEveryTileRunsOnAWorker(String params) {
        withDevice(params, (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0); CommandBuffer cb = dispatches(device, exe, "record", 1, 1)) {
                execute(device, cb, s, 1);
                s.await(1, GUARD);
                assertNotSame(testThread, ranOn.get(0));
                assertEquals(0, device.callerTiles(0));
            }
        });
    }

    @Test
    void aBadCallerRunsValueIsRejectedWithItsName() {
        StatusException e = assertThrows(StatusException.class, () -> withDevice("?task_caller_runs=yes",
                (device, exe) -> { }));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("task_caller_runs='yes'"), e.getMessage());
    }

    /** Two regions of 64 tiles: the caller runs exactly one tile, the workers every other one. */
    @Test
    void aLargeCommandBufferRunsOneTileOnTheCallerAndTheRestOnTheWorkers() {
        withDevice("?task_caller_runs=1&task_waiter_helps=0", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0);
                    CommandBuffer first = dispatches(device, exe, "record", TILES, 1);
                    CommandBuffer two = dispatches(device, exe, "record", 8, 2)) {
                int onCaller = 0;
                for (int i = 1; i <= 20; i++) {
                    clearRecord();
                    long before = device.callerTiles(0);
                    execute(device, first, s, i);
                    // At most one; none if a worker still finishing the previous round installed
                    // this one after the caller looked (the caller then leaves it to the workers).
                    long ran = device.callerTiles(0) - before;
                    assertTrue(ran == 0 || ran == 1, "tiles on the caller: " + ran);
                    s.await(i, GUARD);
                    assertEquals(ran, ranOnCaller(TILES), "round " + i);
                    onCaller += (int) ran;
                }
                assertTrue(onCaller > 0, "no round ran a tile on the caller");
                assertEquals(0, duplicates.get(), "every workgroup ran once");
                // Two regions of 8 (the second reuses workgroups 0..7): every tile ran once per region;
                // the second region runs after the caller returned, on the workers.
                clearRecord();
                long before = device.callerTiles(0);
                execute(device, two, s, 21);
                s.await(21, GUARD);
                assertTrue(device.callerTiles(0) - before <= 1);
            }
        });
    }

    /**
     * A submission behind one that is still running on the same processor is not run by its
     * submitting thread (that would overtake the one before it): it waits in the ring as before.
     */
    @Test
    void aSubmissionBehindARunningOneIsLeftToTheWorkers() {
        withDevice("?task_caller_runs=1&task_waiter_helps=0", (device, exe) -> {
            try (Semaphore first = device.createSemaphore(0); Semaphore second = device.createSemaphore(0);
                    CommandBuffer two = dispatches(device, exe, "record", 2, 1);
                    CommandBuffer one = dispatches(device, exe, "where", 1, 1)) {
                CountDownLatch gate = new CountDownLatch(1);
                hold = gate;
                try {
                    execute(device, two, first, 1);
                    assertEquals(1, device.callerTiles(0)); // tile 0 here; tile 1 blocks on a worker
                    assertEquals(0, first.query());
                    execute(device, one, second, 1);
                    assertEquals(1, device.callerTiles(0), "not run on the caller while the first runs");
                    assertEquals(0, second.query());
                } finally {
                    gate.countDown();
                }
                first.await(1, GUARD);
                second.await(1, GUARD);
                assertNotSame(testThread, whereRan, "the second submission's tile ran on a worker");
                assertSame(testThread, ranOn.get(0), "the first submission's first tile ran on the caller");
            } finally {
                hold = new CountDownLatch(0);
            }
        });
    }

    @Test
    void aFailingTileOnTheCallerFailsTheSubmissionNotTheCall() {
        withDevice("?task_caller_runs=1&task_waiter_helps=0", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0); CommandBuffer cb = dispatches(device, exe, "fail", 1, 1)) {
                execute(device, cb, s, 1);
                assertEquals(1, device.callerTiles(0));
                StatusException e = assertThrows(StatusException.class, () -> s.await(1, GUARD));
                assertTrue(e.getMessage().contains("tile 0 failed"), e.getMessage());
            }
        });
    }
}
