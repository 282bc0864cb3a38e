package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Copies named through binding-table slots (issue 17). The rule {@link Device#queueCopy} states —
 * a copy's source and target must not overlap within one allocation, as memcpy — holds however
 * the ranges are named: two slots bound to one buffer, a slot bound to a subspan of a buffer the
 * copy also names directly, or subspans of one root in two slots. Only the binding table reveals
 * such an overlap, so recording accepts the copy and the <em>submission</em> fails: either the
 * call refuses it with INVALID_ARGUMENT, or its signals fail with INVALID_ARGUMENT; either way the
 * target is left untouched. The same command buffer with a table whose slots do not overlap runs.
 *
 * <p>The overlapping case copies 128 KiB, so a device that splits copies into chunks run in
 * parallel (local-task: 64 KiB tiles) would corrupt the target instead of failing.
 */
public abstract class BindingTableCopySuite extends DeviceTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();
    private static final int KIB = 1024;

    private CommandBuffer copyRecorded(BufferRef source, BufferRef target, int slots) {
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER, ANY, slots);
        cb.begin();
        cb.copyBuffer(source, target, 0);
        cb.end();
        return cb;
    }

    /** Submits {@code cb}; returns how it failed (at the call or on its signal), or null if it ran. */
    private StatusException submit(CommandBuffer cb, BindingTable table) {
        try (Semaphore done = device.createSemaphore(0)) {
            try {
                device.queueExecute(ANY, NONE, SemaphoreList.of(done, 1), cb, table, 0);
            } catch (StatusException refused) {
                assertEquals(0, done.query(), "a refused call signals nothing");
                return refused;
            }
            try {
                done.await(1, Timeout.infinite());
                return null;
            } catch (StatusException failed) {
                return failed;
            }
        }
    }

    private static void assertOverlapRefused(StatusException failure) {
        assertTrue(failure != null, "the submission ran a copy between overlapping ranges");
        assertEquals(StatusCode.INVALID_ARGUMENT, failure.code(), failure.getMessage());
        assertTrue(failure.getMessage().contains("overlap"), failure.getMessage());
    }

    /** {@code n} int32 values 0, 1, 2, … */
    private Buffer counting(int n) {
        int[] values = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = i;
        }
        return ints(values);
    }

    @Test
    void twoSlotsBoundToOverlappingRangesOfOneBufferFailButDisjointOnesCopy() {
        int bytes = 192 * KIB;
        try (Buffer a = counting(bytes / 4);
                CommandBuffer cb = copyRecorded(BufferRef.slot(0, 0, 128 * KIB), BufferRef.slot(1, 0, 128 * KIB), 2)) {
            int[] before = readInts(a);
            BindingTable aliased = BindingTable.of(new Buffer[] {a, a}, new long[] {0, 64 * KIB},
                    new long[] {128 * KIB, 128 * KIB});
            assertOverlapRefused(submit(cb, aliased));
            assertArrayEquals(before, readInts(a), "the target must be left untouched");
            BindingTable halves = BindingTable.of(new Buffer[] {a, a}, new long[] {0, 128 * KIB},
                    new long[] {64 * KIB, 64 * KIB});
            try (CommandBuffer half = copyRecorded(BufferRef.slot(0, 0, 64 * KIB), BufferRef.slot(1, 0, 64 * KIB), 2)) {
                assertEquals(null, submit(half, halves), "disjoint ranges of one buffer copy");
            }
            int[] after = readInts(a);
            for (int i = 0; i < 16 * KIB; i++) {
                assertEquals(i, after[32 * KIB + i], "int " + (32 * KIB + i));
            }
        }
    }

    @Test
    void aSlotBoundToASubspanOverlappingADirectSourceFails() {
        try (Buffer a = ints(1, 2, 3, 4, 5, 6, 7, 8); Buffer middle = a.subspan(8, 24);
                CommandBuffer cb = copyRecorded(BufferRef.of(a, 0, 16), BufferRef.slot(0, 0, 16), 1)) {
            assertOverlapRefused(submit(cb, BindingTable.of(middle)));
            assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, readInts(a));
        }
    }

    @Test
    void subspansOfOneRootInTwoSlotsAreJudgedWithinTheRoot() {
        try (Buffer a = ints(1, 2, 3, 4, 5, 6, 7, 8); Buffer head = a.subspan(0, 16); Buffer tail = a.subspan(8, 24);
                CommandBuffer cb = copyRecorded(BufferRef.slot(0, 0, 16), BufferRef.slot(1, 0, 16), 2)) {
            assertOverlapRefused(submit(cb, BindingTable.of(head, tail)));
            assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8}, readInts(a));
            try (Buffer last = a.subspan(16, 16)) {
                assertEquals(null, submit(cb, BindingTable.of(head, last)), "disjoint subspans of one root copy");
            }
            assertArrayEquals(new int[] {1, 2, 3, 4, 1, 2, 3, 4}, readInts(a));
        }
    }

    @Test
    void eachSubmissionIsJudgedByItsOwnTable() {
        try (Buffer a = counting(16); Buffer b = allocate(64);
                CommandBuffer cb = copyRecorded(BufferRef.slot(0, 0, 32), BufferRef.slot(1, 0, 32), 2)) {
            BindingTable overlapping = BindingTable.of(new Buffer[] {a, a}, new long[] {0, 16}, new long[] {32, 32});
            assertOverlapRefused(submit(cb, overlapping));
            assertEquals(null, submit(cb, BindingTable.of(a, b)));
            int[] copied = readInts(b);
            assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7}, Arrays.copyOf(copied, 8));
            assertOverlapRefused(submit(cb, overlapping));
        }
    }
}
