package dev.ortho.hal.validation.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.ortho.base.StatusCode;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Resource checks: lifetimes, mapping rules, stream-ordered allocation, semaphores, executables. */
class ResourceValidationTest extends ValidationTestBase {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final SemaphoreList NONE = SemaphoreList.empty();

    @Test
    void buffersCannotBeUsedOrReleasedAfterTheirLastRelease() {
        Buffer a = allocate(16);
        a.release();
        rejected(StatusCode.FAILED_PRECONDITION, a::byteLength, "buffer.byteLength", "after its last release");
        rejected(StatusCode.FAILED_PRECONDITION, () -> a.map(MemoryAccess.READ, 0, 4), "buffer.map",
                "after its last release");
        rejected(StatusCode.FAILED_PRECONDITION, () -> device.queueFill(ANY, NONE, NONE, a, 0, 4, 0, 4, 0),
                "device.queueFill target", "after its last release");
        rejected(StatusCode.FAILED_PRECONDITION, a::release, "buffer.release", "released more times");
        rejected(StatusCode.FAILED_PRECONDITION, a::retain, "buffer.retain");
    }

    @Test
    void aSubspanKeepsItsRootUsable() {
        Buffer root = allocate(32);
        Buffer sub = root.subspan(8, 16);
        root.release();
        assertSame(sub.allocatedBuffer(), sub.allocatedBuffer().allocatedBuffer());
        assertEquals(32, sub.allocatedBuffer().byteLength());
        Buffer rootView = sub.allocatedBuffer();
        sub.release();
        rejected(StatusCode.FAILED_PRECONDITION, rootView::byteLength, "after its last release");
    }

    @Test
    void mappingABufferThatIsNotHostVisibleIsPermissionDenied() {
        try (Buffer a = allocate(16)) {
            spy.hide(a, MemoryType.HOST_VISIBLE, 0); // as device-only memory (a GPU's) reports itself
            rejected(StatusCode.PERMISSION_DENIED, () -> a.map(MemoryAccess.READ, 0, 16), "buffer.map buffer",
                    "is not HOST_VISIBLE");
            rejected(StatusCode.PERMISSION_DENIED, () -> a.read(0, MemorySegment.ofArray(new byte[4])),
                    "buffer.read buffer", "is not HOST_VISIBLE");
        }
    }

    @Test
    void mappingABufferWithoutMappingUsageIsPermissionDenied() {
        try (Buffer a = allocate(16)) {
            spy.hide(a, 0, BufferUsage.MAPPING_SCOPED);
            rejected(StatusCode.PERMISSION_DENIED, () -> a.map(MemoryAccess.READ, 0, 16), "buffer.map buffer",
                    "lacks MAPPING_SCOPED", "scoped mapping");
            a.map(Buffer.MAPPING_MODE_PERSISTENT, MemoryAccess.READ, 0, 16).close();
            spy.hide(a, 0, BufferUsage.MAPPING_PERSISTENT);
            rejected(StatusCode.PERMISSION_DENIED, () -> a.map(Buffer.MAPPING_MODE_PERSISTENT, MemoryAccess.READ, 0,
                    16), "buffer.map buffer", "lacks MAPPING_PERSISTENT", "persistent mapping");
            rejected(StatusCode.INVALID_ARGUMENT, () -> a.map(3, MemoryAccess.READ, 0, 16), "buffer.map mode",
                    "mode 3");
        }
    }

    @Test
    void mappingBeyondTheBufferIsOutOfRange() {
        try (Buffer a = allocate(16)) {
            rejected(StatusCode.OUT_OF_RANGE, () -> a.map(MemoryAccess.READ, 8, 16), "buffer.map range", "[8, 24)",
                    "16-byte");
            rejected(StatusCode.OUT_OF_RANGE, () -> a.write(12, MemorySegment.ofArray(new byte[8])),
                    "buffer.write range", "[12, 20)");
            rejected(StatusCode.OUT_OF_RANGE, () -> a.subspan(4, 16), "buffer.subspan range", "[4, 20)");
        }
    }

    @Test
    void mappingWithTheWrongAccessIsRefused() {
        BufferParams readOnly = new BufferParams(MemoryType.HOST_LOCAL, MemoryAccess.READ, 0, 0, 0);
        try (Buffer a = device.allocator().allocateBuffer(readOnly, 16)) {
            rejected(StatusCode.PERMISSION_DENIED, () -> a.map(MemoryAccess.WRITE, 0, 16), "buffer.map access",
                    "access WRITE", "allows READ");
            rejected(StatusCode.PERMISSION_DENIED, () -> a.fill(0, 16, 1, 1), "buffer.fill access");
            rejected(StatusCode.INVALID_ARGUMENT, () -> a.map(MemoryAccess.DISCARD, 0, 16), "buffer.map access",
                    "neither READ nor WRITE");
        }
    }

