package dev.ortho.hal.cpu.internal.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.internal.task.LocalTaskDevice;
import dev.ortho.hal.cpu.internal.task.LocalTaskDriver;
import dev.ortho.hal.cpu.internal.task.LocalTaskOptions;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.QueueAxes;
import org.junit.jupiter.api.Test;

/**
 * Issue 17: the two local devices share one core and one tile engine, so they fail the same way
 * with the same messages; what the CTS cannot see (which queue a submission ran on, how the
 * messages name slots and affinities) is checked here.
 */
class Issue17LocalDeviceTest {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private final ExecutableLoaders libraries = TestLoaders.standard();

    private LocalTaskDevice localTask(int queues) {
        try (LocalTaskDriver driver = new LocalTaskDriver(libraries, LocalTaskOptions.DEFAULTS, QueueAxes.process())) {
            return (LocalTaskDevice) driver.createDevice(DeviceUri.parse("local-task://?queue_count=" + queues
                    + "&task_topology_group_count=2"));
        }
    }

    private Device localSync() {
        try (LocalSyncDriver driver = new LocalSyncDriver(libraries)) {
            return driver.createDevice(DeviceUri.parse("local-sync://"));
        }
    }

    private static StatusException overlapFailure(Device device) {
        try (Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4096);
                CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER, Device.QUEUE_AFFINITY_ANY,
                        2);
                Semaphore done = device.createSemaphore(0)) {
            cb.begin();
            cb.copyBuffer(BufferRef.slot(0, 0, 2048), BufferRef.slot(1, 0, 2048), 0);
            cb.end();
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, 1), cb,
                    BindingTable.of(new Buffer[] {a, a}, new long[] {0, 1024}, new long[] {2048, 2048}), 0);
            return assertThrows(StatusException.class, () -> done.await(1, Timeout.infinite()));
        }
    }

    /**
     * A queue fill is checked without building its command ({@code LocalCommands.fillLength}), but
     * fails as the same fill recorded into a command buffer does: same code, same message.
     */
    @Test
    void aQueueFillFailsWithTheMessagesOfARecordedFill() {
        long[][] bad = { // offset, length, pattern length
            {-4, 4, 4}, {0, -2, 4}, {4000, 200, 4}, {4096 + 4, Buffer.WHOLE_BUFFER, 4}, {0, 6, 4}, {2, 4, 4},
            {0, 4, 3}};
        try (Device sync = localSync(); Device task = localTask(1)) {
            for (Device device : new Device[] {sync, task}) {
                try (Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4096);
                        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER,
                                Device.QUEUE_AFFINITY_ANY, 0)) {
                    cb.begin();
                    for (long[] args : bad) {
                        StatusException recorded = assertThrows(StatusException.class, () -> cb.fillBuffer(
                                BufferRef.of(a, args[0], args[1]), 7, (int) args[2], 0));
                        StatusException queued = assertThrows(StatusException.class, () -> device.queueFill(
                                Device.QUEUE_AFFINITY_ANY, NONE, NONE, a, args[0], args[1], 7, (int) args[2], 0));
                        assertEquals(recorded.code(), queued.code(), device + " " + java.util.Arrays.toString(args));
                        assertEquals(recorded.getMessage(), queued.getMessage());
                    }
                    StatusException nullTarget = assertThrows(StatusException.class, () -> device.queueFill(
                            Device.QUEUE_AFFINITY_ANY, NONE, NONE, null, 0, 4, 7, 4, 0));
                    assertEquals(StatusCode.INVALID_ARGUMENT, nullTarget.code());
                    assertEquals("fill target is null", nullTarget.getMessage());
                }
            }
        }
    }

    @Test
    void bothDevicesFailAnAliasedCopyWithTheSameMessageNamingTheSlots() {
        StatusException task;
        StatusException sync;
        try (Device device = localTask(1)) {
            task = overlapFailure(device);
        }
        try (Device device = localSync()) {
            sync = overlapFailure(device);
        }
        assertEquals(StatusCode.INVALID_ARGUMENT, task.code(), task.getMessage());
        assertEquals(sync.getMessage(), task.getMessage());
        assertTrue(task.getMessage().contains("range [0, 2048) of binding table slot 0")
                && task.getMessage().contains("range [0, 2048) of binding table slot 1")
                && task.getMessage().contains("while preparing command 0"), task.getMessage());
    }

    @Test
    void executeRunsOnTheLowestQueueBothAffinitiesSelect() {
        try (LocalTaskDevice device = localTask(3);
                Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                CommandBuffer onQueue2 = device.createCommandBuffer(0, CommandCategory.TRANSFER, 0b100, 0);
                Semaphore done = device.createSemaphore(0)) {
            onQueue2.begin();
            onQueue2.fillBuffer(BufferRef.of(a), 1, 4, 0);
            onQueue2.end();
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, 1), onQueue2,
                    BindingTable.empty(), 0);
            done.await(1, Timeout.infinite());
            Frontier signalled = new Frontier(8);
            assertTrue(done.frontierAt(1, signalled));
            assertEquals(1, signalled.epochOf(device.queueAxis(2)), "ran on queue 2: " + signalled);
            assertEquals(0, signalled.epochOf(device.queueAxis(0)), "not on queue 0: " + signalled);
        }
    }

    @Test
    void disjointAffinitiesAreRefusedNamingBoth() {
        try (LocalTaskDevice device = localTask(3);
                CommandBuffer onQueue2 = device.createCommandBuffer(0, CommandCategory.TRANSFER, 0b100, 0)) {
            onQueue2.begin();
            onQueue2.end();
            var e = assertThrows(StatusException.class,
                    () -> device.queueExecute(0b011, NONE, NONE, onQueue2, BindingTable.empty(), 0));
            assertSame(StatusCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("queue affinity 0x3 and the command buffer's queue affinity 0x4"),
                    e.getMessage());
            assertEquals(0, device.liveOperations(), "nothing was submitted");
        }
    }

    /**
     * A submission's resources are released before its signals: a host that observed the signal
     * finds the buffer it gave up already freed (as after a synchronous device's call). Before,
     * local-task signalled first and released after, so the check raced the worker
     * (CpuDriversTest saw an executable still alive after the await).
     */
    @Test
    void localTaskReleasesWhatASubmissionUsedBeforeItSignals() {
        try (LocalTaskDevice device = localTask(1); Semaphore done = device.createSemaphore(0)) {
            for (int i = 1; i <= 500; i++) {
                Buffer target = device.allocator().allocateBuffer(BufferParams.hostLocal(), 256);
                device.queueFill(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, i), target, 0, 256, i, 4, 0);
                target.release(); // the submission holds the last reference
                done.await(i, Timeout.infinite());
                assertEquals(0, device.allocator().statistics().bytesLive(), "submission " + i);
            }
        }
    }
}
