package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Arrays;

/**
 * Argument or result storage of one call, laid out by a {@link CallingConvention} fragment: a
 * primitive bank (one 64-bit slot per i32/i64/f32/f64 value and per span count) and a ref bank
 * (one slot per ref). It is Ortho's form of IREE's packed argument/result byte buffer; keeping the
 * two banks apart matches the interpreter's register banks and needs no boxing.
 *
 * <p>Buffers are reused: {@link #reset} resizes without allocating once capacity suffices, so a
 * frame can make any number of calls without garbage.
 *
 * <p>Ownership (IREE's rule): refs in an <em>argument</em> buffer are borrowed from the caller for
 * the duration of the call (the callee retains what it keeps); refs in a <em>result</em> buffer
 * each carry one count that the caller must move out or release ({@link #releaseRefs}). Slot
 * indices outside the reset size fail with OUT_OF_RANGE. Not thread-safe.
 */
public final class CallBuffer {
    private long[] prims = new long[4];
    private RefObject[] refs = new RefObject[2];
    private int primCount;
    /**
     * Primitive slots at and above this index are zero: writes stay below {@link #primCount}, which
     * {@link #resize} may lower without zeroing, so {@link #reset} zeroes up to here.
     */
    private int dirtyPrims;
    private int refCount;
    /** Bit {@code i}: ref slot {@code i} holds a borrowed ref ({@link #setBorrowedRef}), which carries no count. */
    private long borrowed;

    /** Creates an empty buffer. */
    public CallBuffer() {
    }

    /**
     * Sizes the buffer for {@code primitiveSlots} and {@code refSlots}, zeroing primitives and
     * clearing ref slots (without releasing; release first if the buffer owns refs).
     *
     * @throws StatusException INVALID_ARGUMENT for negative sizes
     */
    public void reset(int primitiveSlots, int refSlots) {
        size(primitiveSlots, refSlots, true);
    }

    /**
     * Sizes the buffer like {@link #reset(int, int)} but leaves the primitive slots as they were
     * (stale values, not zeros): for a caller that writes every primitive slot before anything
     * reads one, such as the interpreter marshalling an import's arguments on every call. Ref
     * slots are cleared (without releasing) as by {@code reset}.
     *
     * @throws StatusException INVALID_ARGUMENT for negative sizes
     */
    public void resize(int primitiveSlots, int refSlots) {
        size(primitiveSlots, refSlots, false);
    }

