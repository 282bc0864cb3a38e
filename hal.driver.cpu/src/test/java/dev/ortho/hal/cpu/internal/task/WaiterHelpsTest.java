package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
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
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDriverFactory;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.cpu.kernel.Kernel;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.KernelLibrary;
import dev.ortho.hal.trace.DispatchTilesEvent;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 ({@code task_waiter_helps}, the default): a host thread waiting for a semaphore value
 * that the operation current in a block processor signals runs that operation's unclaimed tiles
 * itself, with processor id {@code worker_count}, instead of parking; the submission stays
 * asynchronous. Workers' tiles block on {@link #hold} so the waiter finds tiles left to claim; a
 * releaser opens it once the waiter parks (nothing left for it).
 */
class WaiterHelpsTest {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30));
    private static final int WORKERS = 2;
    private static final int TILES = 64;

    private final AtomicReferenceArray<Thread> ranOn = new AtomicReferenceArray<>(TILES);
    private final AtomicIntegerArray processorOf = new AtomicIntegerArray(TILES);
    private final AtomicInteger duplicates = new AtomicInteger();
    private volatile CountDownLatch hold = new CountDownLatch(0);
    private volatile Thread testThread;

    private record Library(String name, List<KernelFunction> functions) implements KernelLibrary {}

    private void blockUnlessWaiter() {
        if (Thread.currentThread() != testThread) {
            try {
                hold.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private KernelLibrary library() {
        Kernel record = (d, w) -> {
            blockUnlessWaiter();
            processorOf.set(w.workgroupIdX(), w.processorId());
            if (!ranOn.compareAndSet(w.workgroupIdX(), null, Thread.currentThread())) {
                duplicates.incrementAndGet();
            }
        };
        Kernel failOnWaiter = (d, w) -> {
            blockUnlessWaiter();
            if (Thread.currentThread() == testThread) {
                throw new StatusException(StatusCode.DATA_LOSS, "tile " + w.workgroupIdX() + " failed on the waiter");
            }
        };
        Kernel slowOnWaiter = (d, w) -> {
            blockUnlessWaiter();
            if (Thread.currentThread() == testThread) {
                ranOn.set(w.workgroupIdX(), testThread);
                try {
                    Thread.sleep(200); // past the waiter's 20 ms timeout: it must stop after this tile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        return new Library("waiterhelps", List.of(
                new KernelFunction(new ExecutableFunctionInfo("record", 0, 0, 1, 1, 1, 0), record),
                new KernelFunction(new ExecutableFunctionInfo("failOnWaiter", 0, 0, 1, 1, 1, 0), failOnWaiter),
                new KernelFunction(new ExecutableFunctionInfo("slowOnWaiter", 0, 0, 1, 1, 1, 0), slowOnWaiter)));
    }

    @FunctionalInterface
    private interface DeviceBody {
        void run(LocalTaskDevice device, Executable exe) throws Exception;
    }

    private void withDevice(String params, DeviceBody body) throws Exception {
        testThread = Thread.currentThread();
        try (CpuDriverFactory factory = CpuDrivers.builder().kernelLibrary(library()).workerCount(WORKERS)
                        .localTaskFactory();
                Driver driver = factory.createDriver("local-task");
                Device device = driver.createDevice(DeviceUri.parse("local-task://" + params));
                ExecutableCache cache = device.createExecutableCache("c");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode("waiterhelps"), new int[0]))) {
            body.run((LocalTaskDevice) device, exe);
        }
    }

    private static CommandBuffer dispatch(Device device, Executable exe, String function, int tiles) {
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.DISPATCH, Device.QUEUE_AFFINITY_ANY, 0);
        cb.begin();
        cb.dispatch(exe, exe.lookupFunction(function), DispatchConfig.ofCount(tiles, 1, 1), MemorySegment.NULL,
                new BufferRef[0], 0);
        cb.end();
        return cb;
    }

    /** Holds the workers' tiles until the test thread parks (or the value is reached), then lets them go. */
    private Thread releaseWhenWaiterParks(CountDownLatch gate, Semaphore s, long value) {
        Thread waiter = testThread;
        return Thread.ofPlatform().start(() -> {
            while (waiter.getState() != Thread.State.TIMED_WAITING && waiter.getState() != Thread.State.WAITING
                    && !reached(s, value)) {
                Thread.onSpinWait();
            }
            gate.countDown();
        });
    }

    private static boolean reached(Semaphore s, long value) {
        try {
            return s.query() >= value;
        } catch (StatusException failed) {
            return true;
        }
    }

    @FunctionalInterface
    private interface Wait {
        void await(Semaphore s) throws Exception;
    }

    /**
     * Submits {@code cb} signalling {@code s} to 1 with the workers' tiles held, then waits with
     * {@code wait} on this thread; the workers are let go once it parks.
     */
    private void submitHeldAndWait(LocalTaskDevice device, CommandBuffer cb, Semaphore s, Wait wait)
            throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        hold = gate;
        try {
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1), cb,
                    BindingTable.empty(), 0);
            assertEquals(0, device.callerTiles(0), "the submission stays asynchronous");
            Thread releaser = releaseWhenWaiterParks(gate, s, 1);
            try {
                wait.await(s);
            } finally {
                releaser.join();
            }
        } finally {
            gate.countDown();
            hold = new CountDownLatch(0);
        }
    }

    @Test
    void aWaiterRunsTheTilesLeftWithProcessorIdWorkerCount() throws Exception {
        withDevice("", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0); CommandBuffer cb = dispatch(device, exe, "record", TILES)) {
                submitHeldAndWait(device, cb, s, held -> held.await(1, GUARD));
                int onWaiter = 0;
                for (int i = 0; i < TILES; i++) {
                    assertTrue(ranOn.get(i) != null, "workgroup " + i + " ran");
                    if (ranOn.get(i) == testThread) {
                        onWaiter++;
                        assertEquals(WORKERS, processorOf.get(i), "the waiter's processor id, workgroup " + i);
                    } else {
                        assertTrue(processorOf.get(i) < WORKERS, "a worker's id, workgroup " + i);
                    }
                }
                // The workers hold at most one batch each (MAX(1, 64 / (4 * 2)) = 8) while blocked.
                assertTrue(onWaiter >= TILES - 2 * 8, "tiles on the waiter: " + onWaiter);
                assertEquals(onWaiter, device.waiterTiles(0));
                assertEquals(0, duplicates.get(), "every workgroup ran once");
            }
        });
    }

    @Test
    void aFenceWaitAllHelpsToo() throws Exception {
        withDevice("", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0); CommandBuffer cb = dispatch(device, exe, "record", TILES)) {
                submitHeldAndWait(device, cb, s, held -> SemaphoreList.of(held, 1).awaitAll(GUARD));
                assertTrue(device.waiterTiles(0) >= TILES - 2 * 8, "tiles on the waiter: " + device.waiterTiles(0));
                assertEquals(0, duplicates.get());
            }
        });
    }

    @Test
    void withWaiterHelpsOffTheWaiterRunsNoTile() throws Exception {
        withDevice("?task_waiter_helps=0", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0); CommandBuffer cb = dispatch(device, exe, "record", TILES)) {
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1), cb,
                        BindingTable.empty(), 0);
                s.await(1, GUARD);
                for (int i = 0; i < TILES; i++) {
                    assertNotSame(testThread, ranOn.get(i), "workgroup " + i);
                }
                assertEquals(0, device.waiterTiles(0));
            }
        });
    }

    @Test
    void theBuilderSetsTheOptionAndTheUriOverridesIt() throws Exception {
        try (Device on = CpuDrivers.builder().workerCount(1).localTask();
                Device off = CpuDrivers.builder().workerCount(1).waiterHelps(false).localTask()) {
            assertTrue(((LocalTaskDevice) on).waiterHelps(0), "on by default");
            assertFalse(((LocalTaskDevice) off).waiterHelps(0));
        }
        try (CpuDriverFactory factory = CpuDrivers.builder().workerCount(1).waiterHelps(false).localTaskFactory();
                Driver driver = factory.createDriver("local-task");
                Device device = driver.createDevice(DeviceUri.parse("local-task://?task_waiter_helps=1"))) {
            assertTrue(((LocalTaskDevice) device).waiterHelps(0));
        }
        StatusException e = assertThrows(StatusException.class, () -> withDevice("?task_waiter_helps=2", (d, x) -> { }));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("task_waiter_helps='2'"), e.getMessage());
    }

    @Test
    void aKernelFailureOnTheWaiterFailsTheSemaphoreWithTheKernelsStatus() throws Exception {
        withDevice("", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0);
                    CommandBuffer cb = dispatch(device, exe, "failOnWaiter", TILES)) {
                StatusException[] thrown = new StatusException[1];
                submitHeldAndWait(device, cb, s,
                        held -> thrown[0] = assertThrows(StatusException.class, () -> held.await(1, GUARD)));
                StatusException e = thrown[0];
                assertEquals(StatusCode.DATA_LOSS, e.code(), e.getMessage());
                assertTrue(e.getMessage().contains("failed on the waiter"), e.getMessage());
                assertEquals(1, device.waiterTiles(0), "the waiter stops at the failure");
                StatusException again = assertThrows(StatusException.class, s::query);
                assertEquals(StatusCode.DATA_LOSS, again.code(), "the operation's semaphore carries it");
            }
        });
    }

    @Test
    void aTimedOutWaiterStopsHelpingAtItsDeadlineAndReportsDeadlineExceeded() throws Exception {
        withDevice("", (device, exe) -> {
            try (Semaphore s = device.createSemaphore(0);
                    CommandBuffer cb = dispatch(device, exe, "slowOnWaiter", TILES)) {
                CountDownLatch gate = new CountDownLatch(1);
                hold = gate;
                try {
                    device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1), cb,
                            BindingTable.empty(), 0);
                    StatusException e = assertThrows(StatusException.class,
                            () -> s.await(1, Timeout.of(Duration.ofMillis(20))));
                    assertEquals(StatusCode.DEADLINE_EXCEEDED, e.code(), e.getMessage());
                    // Before the fix of a waiter that ignored its deadline: every unclaimed tile ran here.
                    assertEquals(1, device.waiterTiles(0), "one tile (the one that ran past the deadline), no more");
                    assertEquals(0, s.query());
                    // An expired wait runs nothing at all.
                    assertThrows(StatusException.class, () -> s.await(1, Timeout.immediate()));
                    assertEquals(1, device.waiterTiles(0));
                } finally {
                    gate.countDown();
                }
                s.await(1, Timeout.of(Duration.ofSeconds(30)));
            } finally {
                hold = new CountDownLatch(0);
            }
        });
    }

    @Test
    void aWaiterOnAHostSignalledSemaphoreRunsNothing() throws Exception {
        withDevice("", (device, exe) -> {
            try (Semaphore host = device.createSemaphore(0); Semaphore s = device.createSemaphore(0);
                    CommandBuffer cb = dispatch(device, exe, "record", TILES)) {
                CountDownLatch gate = new CountDownLatch(1);
                hold = gate;
                try {
                    device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1), cb,
                            BindingTable.empty(), 0);
                    // host is signalled by nobody but the host: waiting on it must not run s's tiles.
                    assertThrows(StatusException.class, () -> host.await(1, Timeout.of(Duration.ofMillis(5))));
                    assertEquals(0, device.waiterTiles(0));
                } finally {
                    gate.countDown();
                }
                s.await(1, GUARD);
            } finally {
                hold = new CountDownLatch(0);
            }
        });
    }

    @Test
    void theWaitersTilesAreTracedOnTheirOwnProcessorId() throws Exception {
        Path jfr = Files.createTempFile("waiterhelps", ".jfr");
        try {
            try (Recording recording = new Recording()) {
                recording.enable(DispatchTilesEvent.NAME).withoutThreshold();
                recording.start();
                aWaiterRunsTheTilesLeftWithProcessorIdWorkerCount();
                recording.stop();
                recording.dump(jfr);
            }
            List<RecordedEvent> events = RecordingFile.readAllEvents(jfr).stream()
                    .filter(e -> e.getEventType().getName().equals(DispatchTilesEvent.NAME)).toList();
            long waiterTiles = events.stream().filter(e -> e.getInt("worker") == WORKERS)
                    .mapToLong(e -> e.getLong("tiles")).sum();
            assertTrue(waiterTiles >= TILES - 2 * 8, "tiles traced on the caller track: " + waiterTiles);
            assertEquals(TILES, events.stream().mapToLong(e -> e.getLong("tiles")).sum());
            for (RecordedEvent e : events) {
                assertEquals(WORKERS, e.getInt("workers"));
                assertNotEquals(-1, e.getInt("worker"));
            }
        } finally {
            Files.deleteIfExists(jfr);
        }
    }
}