    @Test
    void hostFillsCheckPatternLengthAndAlignment() {
        try (Buffer a = allocate(16)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> a.fill(0, 16, 0, 3), "buffer.fill patternLength", "3");
            rejected(StatusCode.INVALID_ARGUMENT, () -> a.fill(2, 8, 0, 4), "buffer.fill range", "offset 2",
                    "multiple of 4");
            rejected(StatusCode.OUT_OF_RANGE, () -> a.fill(8, 16, 0, 4), "buffer.fill range", "[8, 24)");
        }
    }

    @Test
    void flushOrInvalidateOutsideTheMappingOrAfterUnmapIsRefused() {
        try (Buffer a = allocate(16)) {
            MappedMemory mapping = a.map(MemoryAccess.WRITE, 4, 8);
            rejected(StatusCode.OUT_OF_RANGE, () -> mapping.flush(4, 8), "mapping.flush range", "[4, 12)", "8-byte");
            rejected(StatusCode.OUT_OF_RANGE, () -> mapping.invalidate(9, Buffer.WHOLE_BUFFER), "mapping.invalidate",
                    "offset 9");
            mapping.contents().setAtIndex(I32, 0, 42);
            mapping.close();
            mapping.close(); // closing is idempotent
            rejected(StatusCode.FAILED_PRECONDITION, () -> mapping.flush(0, 4), "mapping.flush", "not mapped");
            rejected(StatusCode.FAILED_PRECONDITION, mapping::contents, "mapping.contents", "not mapped");
            assertArrayEquals(new int[] {0, 42, 0, 0}, readInts(a));
        }
    }

    @Test
    void deallocaOfASynchronousAllocationIsABarrierAndTheBufferStaysUsable() throws Exception {
        // IREE's device.h: deallocas of buffers not from queueAlloca are ignored but for a
        // barrier that preserves the fence timeline; iree-compile's modules rely on it.
        try (Buffer a = allocate(64); Semaphore s = device.createSemaphore(0)) {
            s.signal(1); // local-sync waits inline on the caller: satisfy the wait first
            device.queueDealloca(ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), a, 0);
            s.await(2, Timeout.infinite());
            device.queueFill(ANY, NONE, NONE, a, 0, 4, 7, 4, 0);
            device.queueFill(ANY, NONE, NONE, a, 0, 4, 7, 4, 0); // still usable, twice
        }
    }

    @Test
    void allocaArgumentsAndForeignDeallocasAreInvalidArgument() {
        try (ValidatingDevice other = new ValidatingDevice(localSync());
                Buffer foreign = other.queueAlloca(ANY, NONE, NONE, BufferParams.hostLocal(), 16, 0)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueAlloca(ANY, NONE, NONE, BufferParams.hostLocal(),
                    -8, 0), "device.queueAlloca size", "-8");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueAlloca(ANY, NONE, NONE, null, 8, 0),
                    "device.queueAlloca params", "null");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueDealloca(ANY, NONE, NONE, foreign, 0),
                    "device.queueDealloca buffer", "was created by");
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueDealloca(ANY, NONE, NONE, null, 0),
                    "device.queueDealloca buffer", "null");
        }
    }

    @Test
    void doubleDeallocaAndUseAfterDeallocaAreFailedPrecondition() {
        try (Semaphore s = device.createSemaphore(0)) {
            Buffer b = device.queueAlloca(ANY, NONE, SemaphoreList.of(s, 1), BufferParams.hostLocal(), 64, 0);
            Buffer sub = b.subspan(0, 16);
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueDealloca(ANY, NONE, NONE, sub, 0),
                    "not returned by queueAlloca");
            device.queueDealloca(ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), b, 0);
            rejected(StatusCode.FAILED_PRECONDITION, () -> device.queueDealloca(ANY, NONE, NONE, b, 0),
                    "device.queueDealloca buffer", "double dealloca");
            rejected(StatusCode.FAILED_PRECONDITION, () -> device.queueFill(ANY, NONE, NONE, sub, 0, 4, 0, 4, 0),
                    "device.queueFill target", "after queueDealloca");
            s.await(2, Timeout.immediate());
            sub.release();
            b.release();
        }
    }

    @Test
    void aDeallocaRefusedByItsSemaphoresCanBeRetried() {
        try (Semaphore s = device.createSemaphore(0)) {
            Buffer b = device.queueAlloca(ANY, NONE, SemaphoreList.of(s, 1), BufferParams.hostLocal(), 64, 0);
            rejected(StatusCode.INVALID_ARGUMENT, () -> device.queueDealloca(ANY, NONE, SemaphoreList.of(s, 1), b, 0),
                    "signals[0]", "value 1");
            device.queueDealloca(ANY, NONE, SemaphoreList.of(s, 2), b, 0);
            b.release();
        }
    }

    @Test
    void hostSignalsMustIncreaseAndStayWithinIreesMaximum() {
        try (Semaphore s = device.createSemaphore(5)) {
            rejected(StatusCode.INVALID_ARGUMENT, () -> s.signal(5), "semaphore.signal value", "value 5",
                    "current value 5");
            rejected(StatusCode.OUT_OF_RANGE, () -> s.signal(Semaphore.MAX_VALUE + 1), "semaphore.signal value",
                    String.valueOf(Semaphore.MAX_VALUE));
            rejected(StatusCode.OUT_OF_RANGE, () -> s.await(-1, Timeout.immediate()), "semaphore.await value");
            rejected(StatusCode.OUT_OF_RANGE, () -> s.addTimepoint(Semaphore.MAX_VALUE + 1, (x, v, f) -> { }),
                    "semaphore.addTimepoint value");
            rejected(StatusCode.INVALID_ARGUMENT, () -> s.fail(null), "semaphore.fail status", "null");
        }
    }

    @Test
    void semaphoresCannotBeUsedAfterTheirLastRelease() {
        Semaphore s = device.createSemaphore(0);
        s.release();
        rejected(StatusCode.FAILED_PRECONDITION, () -> s.signal(1), "semaphore.signal", "after its last release");
        rejected(StatusCode.FAILED_PRECONDITION, s::query, "semaphore.query");
        rejected(StatusCode.FAILED_PRECONDITION, s::release, "semaphore.release", "released more times");
    }

    @Test
    void timepointsSeeTheValidatingSemaphore() {
        try (Semaphore s = device.createSemaphore(0)) {
            AtomicReference<Semaphore> seen = new AtomicReference<>();
            s.addTimepoint(1, (semaphore, value, failure) -> seen.set(semaphore));
            s.signal(1);
            assertSame(s, seen.get());
        }
    }

    @Test
    void executablesOfUnsupportedFormatsAreIncompatible() {
        try (ExecutableCache cache = device.createExecutableCache("t")) {
            rejected(StatusCode.INCOMPATIBLE, () -> cache.prepareExecutable(new ExecutableParams("vulkan-spirv-fb",
                    MemorySegment.ofArray(new byte[4]), new int[0])), "executableCache.prepareExecutable params.format",
                    "'vulkan-spirv-fb'");
            rejected(StatusCode.INVALID_ARGUMENT, () -> cache.prepareExecutable(null), "params", "null");
        }
    }

    @Test
    void functionOrdinalsOutsideTheExecutableAreOutOfRange() {
        try (ExecutableCache cache = device.createExecutableCache("t"); Executable exe = builtins(cache)) {
            rejected(StatusCode.OUT_OF_RANGE, () -> exe.functionInfo(exe.functionCount()),
                    "executable.functionInfo function", "[0, " + exe.functionCount() + ")");
            rejected(StatusCode.OUT_OF_RANGE, () -> exe.functionInfo(-1), "ordinal -1");
        }
    }

    @Test
    void commandBuffersAndExecutablesCannotBeUsedAfterTheirLastRelease() {
        CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.ANY, ANY, 0);
        cb.release();
        rejected(StatusCode.FAILED_PRECONDITION, cb::begin, "commandBuffer.begin", "after its last release");
        ExecutableCache cache = device.createExecutableCache("t");
        Executable exe = builtins(cache);
        cache.release();
        rejected(StatusCode.FAILED_PRECONDITION, () -> builtins(cache), "executableCache.prepareExecutable");
        exe.release();
        rejected(StatusCode.FAILED_PRECONDITION, exe::functionCount, "executable.functionCount");
    }

    @Test
    void aClosedDeviceRefusesEverything() {
        Buffer a = allocate(4);
        device.close();
        rejected(StatusCode.FAILED_PRECONDITION, () -> device.queueBarrier(ANY, NONE, NONE, 0), "device.queueBarrier",
                "after its last release");
        rejected(StatusCode.FAILED_PRECONDITION, () -> device.createSemaphore(0), "device.createSemaphore");
        rejected(StatusCode.FAILED_PRECONDITION, device::release, "device.release", "released more times");
        a.release(); // buffers outlive their device until their own last release
    }
}
