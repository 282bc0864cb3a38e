package dev.ortho.hal.cpu.internal.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A {@code local-sync} queue fill of part of a buffer allocates nothing once compiled: it runs on
 * the caller straight from its checked arguments ({@code CommandExecutor.runFill}: no
 * {@code BufferRef}, no command, and the target's root memory and an offset instead of a slice).
 * Before, it allocated a 40-byte segment per call (ValidationOverheadBenchmark queueFill 176 B/op),
 * then the 64-byte reference and command (136 B/op; 144 B/op once the command became the shared
 * {@code RecordedCommand.Fill}). Measured with the calling thread's allocation counter, best of
 * several rounds after warm-up, so a JIT or logging allocation in one round does not count.
 */
class LocalSyncFillAllocationTest {
    private static final int CALLS = 100_000;

    @Test
    void aPartialQueueFillAllocatesNothing() {
        try (LocalSyncDriver driver = new LocalSyncDriver(TestLoaders.standard());
                Device device = driver.createDevice(DeviceUri.parse("local-sync://"))) {
            Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4096);
            Buffer span = buffer.subspan(1024, 2048);
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long best = Long.MAX_VALUE;
            for (int round = 0; round < 10; round++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < CALLS; i++) {
                    device.queueFill(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.empty(), span,
                            64, 64, i, 4, 0);
                }
                best = Math.min(best, (threads.getCurrentThreadAllocatedBytes() - before) / CALLS);
            }
            assertTrue(best < 32, "a 64-byte queue fill allocates " + best + " bytes per call (expected none: "
                    + "no reference, command or segment)");
            // the fill landed where the subspan says: bytes [1088, 1152) of the root, nothing around it
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment contents = arena.allocate(4096);
                buffer.read(0, contents);
                assertEquals(0, contents.get(ValueLayout.JAVA_INT_UNALIGNED, 1084));
                assertEquals(CALLS - 1, contents.get(ValueLayout.JAVA_INT_UNALIGNED, 1088));
                assertEquals(CALLS - 1, contents.get(ValueLayout.JAVA_INT_UNALIGNED, 1148));
                assertEquals(0, contents.get(ValueLayout.JAVA_INT_UNALIGNED, 1152));
            }
            span.release();
            buffer.release();
        }
    }
}
