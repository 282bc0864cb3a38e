package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.builtin.BuiltinKernels;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.trace.AllocationEvent;
import dev.ortho.hal.trace.DispatchTilesEvent;
import dev.ortho.hal.trace.QueueOperationEvent;
import dev.ortho.hal.trace.SemaphoreSignalEvent;
import dev.ortho.hal.trace.SemaphoreWaitEvent;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HAL's JFR events as local-task emits them under a recording: one DispatchTiles event per
 * worker per region whose tiles add up to the region's workgroups, queue operations from submit
 * to retire (failed ones marked), allocations, semaphore signals and blocking waits.
 */
class LocalTaskTraceEventsTest {
    private final ExecutableLoaders libraries = TestLoaders.standard();

    @TempDir
    Path dir;

    private static long sum(List<RecordedEvent> events, String type, String field, Predicate<RecordedEvent> which) {
        return events.stream().filter(e -> e.getEventType().getName().equals(type)).filter(which)
                .mapToLong(e -> e.getLong(field)).sum();
    }

    @Test
    void recordingSeesTilesPerWorkerQueueOperationsAllocationsAndSemaphores() throws Exception {
        String deviceName;
        Path jfr = dir.resolve("trace.jfr");
        try (Recording recording = new Recording()) {
            for (String name : List.of(QueueOperationEvent.NAME, DispatchTilesEvent.NAME, AllocationEvent.NAME,
                    SemaphoreSignalEvent.NAME, SemaphoreWaitEvent.NAME)) {
                recording.enable(name).withoutThreshold();
            }
            recording.start();
            try (LocalTaskDriver driver = new LocalTaskDriver(libraries, LocalTaskOptions.DEFAULTS, QueueAxes.process());
                    LocalTaskDevice device = (LocalTaskDevice) driver.createDevice(
                            DeviceUri.parse("local-task://?task_topology_group_count=2"));
                    ExecutableCache cache = device.createExecutableCache("t");
                    Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                            JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                    Buffer out = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4 * 4096);
                    CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 0);
                    Semaphore done = device.createSemaphore(0);
                    Semaphore failed = device.createSemaphore(0);
                    Semaphore after = device.createSemaphore(0);
                    Semaphore host = device.createSemaphore(0)) {
                deviceName = device.info().name();
                cb.begin();
                cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(37, 1, 1),
                        MemorySegment.ofArray(new int[] {4096, 1}), new BufferRef[] {BufferRef.of(out)}, 0);
                cb.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.DISPATCH, 0);
                cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(5, 1, 1),
                        MemorySegment.ofArray(new int[] {4096, 2}), new BufferRef[] {BufferRef.of(out)}, 0);
                cb.end();
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1),
                        cb, BindingTable.empty(), 0);
                done.await(1, Timeout.ofNanos(60_000_000_000L));

                failed.fail(new StatusException(StatusCode.ABORTED, "test failure"));
                device.queueBarrier(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(failed, 1), SemaphoreList.of(after, 1), 0);

                // A blocking host wait: signal only once the main thread is parked in await.
                Thread main = Thread.currentThread();
                Thread signaller = Thread.ofPlatform().start(() -> {
                    while (main.getState() != Thread.State.TIMED_WAITING && main.getState() != Thread.State.WAITING) {
                        Thread.onSpinWait();
                    }
                    host.signal(3);
                });
                host.await(3, Timeout.ofNanos(60_000_000_000L));
                signaller.join();
            }
            recording.stop();
            recording.dump(jfr);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(jfr);
        String device = deviceName;

        assertEquals(37, sum(events, DispatchTilesEvent.NAME, "tiles",
                e -> e.getString("device").equals(device) && e.getInt("region") == 0));
        assertEquals(5, sum(events, DispatchTilesEvent.NAME, "tiles",
                e -> e.getString("device").equals(device) && e.getInt("region") == 1));
        for (RecordedEvent e : events) {
            if (e.getEventType().getName().equals(DispatchTilesEvent.NAME)) {
                assertEquals("fill_x32", e.getString("commands"));
                assertEquals(2, e.getInt("workers"));
                // 2: the waiting main thread ran tiles itself (task_waiter_helps, processor id worker_count)
                assertTrue(e.getInt("worker") >= 0 && e.getInt("worker") <= 2, "worker " + e.getInt("worker"));
                assertTrue(e.getLong("tiles") > 0);
            }
        }
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals(QueueOperationEvent.NAME)
                && e.getString("kind").equals("EXECUTE") && !e.getBoolean("failed") && e.getInt("queue") == 0));
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals(QueueOperationEvent.NAME)
                && e.getString("kind").equals("BARRIER") && e.getBoolean("failed")));
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals(AllocationEvent.NAME)
                && e.getLong("size") == 4 * 4096 && !e.getBoolean("queueOrdered")));
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals(SemaphoreSignalEvent.NAME)
                && e.getLong("value") == 3));
        assertTrue(events.stream().anyMatch(e -> e.getEventType().getName().equals(SemaphoreWaitEvent.NAME)
                && e.getLong("value") == 3 && !e.getBoolean("failed")));
    }
}
