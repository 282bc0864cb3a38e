package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import dev.ortho.hal.HostCall;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.frontier.QueueAxes;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 18 (local-task latency): operations whose waits are reached are issued by the thread that
 * made them ready, not handed to the queue process first (one wake-up less per submission).
 * Each test holds the queue process on a blocking host call, so an operation that still went
 * through it could not run until the call returns.
 */
class DirectIssueTest {
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A recorded command buffer filling {@code target} with the i32 7. */
    private static CommandBuffer fillOf(Device device, Buffer target) {
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 0);
        cb.begin();
        cb.fillBuffer(BufferRef.of(target), 7, 4, 0);
        cb.end();
        return cb;
    }

    private static LocalTaskDevice device() {
        return device("");
    }

    private static LocalTaskDevice device(String extra) {
        try (LocalTaskDriver driver = new LocalTaskDriver(TestLoaders.standard(), LocalTaskOptions.DEFAULTS,
                QueueAxes.process())) {
            return (LocalTaskDevice) driver.createDevice(
                    DeviceUri.parse("local-task://?task_topology_group_count=2" + extra));
        }
    }

    /** A host call that holds the queue process until {@code release} opens; {@code entered} tells it runs. */
    private static void blockQueueProcess(Device device, CountDownLatch entered, CountDownLatch release,
            Semaphore done) throws InterruptedException {
        HostCall call = (d, args, signals) -> {
            entered.countDown();
            try {
                release.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        };
        device.queueHostCall(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, 1), call, new long[0], 0);
        assertTrue(entered.await(10, TimeUnit.SECONDS), "the host call started");
    }

    @Test
    void aCommandBufferRunsWhileTheQueueProcessIsBusy() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (LocalTaskDevice device = device(); Semaphore hostDone = device.createSemaphore(0);
                Semaphore done = device.createSemaphore(0);
                Buffer target = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                CommandBuffer cb = fillOf(device, target)) {
            try {
                blockQueueProcess(device, entered, release, hostDone);
                long before = device.directIssues(0);
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, 1), cb,
                        BindingTable.empty(), 0);
                // Before: DEADLINE_EXCEEDED, the submission waited behind the host call.
                done.await(1, Timeout.of(Duration.ofSeconds(10)));
                assertEquals(before + 1, device.directIssues(0));
                MemorySegment copy = MemorySegment.ofArray(new byte[16]);
                target.read(0, copy);
                assertArrayEquals(new int[] {7, 7, 7, 7}, copy.toArray(I32));
                assertEquals(0, hostDone.query(), "the host call is still running");
            } finally {
                release.countDown();
            }
            hostDone.await(1, Timeout.infinite());
        }
    }

    @Test
    void barriersAndAllocasWithReachedWaitsRetireOnTheSubmittingThread() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (LocalTaskDevice device = device(); Semaphore hostDone = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0)) {
            try {
                blockQueueProcess(device, entered, release, hostDone);
                device.queueBarrier(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(s, 1), 0);
                assertEquals(1, s.query(), "the barrier retired before queueBarrier returned");
                Buffer transient_ = device.queueAlloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(s, 1),
                        SemaphoreList.of(s, 2), BufferParams.deviceLocal(), 256, 0);
                assertEquals(2, s.query(), "the alloca (its wait reached) retired before queueAlloca returned");
                device.queueDealloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3),
                        transient_, 0);
                assertEquals(3, s.query(), "the dealloca retired before queueDealloca returned");
                transient_.release();
                assertEquals(0, hostDone.query(), "the host call is still running");
            } finally {
                release.countDown();
            }
            hostDone.await(1, Timeout.infinite());
        }
    }

    @Test
    void aDeviceWithLingeringWorkersRunsBackToBackSubmissions() {
        try (LocalTaskDevice device = device("&task_worker_linger_us=50"); Semaphore done = device.createSemaphore(0);
                Buffer target = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                CommandBuffer cb = fillOf(device, target)) {
            for (int i = 1; i <= 200; i++) {
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, NONE, SemaphoreList.of(done, i), cb,
                        BindingTable.empty(), 0);
                done.await(i, Timeout.of(Duration.ofSeconds(10)));
            }
        }
    }

    @Test
    void aNegativeLingerIsRejectedWithItsName() {
        StatusException e = assertThrows(StatusException.class, () -> device("&task_worker_linger_us=-1"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("task_worker_linger_us"), e.getMessage());
    }

    /**
     * Made ready by another thread's signal (a timepoint callback), a barrier still goes to the
     * queue process: a chain of operations waiting on each other must not recurse through their
     * retirements on the signalling thread.
     */
    @Test
    void aBarrierMadeReadyByASignalWaitsForTheQueueProcess() throws InterruptedException {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        TimelineSemaphore gate = new TimelineSemaphore("gate", 0);
        try (LocalTaskDevice device = device(); Semaphore hostDone = device.createSemaphore(0);
                Semaphore s = device.createSemaphore(0)) {
            try {
                blockQueueProcess(device, entered, release, hostDone);
                long before = device.directIssues(0);
                device.queueBarrier(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(gate, 1), SemaphoreList.of(s, 1), 0);
                gate.signal(1);
                assertEquals(0, s.query(), "not retired on the signalling thread");
                assertEquals(before, device.directIssues(0));
            } finally {
                release.countDown();
            }
            s.await(1, Timeout.of(Duration.ofSeconds(10)));
            hostDone.await(1, Timeout.infinite());
        } finally {
            gate.release();
        }
    }
}