    private void size(int primitiveSlots, int refSlots, boolean zero) {
        if (primitiveSlots < 0 || refSlots < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "negative call buffer size " + primitiveSlots + "/" + refSlots);
        }
        if (primitiveSlots > prims.length) {
            prims = new long[Math.max(primitiveSlots, prims.length * 2)];
            dirtyPrims = primitiveSlots;
        } else if (zero) {
            Arrays.fill(prims, 0, dirtyPrims, 0L);
            dirtyPrims = primitiveSlots;
        } else {
            dirtyPrims = Math.max(dirtyPrims, primitiveSlots);
        }
        if (refSlots > refs.length) {
            refs = new RefObject[Math.max(refSlots, refs.length * 2)];
        } else {
            for (int i = 0; i < refCount; i++) {
                if (refs[i] != null) { // usually null already (moved out or released): no store
                    refs[i] = null;
                }
            }
        }
        primCount = primitiveSlots;
        refCount = refSlots;
        borrowed = 0;
    }

    /** Sizes the buffer for a fixed (non-variadic) fragment; see {@link #reset(int, int)}. */
    public void reset(CallingConvention.Fragment fragment) {
        reset(fragment.primitiveSlots(), fragment.refSlots());
    }

    /** Number of primitive slots. */
    public int primitiveCount() {
        return primCount;
    }

    /** Number of ref slots. */
    public int refCount() {
        return refCount;
    }

    private int p(int slot) {
        if (slot < 0 || slot >= primCount) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "primitive slot " + slot + " out of range [0, " + primCount + ")");
        }
        return slot;
    }

    private int r(int slot) {
        if (slot < 0 || slot >= refCount) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "ref slot " + slot + " out of range [0, " + refCount + ")");
        }
        return slot;
    }

    /** The i32 in primitive slot {@code slot}. */
    public int i32(int slot) {
        return (int) prims[p(slot)];
    }

    /** The i64 in primitive slot {@code slot}. */
    public long i64(int slot) {
        return prims[p(slot)];
    }

    /** The f32 in primitive slot {@code slot}. */
    public float f32(int slot) {
        return Float.intBitsToFloat((int) prims[p(slot)]);
    }

    /** The f64 in primitive slot {@code slot}. */
    public double f64(int slot) {
        return Double.longBitsToDouble(prims[p(slot)]);
    }

    /** The raw 64 bits of primitive slot {@code slot}. */
    public long bits(int slot) {
        return prims[p(slot)];
    }

    /** The ref in ref slot {@code slot} (borrowed; may be null). */
    public RefObject ref(int slot) {
        return refs[r(slot)];
    }

    /**
     * The ref in {@code slot} checked against {@code type} (null passes).
     *
     * @throws StatusException INVALID_ARGUMENT if the ref has another type
     */
    public RefObject ref(int slot, RefType type) {
        return type.check(refs[r(slot)]);
    }

    /** Stores an i32 (sign-extended). */
    public void setI32(int slot, int value) {
        prims[p(slot)] = value;
    }

    /** Stores an i64. */
    public void setI64(int slot, long value) {
        prims[p(slot)] = value;
    }

    /** Stores an f32. */
    public void setF32(int slot, float value) {
        prims[p(slot)] = Float.floatToRawIntBits(value);
    }

    /** Stores an f64. */
    public void setF64(int slot, double value) {
        prims[p(slot)] = Double.doubleToRawLongBits(value);
    }

    /** Stores raw 64 bits. */
    public void setBits(int slot, long value) {
        prims[p(slot)] = value;
    }

    /**
     * Stores {@code ref} without retaining: for results, pass a count the caller will own; for
     * arguments, a borrowed ref.
     */
    public void setRef(int slot, RefObject ref) {
        refs[r(slot)] = ref;
        if (slot < Long.SIZE) {
            borrowed &= ~(1L << slot);
        }
    }

    /**
     * Stores {@code ref} as a ref the buffer does not own: {@link #releaseRefs} clears the slot
     * without releasing it, {@link #takeRef} retains it for the taker. For an argument the caller
     * keeps alive for the whole call (the interpreter passing a register it does not move), which
     * spares a retain and a release per argument. Slots from 64 on have no borrowed bit: there the
     * buffer retains {@code ref} and owns that count.
     */
    public void setBorrowedRef(int slot, RefObject ref) {
        refs[r(slot)] = ref;
        if (slot < Long.SIZE) {
            borrowed |= 1L << slot;
        } else {
            RefObject.retain(ref);
        }
    }

    /** Returns the ref in {@code slot} and clears the slot (moves its count to the caller). */
    public RefObject takeRef(int slot) {
        RefObject ref = refs[r(slot)];
        refs[slot] = null;
        if (slot < Long.SIZE && (borrowed & 1L << slot) != 0) {
            borrowed &= ~(1L << slot);
            RefObject.retain(ref); // a borrowed ref carries no count: the taker gets its own
        }
        return ref;
    }

    /**
     * Releases and clears every ref slot (used on owned result buffers, and on argument buffers
     * after the call); borrowed refs ({@link #setBorrowedRef}) are cleared without releasing.
     */
    public void releaseRefs() {
        long skip = borrowed;
        borrowed = 0;
        for (int i = 0; i < refCount; i++) {
            RefObject ref = refs[i];
            refs[i] = null;
            if (i >= Long.SIZE || (skip & 1L << i) == 0) {
                RefObject.release(ref);
            }
        }
    }
}
