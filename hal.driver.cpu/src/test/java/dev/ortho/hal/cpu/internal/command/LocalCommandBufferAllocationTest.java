package dev.ortho.hal.cpu.internal.command;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Recording keeps each command once: the shared {@code RecordedCommand} in the recorder's
 * recording, which the tile engine runs directly (no second, compiled command per command, no
 * copy of the command list at {@code end()}, no message strings built for valid bindings).
 * Measured as ValidationOverheadBenchmark does (64 commands per command buffer, created, begun,
 * ended and released; bytes per command), with the calling thread's allocation counter, best of
 * several rounds after warm-up. When each command was kept twice this measured ≈180 B per fill and
 * ≈650 B per 3-binding dispatch; the bounds sit between that and the ≈105 / ≈210 B now (with
 * room for a loaded machine whose best round still runs less optimised code).
 */
class LocalCommandBufferAllocationTest {
    private static final int COMMANDS = 64;
    private static final int BUFFERS = 2_000;

    @Test
    void recordingAFillKeepsOneCommand() {
        try (LocalSyncDriver driver = new LocalSyncDriver(TestLoaders.standard());
                Device device = driver.createDevice(DeviceUri.parse("local-sync://"));
                Buffer a = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 4096)) {
            long perCommand = bytesPerCommand(device, CommandCategory.TRANSFER,
                    cb -> cb.fillBuffer(BufferRef.of(a, 64, 64), 7, 4, 0));
            assertTrue(perCommand < 140, "recording a fill allocates " + perCommand + " bytes per command "
                    + "(the 40-byte reference and the 32-byte command, plus the recorder's lists)");
        }
    }

    @Test
    void recordingADispatchKeepsOneCommandAndBuildsNoNames() {
        try (LocalSyncDriver driver = new LocalSyncDriver(TestLoaders.standard());
                Device device = driver.createDevice(DeviceUri.parse("local-sync://"));
                Buffer a = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 4096);
                Buffer b = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 4096);
                Buffer c = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 4096);
                ExecutableCache cache = device.createExecutableCache("test");
                Executable executable = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]))) {
            int mulI32 = executable.lookupFunction("mul_i32");
            MemorySegment constants = MemorySegment.ofArray(new int[] {1024});
            BufferRef[] bindings = {BufferRef.of(a), BufferRef.of(b), BufferRef.of(c)};
            DispatchConfig grid = DispatchConfig.ofCount(1, 1, 1);
            long perCommand = bytesPerCommand(device, CommandCategory.DISPATCH,
                    cb -> cb.dispatch(executable, mulI32, grid, constants, bindings, 0));
            // ≈210 B once C2 has compiled the path (JMH); a loaded CI machine measured 329 B when
            // the best round still ran less optimised code. The bound separates that from the
            // double model (≈650 B), which is what this test is for.
            assertTrue(perCommand < 480, "recording a 3-binding dispatch allocates " + perCommand
                    + " bytes per command");
        }
    }

    /** Best over rounds of the bytes per recorded command, {@value #COMMANDS} per command buffer. */
    private static long bytesPerCommand(Device device, int categories, Consumer<CommandBuffer> command) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 8; round++) {
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int n = 0; n < BUFFERS; n++) {
                CommandBuffer cb = device.createCommandBuffer(0, categories, Device.QUEUE_AFFINITY_ANY, 0);
                cb.begin();
                for (int i = 0; i < COMMANDS; i++) {
                    command.accept(cb);
                }
                cb.end();
                cb.release();
            }
            best = Math.min(best, (threads.getCurrentThreadAllocatedBytes() - before) / ((long) BUFFERS * COMMANDS));
        }
        return best;
    }
}
