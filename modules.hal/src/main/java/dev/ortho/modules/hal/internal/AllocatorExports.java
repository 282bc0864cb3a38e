package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;

/** {@code hal.allocator.*}: allocate, import host memory, select a device. */
final class AllocatorExports {
    private AllocatorExports() {
    }

    /**
     * {@code allocator.allocate(allocator, queue_affinity, memory_types, buffer_usage, size) ->
     * buffer}, {@code 0rIiiI_r}.
     */
    static CallOutcome allocate(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Allocator allocator = Args.deref(a, 0, HalTypes.ALLOCATOR, Allocator.class);
        long affinity = a.i64(0);
        int memoryTypes = a.i32(1);
        int usage = a.i32(2);
        long size = a.i64(3);
        Buffer buffer;
        try {
            buffer = allocator.allocateBuffer(new BufferParams(memoryTypes, 0, usage, affinity, 0), size);
        } catch (StatusException e) {
            throw e.annotate("failed to allocate buffer of length " + size);
        }
        call.results().setRef(0, HalRef.adopt(HalTypes.BUFFER, buffer, buffer));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code allocator.import(allocator, try, queue_affinity, memory_types, buffer_usage, source,
     * offset, length) -> buffer or null}, {@code 0riIiirII_r}: wraps {@code vm.buffer} memory without
     * copying; the buffer keeps the {@code vm.buffer} alive. Immutable sources import only for
     * {@code SHARING_IMMUTABLE} usage (PERMISSION_DENIED otherwise); mutable sources are writable
     * unless that usage is requested. With {@code try} set a failed import returns null.
     */
    static CallOutcome importBuffer(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Allocator allocator = Args.deref(a, 0, HalTypes.ALLOCATOR, Allocator.class);
        boolean isTry = a.i32(0) != 0;
        long affinity = a.i64(1);
        int memoryTypes = a.i32(2);
        int usage = a.i32(3);
        VmBuffer source = Args.vmBuffer(a, 1);
        long offset = a.i64(4);
        long length = a.i64(5);
        long available = source.length();
        if (length == -1) {
            length = available;
        }
        if (length < 0 || offset < 0 || offset > available || length > available - offset) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "byte range out of bounds (requested " + offset
                    + "-" + (offset + length - 1) + " of available " + available + ")");
        }
        int access = MemoryAccess.READ;
        boolean immutableUsage = BufferUsage.has(usage, BufferUsage.SHARING_IMMUTABLE);
        if (!source.isMutable()) {
            if (!immutableUsage) {
                throw new StatusException(StatusCode.PERMISSION_DENIED,
                        "source buffer is immutable and can only be imported for constant usage");
            }
        } else if (!immutableUsage) {
            access |= MemoryAccess.WRITE;
        }
        MemorySegment memory = source.segment().asSlice(offset, length);
        source.retain();
        RefObject result;
        try {
            Buffer buffer = allocator.importBuffer(new BufferParams(memoryTypes, access, usage, affinity, 0), memory,
                    source::release);
            result = HalRef.adopt(HalTypes.BUFFER, buffer, buffer);
        } catch (StatusException e) {
            source.release();
            if (!isTry) {
                throw e;
            }
            result = null;
        }
        call.results().setRef(0, result);
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code allocator.select(memory_types, buffer_usage, flags, [(device, queue_affinity)...]) ->
     * (device, queue_affinity)}, {@code 0iiICrID_rI}: with no device policy (Ortho has none, as
     * IREE's default) the first pair wins; an empty list is INVALID_ARGUMENT.
     */
    static CallOutcome select(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int count = Args.spanCount(a, 3);
        Args.requireLayout(call, count);
        if (count == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "at least one device/queue affinity pair must be provided");
        }
        Args.deref(a, 0, HalTypes.DEVICE, dev.ortho.hal.Device.class);
        call.results().setRef(0, RefObject.retain(a.ref(0)));
        call.results().setI64(0, a.i64(4));
        return CallOutcome.COMPLETED;
    }
}
