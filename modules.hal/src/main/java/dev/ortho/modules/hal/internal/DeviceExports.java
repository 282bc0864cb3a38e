package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.Device;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;

/**
 * {@code hal.device.*}: the allocator, property queries and every queue operation. Queue
 * operations take a wait fence and a signal fence (either may be null: nothing to wait for or to
 * signal) and return at once; asynchronous failures fail the signal fence.
 */
final class DeviceExports {
    private DeviceExports() {
    }

    private static Device device(CallBuffer args) {
        return Args.deref(args, 0, HalTypes.DEVICE, Device.class);
    }

    /**
     * {@code device.allocator(device) -> allocator}, {@code 0r_r}: the ref keeps the device alive.
     * For a device of the module it is the state's one allocator ref of that device, the same on
     * every call (IREE returns the device's allocator object itself); for any other device a new
     * ref.
     */
    static CallOutcome allocator(HalState state, NativeCall call) {
        Device device = device(call.args());
        HalRef shared = state.allocatorRefOf(device);
        call.results().setRef(0, shared != null ? RefObject.retain(shared) : HalState.allocatorRef(device));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.query.i64(device, category, key) -> (ok, value)}, {@code 0rrr_iI}: {@code ok}
     * is 0 (and value 0) when the device does not answer the query; never fails for that.
     */
    static CallOutcome queryI64(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        String category = Args.string(a, 1);
        String key = Args.string(a, 2);
        int ok = 1;
        long value;
        try {
            value = device.queryI64(category, key);
        } catch (StatusException e) {
            ok = 0;
            value = 0;
        }
        call.results().setI32(0, ok);
        call.results().setI64(1, value);
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.alloca(device, queue_affinity, wait_fence, signal_fence, pool,
     * memory_types, buffer_usage, size, flags) -> buffer}, {@code 0rIrrIiiII_r}. The pool is an
     * integer in IREE's ABI: 0 selects the device's default pool (a null
     * {@link dev.ortho.hal.Pool}); any other value is UNIMPLEMENTED, as IREE (the VM has no pool
     * references yet).
     */
    static CallOutcome queueAlloca(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        if (a.i64(1) != 0) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "VM queue allocation pools are not supported (pool "
                    + a.i64(1) + ")");
        }
        BufferParams params = state.allocaParams(a.i32(2), a.i32(3));
        Buffer buffer = device.queueAlloca(a.i64(0), waits, signals, (dev.ortho.hal.Pool) null, params, a.i64(4),
                a.i64(5));
        call.results().setRef(0, HalRef.adopt(HalTypes.BUFFER, buffer, buffer));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.dealloca(device, queue_affinity, wait_fence, signal_fence, buffer, flags)},
     * {@code 0rIrrrI_v}.
     */
    static CallOutcome queueDealloca(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        Buffer buffer = BufferExports.buffer(a, 3);
        device.queueDealloca(a.i64(0), waits, signals, buffer, a.i64(1));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.fill(device, queue_affinity, wait_fence, signal_fence, target,
     * target_offset, length, pattern, pattern_length, flags)}, {@code 0rIrrrIIIiI_v}.
     */
    static CallOutcome queueFill(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        Buffer target = BufferExports.buffer(a, 3);
        int patternLength = a.i32(4);
        Args.requirePatternLength(patternLength);
        device.queueFill(a.i64(0), waits, signals, target, a.i64(1), a.i64(2), (int) a.i64(3), patternLength,
                a.i64(5));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.update(device, queue_affinity, wait_fence, signal_fence, source,
     * source_offset, target, target_offset, length, flags)}, {@code 0rIrrrIrIII_v}: the
     * {@code vm.buffer} bytes are captured at the call; OUT_OF_RANGE outside it.
     */
    static CallOutcome queueUpdate(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        VmBuffer source = Args.vmBuffer(a, 3);
        Buffer target = BufferExports.buffer(a, 4);
        MemorySegment bytes = Args.range(source, a.i64(1), a.i64(3), "queue update source");
        device.queueUpdate(a.i64(0), waits, signals, bytes, target, a.i64(2), a.i64(4));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.copy(device, queue_affinity, wait_fence, signal_fence, source,
     * source_offset, target, target_offset, length, flags)}, {@code 0rIrrrIrIII_v}.
     */
    static CallOutcome queueCopy(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        Buffer source = BufferExports.buffer(a, 3);
        Buffer target = BufferExports.buffer(a, 4);
        device.queueCopy(a.i64(0), waits, signals, source, a.i64(1), target, a.i64(2), a.i64(3), a.i64(4));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.read(device, queue_affinity, wait_fence, signal_fence, source_file,
     * source_offset, target, target_offset, length, flags)}, {@code 0rIrrrIrIII_v}: copies from a
     * memory file in queue order; OUT_OF_RANGE outside the file.
     */
    static CallOutcome queueRead(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        MemoryFile file = Args.deref(a, 3, HalTypes.FILE, MemoryFile.class);
        Buffer target = BufferExports.buffer(a, 4);
        long offset = a.i64(1);
        long length = a.i64(3);
        if (offset < 0 || length < 0 || offset > file.length() || length > file.length() - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "file read range [" + offset + ", " + offset + "+"
                    + length + ") is outside the " + file.length() + " byte " + file);
        }
        MemorySegment source = file.contents().asSlice(offset, length);
        if (length <= MAX_INLINE_READ_BYTES) {
            device.queueUpdate(a.i64(0), waits, signals, source, target, a.i64(2), a.i64(4));
            return CallOutcome.COMPLETED;
        }
        // Larger than a queue update may carry: stage the bytes in a host buffer now and copy it
        // in queue order (the submission retains the staging buffer until it retires).
        BufferParams staging = new BufferParams(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE, MemoryAccess.ALL,
                BufferUsage.TRANSFER_SOURCE | BufferUsage.MAPPING, a.i64(0), 0);
        try (Buffer stage = device.allocator().allocateBuffer(staging, length)) {
            stage.write(0, source);
            device.queueCopy(a.i64(0), waits, signals, stage, 0, target, a.i64(2), length, a.i64(4));
        }
        return CallOutcome.COMPLETED;
    }

    /** Reads up to this size go through {@link Device#queueUpdate} (IREE's 64 KiB update limit). */
    static final long MAX_INLINE_READ_BYTES = 64 * 1024;

    /**
     * {@code device.queue.write(device, queue_affinity, wait_fence, signal_fence, source,
     * source_offset, target_file, target_offset, length, flags)}, {@code 0rIrrrIrIII_v}: the only
     * files are read-only memory files, so a valid call fails with PERMISSION_DENIED.
     */
    static CallOutcome queueWrite(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        device(a);
        Args.fence(a, 1);
        Args.fence(a, 2);
        BufferExports.buffer(a, 3);
        MemoryFile file = Args.deref(a, 4, HalTypes.FILE, MemoryFile.class);
        throw new StatusException(StatusCode.PERMISSION_DENIED, "cannot write to " + file
                + ": memory files are read-only");
    }

    /** {@code device.queue.barrier(device, queue_affinity, wait_fence, signal_fence, flags)}, {@code 0rIrrI_v}. */
    static CallOutcome queueBarrier(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        device.queueBarrier(a.i64(0), Args.fence(a, 1), Args.fence(a, 2), a.i64(1));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.execute(device, queue_affinity, wait_fence, signal_fence,
     * command_buffer, flags)}, {@code 0rIrrrI_v}: with an empty binding table.
     */
    static CallOutcome queueExecute(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        CommandBuffer commandBuffer = Args.deref(a, 3, HalTypes.COMMAND_BUFFER, CommandBuffer.class);
        device.queueExecute(a.i64(0), waits, signals, commandBuffer, BindingTable.empty(), a.i64(1));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code device.queue.execute.indirect(device, queue_affinity, wait_fence, signal_fence,
     * command_buffer, flags, [(buffer, offset, length)...])}, {@code 0rIrrrICrIID_v}: slot
     * {@code i} of the binding table is tuple {@code i} (a null buffer leaves the slot empty).
     */
    static CallOutcome queueExecuteIndirect(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int count = Args.spanCount(a, 2);
        Args.requireLayout(call, count);
        Device device = device(a);
        SemaphoreList waits = Args.fence(a, 1);
        SemaphoreList signals = Args.fence(a, 2);
        CommandBuffer commandBuffer = Args.deref(a, 3, HalTypes.COMMAND_BUFFER, CommandBuffer.class);
        Buffer[] buffers = new Buffer[count];
        long[] offsets = new long[count];
        long[] lengths = new long[count];
        for (int i = 0; i < count; i++) {
            buffers[i] = Args.derefOrNull(a, 4 + i, HalTypes.BUFFER, Buffer.class);
            offsets[i] = a.i64(3 + 2 * i);
            lengths[i] = a.i64(4 + 2 * i);
        }
        device.queueExecute(a.i64(0), waits, signals, commandBuffer, BindingTable.wrap(buffers, offsets, lengths),
                a.i64(1));
        return CallOutcome.COMPLETED;
    }

    /** {@code device.queue.flush(device, queue_affinity)}, {@code 0rI_v}. */
    static CallOutcome queueFlush(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        device(a).queueFlush(a.i64(0));
        return CallOutcome.COMPLETED;
    }
}
