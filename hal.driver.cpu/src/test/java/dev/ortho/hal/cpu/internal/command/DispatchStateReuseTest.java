package dev.ortho.hal.cpu.internal.command;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import dev.ortho.hal.cpu.internal.sync.LocalSyncDriver;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * A reusable command buffer whose dispatch binds a binding-table slot keeps its dispatch state
 * across submissions while the slot resolves to the same memory, whichever buffer object names it
 * (an IREE-compiled program binds the buffer its queue alloca just made on every call, and the
 * pool serves it from the same block), and builds a new one when the memory differs.
 */
class DispatchStateReuseTest {
    private static final int N = 16;

    @Test
    void aNewBufferObjectOverTheSameMemoryReusesTheStateAndOtherMemoryDoesNot() {
        try (LocalSyncDriver driver = new LocalSyncDriver(TestLoaders.standard());
                Device device = driver.createDevice(DeviceUri.parse("local-sync://"));
                // a and sameMemory: two subspans of one root (a subspan of a whole buffer is that buffer)
                Buffer root = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 8 * N);
                Buffer a = root.subspan(0, 4 * N);
                Buffer b = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 4 * N);
                ExecutableCache cache = device.createExecutableCache("test");
                Executable executable = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]))) {
            LocalCommandBuffer cb = (LocalCommandBuffer) device.createCommandBuffer(0, CommandCategory.DISPATCH,
                    Device.QUEUE_AFFINITY_ANY, 1);
            try {
                int[] constants = {N, 0};
                cb.begin();
                constants[1] = 7;
                cb.dispatch(executable, executable.lookupFunction("fill_x32"), DispatchConfig.ofCount(1, 1, 1),
                        MemorySegment.ofArray(constants.clone()), new BufferRef[] {BufferRef.slot(0, 0, 4 * N)}, 0);
                cb.end();

                submit(device, cb, a);
                DispatchState first = cachedState(cb);
                Buffer sameMemory = root.subspan(0, 4 * N); // another object over a's memory
                try {
                    submit(device, cb, sameMemory);
                    assertSame(first, cachedState(cb), "same memory, another buffer object: state reused");
                } finally {
                    sameMemory.release();
                }
                submit(device, cb, b);
                assertNotSame(first, cachedState(cb), "other memory: state rebuilt");
                int[] filled = new int[N];
                java.util.Arrays.fill(filled, 7);
                assertArrayEquals(filled, contents(b), "the rebuilt state writes the newly bound buffer");
                assertArrayEquals(filled, contents(a));
            } finally {
                cb.release();
            }
        }
    }

    private static void submit(Device device, LocalCommandBuffer cb, Buffer buffer) {
        device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.empty(), cb,
                BindingTable.of(buffer), 0);
    }

    private static DispatchState cachedState(LocalCommandBuffer cb) {
        DispatchCacheEntry entry = (DispatchCacheEntry) cb.programForSubmission().dispatchCache(0);
        assertNotNull(entry, "the dispatch's state is cached");
        return entry.state();
    }

    private static int[] contents(Buffer buffer) {
        int[] out = new int[N];
        buffer.read(0, MemorySegment.ofArray(out));
        return out;
    }
}
