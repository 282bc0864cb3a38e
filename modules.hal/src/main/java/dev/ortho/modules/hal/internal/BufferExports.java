package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** {@code hal.buffer.*}: assertions, allocation ownership, length, scalar load/store, subspans. */
final class BufferExports {
    private BufferExports() {
    }

    static Buffer buffer(CallBuffer args, int refSlot) {
        return Args.deref(args, refSlot, HalTypes.BUFFER, Buffer.class);
    }

    /**
     * {@code buffer.assert(buffer, message, allocator, minimum_length, memory_types, buffer_usage)},
     * {@code 0rrrIii_v}: INVALID_ARGUMENT if the buffer is shorter than required,
     * PERMISSION_DENIED if it lacks a required memory type or usage bit (IREE's
     * {@code iree_hal_modules_buffer_assert}); messages start with the program's message.
     */
    static CallOutcome assertBuffer(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Buffer buffer = buffer(a, 0);
        VmBuffer message = Args.vmBuffer(a, 1); // decoded only to report a failure
        long minimumLength = a.i64(0);
        int requiredTypes = a.i32(1);
        int requiredUsage = a.i32(2);
        if (buffer.byteLength() < minimumLength) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, Args.text(message) + " buffer byte length "
                    + buffer.byteLength() + " less than expected minimum " + minimumLength);
        }
        if ((buffer.memoryType() & requiredTypes) != requiredTypes) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, Args.text(message) + " buffer memory type is not "
                    + "compatible; buffer has " + MemoryType.format(buffer.memoryType()) + ", operation requires "
                    + MemoryType.format(requiredTypes));
        }
        if ((buffer.allowedUsage() & requiredUsage) != requiredUsage) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, Args.text(message)
                    + " requested usage was not specified when the buffer was allocated; buffer allows "
                    + BufferUsage.format(buffer.allowedUsage()) + ", operation requires " + BufferUsage.format(requiredUsage));
        }
        Args.deref(a, 2, HalTypes.ALLOCATOR, Allocator.class);
        return CallOutcome.COMPLETED;
    }

    /** {@code buffer.allocation.preserve(buffer)}, {@code 0r_v}: adds an owner of the allocation. */
    static CallOutcome allocationPreserve(HalState state, NativeCall call) {
        state.preserves.preserve(buffer(call.args(), 0));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code buffer.allocation.discard(buffer) -> was_terminal}, {@code 0r_i}: drops an owner; 1 if
     * it was the last.
     */
    static CallOutcome allocationDiscard(HalState state, NativeCall call) {
        call.results().setI32(0, state.preserves.discard(buffer(call.args(), 0)) ? 1 : 0);
        return CallOutcome.COMPLETED;
    }

    /** {@code buffer.allocation.is_terminal(buffer) -> is_terminal}, {@code 0r_i}: 1 if one owner remains. */
    static CallOutcome allocationIsTerminal(HalState state, NativeCall call) {
        call.results().setI32(0, state.preserves.isTerminal(buffer(call.args(), 0)) ? 1 : 0);
        return CallOutcome.COMPLETED;
    }

    /** {@code buffer.length(buffer) -> length}, {@code 0r_I}. */
    static CallOutcome length(HalState state, NativeCall call) {
        call.results().setI64(0, buffer(call.args(), 0).byteLength());
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code buffer.load(buffer, offset, length) -> value}, {@code 0rIi_i}: reads 0 to 4 bytes
     * (little-endian, zero-extended) through a scoped mapping. INVALID_ARGUMENT for other lengths;
     * the mapping's errors (OUT_OF_RANGE, PERMISSION_DENIED) otherwise.
     */
    static CallOutcome load(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Buffer buffer = buffer(a, 0);
        long offset = a.i64(0);
        int length = a.i32(1);
        requireScalarLength(length, "load");
        Buffer.calculateRange("load source", buffer.byteLength(), offset, length);
        int value = 0;
        if (length > 0) {
            try (MappedMemory mapping = buffer.map(MemoryAccess.READ, offset, length)) {
                MemorySegment bytes = mapping.contents();
                for (int i = length - 1; i >= 0; i--) {
                    value = (value << 8) | (bytes.get(ValueLayout.JAVA_BYTE, i) & 0xFF);
                }
            }
        }
        call.results().setI32(0, value);
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code buffer.store(value, buffer, offset, length)}, {@code 0irIi_v}: writes the low
     * {@code length} (0 to 4) bytes of {@code value}, little-endian. INVALID_ARGUMENT for other
     * lengths, OUT_OF_RANGE past the end.
     */
    static CallOutcome store(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int value = a.i32(0);
        Buffer buffer = buffer(a, 0);
        long offset = a.i64(1);
        int length = a.i32(2);
        requireScalarLength(length, "store");
        if (offset < 0 || offset > buffer.byteLength() - length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "store out of bounds (target_offset=" + offset
                    + ", length=" + length + " into max " + buffer.byteLength() + ")");
        }
        if (length > 0) {
            try (MappedMemory mapping = buffer.map(MemoryAccess.WRITE, offset, length)) {
                MemorySegment bytes = mapping.contents();
                for (int i = 0; i < length; i++) {
                    bytes.set(ValueLayout.JAVA_BYTE, i, (byte) (value >>> (8 * i)));
                }
            }
        }
        return CallOutcome.COMPLETED;
    }

    private static void requireScalarLength(int length, String what) {
        if (length < 0 || length > 4) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + " length byte count " + length
                    + " exceeds max 4");
        }
    }

    /** {@code buffer.subspan(buffer, offset, length) -> buffer}, {@code 0rII_r}: OUT_OF_RANGE if it does not fit. */
    static CallOutcome subspan(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Buffer source = buffer(a, 0);
        long offset = a.i64(0);
        long length = a.i64(1);
        Buffer subspan;
        try {
            subspan = source.subspan(offset, length);
        } catch (StatusException e) {
            throw e.annotate("invalid subspan of an existing buffer (source_offset=" + offset + ", length="
                    + length + ")");
        }
        call.results().setRef(0, HalRef.adopt(HalTypes.BUFFER, subspan, subspan));
        return CallOutcome.COMPLETED;
    }
}
