package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.Arrays;
import dev.ortho.hal.frontier.QueueAxes;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * Allocation behaviour of local-task submissions in steady state, measured with the JVM's
 * per-thread allocation counters summed over every thread (the submitter, the executor's
 * workers and anything they call back into): the execution contexts and dispatch states are
 * recycled, so per-submission allocation stays bounded by the front end's small objects (the
 * queue operation, its retained-resource array, the signalled frontier copy). Also checks that
 * the bounded ring's overflow never drops or reorders work.
 */
class LocalTaskAllocationTest {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int ROUNDS = 1000;
    private final ExecutableLoaders libraries = TestLoaders.standard();

    private LocalTaskDevice device(String uri) {
        try (LocalTaskDriver driver = new LocalTaskDriver(libraries, LocalTaskOptions.DEFAULTS, QueueAxes.process())) {
            return (LocalTaskDevice) driver.createDevice(DeviceUri.parse(uri));
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }

    /**
     * Submissions form a pipelined chain (each waits for the previous one's signal on one
     * timeline, all submitted before most have run): operations without waits may retire in any
     * order, and a timeline cannot be signalled backwards.
     *
     * <p>Runs {@code submit} for rounds {@code 1..ROUNDS} after warm-up rounds and returns the bytes
     * allocated per round by all threads while the measured rounds ran and completed. The best
     * of several batches is taken, so an unrelated JVM allocation (JIT, logging) in one batch does
     * not count.
     */
    private static long bytesPerSubmission(Semaphore done, LongConsumer submit) {
        long value = 0;
        for (int i = 0; i < 5 * ROUNDS; i++) { // warm-up: JIT, ring slots, array growth, cache fill
            submit.accept(++value);
        }
        done.await(value, Timeout.ofNanos(60_000_000_000L)); // hang guard only
        long best = Long.MAX_VALUE;
        for (int batch = 0; batch < 5; batch++) {
            long before = allocatedBytes();
            for (int i = 0; i < ROUNDS; i++) {
                submit.accept(++value);
            }
            done.await(value, Timeout.ofNanos(60_000_000_000L));
            best = Math.min(best, allocatedBytes() - before);
        }
        System.out.println("allocated bytes per submission: " + best / ROUNDS);
        return best / ROUNDS;
    }

    @Test
    void resubmittingARecordedCommandBufferAllocatesNoContextsOrDispatchStates() {
        long small = executeBytesPerSubmission(4);
        long large = executeBytesPerSubmission(64);
        // Per dispatch nothing is allocated any more: before contexts and dispatch states were
        // recycled, each table-slot dispatch built a state (size, count and binding arrays,
        // segment views) per submission and the execution's arrays grew with the program,
        // ~150 B per dispatch here (2480 B per submission of 8).
        assertTrue(large - small < 256, "64 dispatches allocated " + large + " bytes per submission, 4 dispatches "
                + small + ": the difference grows with the dispatch count");
        // What is left is per operation (queue op, retained resources, signalled frontier copy).
        assertTrue(small < 1536, "steady-state allocation per queueExecute was " + small + " bytes");
    }

    private long executeBytesPerSubmission(int dispatches) {
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=2");
                ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                Buffer direct = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4 * 64);
                Buffer slot = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4 * 64);
                CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 1);
                Semaphore done = device.createSemaphore(0)) {
            cb.begin();
            for (int i = 0; i < dispatches; i++) {
                if (i > 0) {
                    cb.executionBarrier(ExecutionStage.DISPATCH, ExecutionStage.DISPATCH, 0);
                }
                // alternate a direct binding and a binding-table slot
                BufferRef target = i % 2 == 0 ? BufferRef.of(direct) : new BufferRef(0, null, 0, 4 * 64);
                cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(1, 1, 1),
                        MemorySegment.ofArray(new int[] {64, i}), new BufferRef[] {target}, 0);
            }
            cb.end();
            BindingTable table = BindingTable.of(slot);
            long perSubmission = bytesPerSubmission(done, value -> device.queueExecute(Device.QUEUE_AFFINITY_ANY,
                    SemaphoreList.of(done, value - 1), SemaphoreList.of(done, value), cb, table, 0));
            // the cached states still write through the right memory
            int[] expectDirect = new int[64];
            Arrays.fill(expectDirect, dispatches - 2);
            int[] expectSlot = new int[64];
            Arrays.fill(expectSlot, dispatches - 1);
            assertArrayEquals(expectDirect, ints(direct));
            assertArrayEquals(expectSlot, ints(slot));
            return perSubmission;
        }
    }

    @Test
    void aCachedDispatchStateIsRebuiltWhenTheBindingTableNamesOtherMemory() {
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=2");
                ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4 * 32);
                Buffer b = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4 * 32);
                CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, Device.QUEUE_AFFINITY_ANY, 1);
                Semaphore done = device.createSemaphore(0)) {
            cb.begin();
            cb.dispatch(exe, exe.lookupFunction("fill_x32"), DispatchConfig.ofCount(1, 1, 1),
                    MemorySegment.ofArray(new int[] {16, 7}), new BufferRef[] {new BufferRef(0, null, 0, 4 * 16)}, 0);
            cb.end();
            BindingTable[] tables = {
                BindingTable.of(a), // first half of a
                BindingTable.of(b), // another buffer
                BindingTable.of(new Buffer[] {a}, new long[] {4 * 16}, new long[] {4 * 16}), // a, other range
                BindingTable.of(a), // back to the first entry's memory
            };
            int[][] expectA = {halves(7, 0), halves(0, 0), halves(0, 7), halves(7, 0)};
            int[][] expectB = {halves(0, 0), halves(7, 0), halves(0, 0), halves(0, 0)};
            for (int round = 0; round < tables.length; round++) {
                a.fill(0, 4 * 32, 0, 4);
                b.fill(0, 4 * 32, 0, 4);
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(done, round),
                        SemaphoreList.of(done, round + 1L), cb, tables[round], 0);
                done.await(round + 1L, Timeout.ofNanos(60_000_000_000L)); // hang guard only
                assertArrayEquals(expectA[round], ints(a), "buffer a after round " + round);
                assertArrayEquals(expectB[round], ints(b), "buffer b after round " + round);
            }
        }
    }

    private static int[] halves(int first, int second) {
        int[] values = new int[32];
        Arrays.fill(values, 0, 16, first);
        Arrays.fill(values, 16, 32, second);
        return values;
    }

    @Test
    void streamedTransfersRecycleTheirRingSlots() {
        long inline = fillBytesPerSubmission(LocalTaskOptions.DEFAULT_INLINE_TRANSFER_BYTES);
        long streamed = fillBytesPerSubmission(0);
        // The same queueFill run inline by the queue process or streamed through the ring: the
        // front end is identical, so the difference is what streaming allocates. Before the ring,
        // each streamed operation allocated its execution, a one-command program and their
        // arrays (~400 B: 1242 B streamed per submission).
        assertTrue(streamed - inline < 128, "a streamed queueFill allocated " + streamed + " bytes, an inline one "
                + inline);
    }

    private long fillBytesPerSubmission(long inlineTransferBytes) {
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=2&inline_transfer_bytes="
                        + inlineTransferBytes);
                Buffer target = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4 * 64);
                Semaphore done = device.createSemaphore(0)) {
            long perSubmission = bytesPerSubmission(done, value -> device.queueFill(Device.QUEUE_AFFINITY_ANY,
                    SemaphoreList.of(done, value - 1), SemaphoreList.of(done, value), target, 0, 4 * 64, (int) value, 4,
                    0));
            int[] values = ints(target);
            assertEquals((int) done.query(), values[63]);
            return perSubmission;
        }
    }

    @Test
    void aFullRingOverflowsWithoutDroppingWork() {
        // Whether the ring fills depends on how fast the workers drain it while the gate's signal
        // readies the operations, so repeat until it has overflowed once; every attempt must
        // deliver every element whether or not it overflowed.
        long overflows = 0;
        for (int attempt = 0; attempt < 20 && overflows == 0; attempt++) {
            overflows = runOneGateOfManyDispatches();
        }
        assertTrue(overflows > 0, "the ring never overflowed in 20 attempts");
    }

    /** Makes 20 rings' worth of dispatches ready at once; checks every element; returns the ring's overflows. */
    private long runOneGateOfManyDispatches() {
        int ops = 20 * BlockProcessor.RING_SIZE;
        Semaphore[] done = new Semaphore[ops];
        try (LocalTaskDevice device = device("local-task://?task_topology_group_count=2");
                ExecutableCache cache = device.createExecutableCache("t");
                Executable exe = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(BuiltinKernels.NAME), new int[0]));
                Buffer out = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4L * ops);
                Semaphore gate = device.createSemaphore(0)) {
            try {
                // Every dispatch waits on one gate, so opening it makes all of them ready at
                // once, far more than the streaming ring holds. Each writes its own element and
                // signals its own semaphore.
                for (int i = 0; i < ops; i++) {
                    done[i] = device.createSemaphore(0);
                    device.queueDispatch(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(gate, 1),
                            SemaphoreList.of(done[i], 1), exe, exe.lookupFunction("fill_x32"),
                            DispatchConfig.ofCount(1, 1, 1), MemorySegment.ofArray(new int[] {1, i}),
                            new BufferRef[] {BufferRef.of(out, 4L * i, 4)}, 0);
                }
                gate.signal(1);
                for (Semaphore s : done) {
                    s.await(1, Timeout.ofNanos(60_000_000_000L)); // hang guard only
                }
            } finally {
                for (Semaphore s : done) {
                    if (s != null) {
                        s.close();
                    }
                }
            }
            int[] values = ints(out);
            for (int i = 0; i < ops; i++) {
                assertEquals(i, values[i], "element " + i);
            }
            return device.streamingOverflows(0);
        }
    }

    private static int[] ints(Buffer buffer) {
        MemorySegment copy = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, copy);
        return copy.toArray(I32);
    }
}
