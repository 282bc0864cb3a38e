package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import org.junit.jupiter.api.Test;

/**
 * Queue affinity of command buffers and {@link Device#queueExecute} (issue 17). A command buffer
 * is created for the queues its affinity selects (an affinity selecting none of the device's
 * queues is INVALID_ARGUMENT at creation); a submission runs on a queue that both its own
 * affinity and the command buffer's select, {@code 0} and {@code -1} meaning any queue. When the
 * two share no queue the call is INVALID_ARGUMENT naming both affinities, nothing is signalled or
 * failed, and the command buffer stays submittable. The cases that need two distinct queues are
 * tagged {@link #MULTI_QUEUE}.
 */
public abstract class QueueAffinitySuite extends DeviceTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();

    /** A reusable command buffer for {@code affinity} that fills {@code target} with {@code value}. */
    private CommandBuffer filling(long affinity, Buffer target, int value) {
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER, affinity, 0);
        cb.begin();
        cb.fillBuffer(BufferRef.of(target), value, 4, 0);
        cb.end();
        return cb;
    }

    private void execute(long affinity, CommandBuffer cb) {
        try (Semaphore done = device.createSemaphore(0)) {
            device.queueExecute(affinity, NONE, SemaphoreList.of(done, 1), cb, BindingTable.empty(), 0);
            done.await(1, Timeout.infinite());
        }
    }

    @Test
    void aCommandBufferIsForQueuesOfTheDeviceAndAnyOnEitherSideRunsIt() {
        long queues = device.queryI64("hal.device", "concurrency");
        org.junit.jupiter.api.Assumptions.assumeTrue(queues < 63, "device has 63 or more queues");
        long missing = 1L << queues;
        var e = assertStatus(StatusCode.INVALID_ARGUMENT,
                () -> device.createCommandBuffer(0, CommandCategory.TRANSFER, missing, 0).close());
        assertTrue(e.getMessage().contains(Long.toHexString(missing)), e.getMessage());
        try (Buffer a = allocate(8)) {
            int value = 1;
            for (long created : new long[] {ANY, 0, 1}) {
                try (CommandBuffer cb = filling(created, a, value)) {
                    for (long submitted : new long[] {ANY, 0, 1}) {
                        a.write(0, i32(0, 0));
                        execute(submitted, cb);
                        assertArrayEquals(new int[] {value, value}, readInts(a),
                                "created for 0x" + Long.toHexString(created) + ", submitted to 0x"
                                        + Long.toHexString(submitted));
                    }
                }
                value++;
            }
        }
    }

    @Test
    void affinitiesSharingNoQueueAreInvalidArgumentAndOnlySharedOnesRun() {
        require(MULTI_QUEUE);
        try (Buffer a = ints(7, 7); CommandBuffer onQueue1 = filling(0b10, a, 5);
                Semaphore done = device.createSemaphore(0)) {
            var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> device.queueExecute(0b01, NONE,
                    SemaphoreList.of(done, 1), onQueue1, BindingTable.empty(), 0));
            assertTrue(e.getMessage().contains("0x1") && e.getMessage().contains("0x2"), e.getMessage());
            assertEquals(0, done.query(), "a refused call signals nothing");
            assertNull(done.failure(), "a refused call fails nothing");
            assertArrayEquals(new int[] {7, 7}, readInts(a), "nothing ran");
            execute(0b10, onQueue1); // still submittable where it is allowed
            assertArrayEquals(new int[] {5, 5}, readInts(a));
        }
        try (Buffer a = allocate(8); CommandBuffer onQueue1Or2 = filling(0b110, a, 3)) {
            execute(0b011, onQueue1Or2); // they share queue 1
            assertArrayEquals(new int[] {3, 3}, readInts(a));
            a.write(0, i32(0, 0));
            execute(ANY, onQueue1Or2);
            assertArrayEquals(new int[] {3, 3}, readInts(a));
        }
    }
}
