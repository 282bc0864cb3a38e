package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Fence;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * Argument decoding shared by the exports: typed dereferencing of ref arguments (IREE's
 * {@code *_check_deref} and {@code *_check_deref_or_null}), strings, byte ranges of
 * {@code vm.buffer}s, fences as semaphore lists and variadic span layouts. Stateless.
 */
public final class Args {
    private Args() {
    }

    /**
     * The HAL object of {@code ref} if it is a {@code type} ref whose object is a {@code javaType};
     * null for a null ref.
     *
     * @throws StatusException INVALID_ARGUMENT naming both types otherwise
     */
    public static <T> T unwrapOrNull(RefObject ref, RefType type, Class<T> javaType) {
        if (ref == null) {
            return null;
        }
        // Every HAL argument of every call comes here: a ref the module made, of the expected type,
        // holding the expected object is answered by class checks, without the interface call of
        // RefType.check; anything else goes through the full checks below in their order.
        if (ref instanceof HalRef hal && hal.refType() == type && javaType.isInstance(hal.target())) {
            return javaType.cast(hal.target());
        }
        type.check(ref);
        if (!(ref instanceof HalRef hal) || !javaType.isInstance(hal.target())) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "ref of type " + type.name()
                    + " does not hold a " + javaType.getSimpleName() + " (it was not made by the hal module)");
        }
        return javaType.cast(hal.target());
    }

    /** As {@link #unwrapOrNull} but a null ref is INVALID_ARGUMENT too. */
    static <T> T deref(CallBuffer args, int refSlot, RefType type, Class<T> javaType) {
        T value = unwrapOrNull(args.ref(refSlot), type, javaType);
        if (value == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "argument ref " + refSlot + ": expected " + type.name() + " but got null");
        }
        return value;
    }

    /** The HAL object in {@code refSlot}, or null for a null ref; INVALID_ARGUMENT for another type. */
    static <T> T derefOrNull(CallBuffer args, int refSlot, RefType type, Class<T> javaType) {
        return unwrapOrNull(args.ref(refSlot), type, javaType);
    }

    /** The {@code vm.buffer} in {@code refSlot}; INVALID_ARGUMENT for null or another type. */
    static VmBuffer vmBuffer(CallBuffer args, int refSlot) {
        VmBuffer buffer = vmBufferOrNull(args, refSlot);
        if (buffer == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "argument ref " + refSlot + ": expected vm.buffer but got null");
        }
        return buffer;
    }

    /** The {@code vm.buffer} in {@code refSlot} or null; INVALID_ARGUMENT for another type. */
    static VmBuffer vmBufferOrNull(CallBuffer args, int refSlot) {
        return (VmBuffer) RefType.VM_BUFFER.check(args.ref(refSlot));
    }

    /** The contents of the {@code vm.buffer} in {@code refSlot} as UTF-8 text (IREE's string view). */
    static String string(CallBuffer args, int refSlot) {
        return text(vmBuffer(args, refSlot));
    }

    /** The contents of {@code buffer} as UTF-8 text; "" for null. */
    static String text(VmBuffer buffer) {
        if (buffer == null) {
            return "";
        }
        return new String(buffer.segment().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /**
     * The bytes {@code [offset, offset + length)} of {@code buffer} (a view, no copy).
     *
     * @throws StatusException OUT_OF_RANGE naming the range and the buffer length if it does not fit
     */
    static MemorySegment range(VmBuffer buffer, long offset, long length, String what) {
        if (offset < 0 || length < 0 || offset > buffer.length() || length > buffer.length() - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " range [" + offset + ", " + offset + "+"
                    + length + ") is out of bounds of the " + buffer.length() + " byte vm.buffer");
        }
        return buffer.segment().asSlice(offset, length);
    }

    /** The timepoints of the (nullable) fence in {@code refSlot}; empty for null (IREE's fence_deref). */
    static SemaphoreList fence(CallBuffer args, int refSlot) {
        Fence fence = derefOrNull(args, refSlot, HalTypes.FENCE, Fence.class);
        return fence == null ? SemaphoreList.empty() : fence.toSemaphoreList();
    }

    /**
     * The element count of the variadic span whose count is in primitive {@code slot}.
     *
     * @throws StatusException INVALID_ARGUMENT if the slot is missing or the count negative
     */
    static int spanCount(CallBuffer args, int slot) {
        if (slot >= args.primitiveCount()) {
            throw mismatch();
        }
        int count = args.i32(slot);
        if (count < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "negative variadic span count " + count);
        }
        return count;
    }

    /**
     * Checks that the arguments of {@code call} have exactly the slots its calling convention
     * needs for spans of {@code spanCounts} elements.
     *
     * @throws StatusException INVALID_ARGUMENT "argument/result signature mismatch" otherwise
     */
    static void requireLayout(NativeCall call, int... spanCounts) {
        requireSlots(call, call.function().cconv().arguments().slotsFor(spanCounts));
    }

    /** {@link #requireLayout(NativeCall, int...)} for one span, allocation-free (every variadic call runs it). */
    static void requireLayout(NativeCall call, int spanCount) {
        requireSlots(call, call.function().cconv().arguments().slotsFor(spanCount));
    }

    private static void requireSlots(NativeCall call, long slots) {
        CallBuffer args = call.args();
        if (args.primitiveCount() != (int) slots || args.refCount() != (int) (slots >>> 32)) {
            throw mismatch();
        }
    }

    /** Fails with OUT_OF_RANGE "count N > max" (IREE's variadic stack limits) if {@code count > max}. */
    static void requireAtMost(int count, int max, String what) {
        if (count > max) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "count " + count + " of " + what + " > " + max);
        }
    }

    /** A non-negative {@code int} from an i64 argument; OUT_OF_RANGE naming {@code what} otherwise. */
    static int toInt(long value, String what) {
        if (value < 0 || value > Integer.MAX_VALUE) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " " + value + " is outside [0, "
                    + Integer.MAX_VALUE + "]");
        }
        return (int) value;
    }

    /** Fails with INVALID_ARGUMENT unless {@code patternLength} is 1, 2 or 4 (the HAL's fill patterns). */
    static void requirePatternLength(int patternLength) {
        if (patternLength != 1 && patternLength != 2 && patternLength != 4) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "fill pattern length " + patternLength
                    + " is not 1, 2 or 4 bytes");
        }
    }

    private static StatusException mismatch() {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "argument/result signature mismatch");
    }
}
