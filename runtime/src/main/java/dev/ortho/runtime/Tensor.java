package dev.ortho.runtime;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.Shape;
import dev.ortho.hal.text.BufferViewText;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.List;

/**
 * A dense, row-major array on the host: a shape, an IREE element type
 * ({@link ElementType}, e.g. {@link ElementType#FLOAT_32}) and little-endian contents. The inputs
 * and results of {@link Program#call}. A rank-0 tensor is a scalar; it also carries the
 * {@code i32}/{@code i64}/{@code f32}/{@code f64} arguments and results of functions that take
 * or return primitives.
 *
 * <p>Ownership: the array factories ({@link #of(float[], long...)} …) copy the values, and
 * results are copies of device memory, so such tensors own heap memory the garbage collector
 * frees; nothing needs closing. {@link #of(MemorySegment, int, long...)} views the caller's
 * segment without a copy: the caller keeps it alive and unchanged while the tensor is in use (a
 * call copies it to the device before {@link Program#call}/{@link Program#callAsync} returns).
 *
 * <p>Immutable (the accessors return copies or read-only views); thread-safe.
 */
public final class Tensor {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final long[] shape;
    private final int elementType;
    private final MemorySegment contents;

    private Tensor(long[] shape, int elementType, MemorySegment contents) {
        this.shape = shape;
        this.elementType = elementType;
        this.contents = contents.asReadOnly();
    }

    /**
     * A tensor of {@code shape} and {@code elementType} over {@code contents}, which must hold
     * exactly the dense byte count; no copy is made (see the class comment for the lifetime).
     *
     * @throws StatusException INVALID_ARGUMENT for a null argument, an unknown element type or a
     *     byte count that does not match the shape (naming both); OUT_OF_RANGE for a negative
     *     dimension or an overflowing element count
     */
    public static Tensor of(MemorySegment contents, int elementType, long... shape) {
        if (contents == null || shape == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "tensor "
                    + (contents == null ? "contents" : "shape") + " is null");
        }
        long[] dims = shape.clone();
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 0) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "tensor shape[" + i + "] = " + dims[i]
                        + " is negative");
            }
        }
        if (ElementType.bitCount(elementType) == 0 || (elementType & 0x00FFFF00) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "tensor element type 0x"
                    + Integer.toHexString(elementType) + " is not an IREE element type with a bit count");
        }
        long bytes = ElementType.packedByteCount(elementType, Shape.elementCount(dims));
        if (contents.byteSize() != bytes) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "tensor " + describe(dims, elementType)
                    + " needs " + bytes + " bytes but " + contents.byteSize() + " were given");
        }
        return new Tensor(dims, elementType, contents);
    }

    /** An f32 tensor holding a copy of {@code values}; {@code shape} empty for a scalar. As {@link #of(MemorySegment, int, long...)}. */
    public static Tensor of(float[] values, long... shape) {
        return copy(MemorySegment.ofArray(values), ValueLayout.JAVA_FLOAT, F32, ElementType.FLOAT_32, shape);
    }

    /** An f64 tensor holding a copy of {@code values}. As {@link #of(MemorySegment, int, long...)}. */
    public static Tensor of(double[] values, long... shape) {
        return copy(MemorySegment.ofArray(values), ValueLayout.JAVA_DOUBLE, F64, ElementType.FLOAT_64, shape);
    }

    /** An i32 ({@link ElementType#SINT_32}) tensor holding a copy of {@code values}. */
    public static Tensor of(int[] values, long... shape) {
        return copy(MemorySegment.ofArray(values), ValueLayout.JAVA_INT, I32, ElementType.SINT_32, shape);
    }

    /** An i64 ({@link ElementType#SINT_64}) tensor holding a copy of {@code values}. */
    public static Tensor of(long[] values, long... shape) {
        return copy(MemorySegment.ofArray(values), ValueLayout.JAVA_LONG, I64, ElementType.SINT_64, shape);
    }

    /** Copies the Java array {@code source} (native order) into new little-endian heap memory. */
    private static Tensor copy(MemorySegment source, ValueLayout from, ValueLayout to, int elementType, long[] shape) {
        MemorySegment copy = MemorySegment.ofArray(new byte[Math.toIntExact(source.byteSize())]);
        MemorySegment.copy(source, from, 0, copy, to, 0, source.byteSize() / from.byteSize());
        return of(copy, elementType, shape);
    }

    /**
     * A tensor of any {@code elementType} holding a copy of {@code bytes}, its dense
     * little-endian contents (for {@link ElementType#SINT_8} or {@link ElementType#BOOL_8}: one
     * byte per element).
     */
    public static Tensor of(byte[] bytes, int elementType, long... shape) {
        return of(MemorySegment.ofArray(bytes.clone()), elementType, shape);
    }

    /**
     * Parses IREE's text form, as {@code --input=} takes it: {@code 2x2xf32=1 2 3 4},
     * {@code 4xi8=[1 2 3 4]}, {@code f32=1.5} (a scalar).
     *
     * @throws StatusException INVALID_ARGUMENT / OUT_OF_RANGE naming the bad shape, type or element
     */
    public static Tensor parse(String text) {
        BufferViewText.Parsed parsed = BufferViewText.parse(text, Arena.ofAuto());
        return new Tensor(parsed.header().shape(), parsed.header().elementType(), parsed.contents());
    }

    /**
     * The first array of the NumPy file {@code file}; see {@link Npy} for the dtypes read.
     *
     * @throws StatusException NOT_FOUND if the file does not exist, as {@link Npy#read}
     */
    public static Tensor readNpy(Path file) {
        List<Tensor> arrays = Npy.readAll(file, 1);
        return arrays.get(0);
    }

    /** Writes this tensor to {@code file} as a one-array {@code .npy} file (replacing it). */
    public void writeNpy(Path file) {
        Npy.write(file, List.of(this));
    }

    /** The dimensions (a copy; empty for a scalar). */
    public long[] shape() {
        return shape.clone();
    }

    /** The IREE element type ({@code (numerical_type << 24) | bit_count}, see {@link ElementType}). */
    public int elementType() {
        return elementType;
    }

    /** The number of elements (1 for a scalar). */
    public long elementCount() {
        return Shape.elementCount(shape);
    }

    /** The dense little-endian contents, read-only; valid as long as this tensor's memory is. */
    public MemorySegment contents() {
        return contents;
    }

    /**
     * The elements as floats (f32 tensors only).
     *
     * @throws StatusException FAILED_PRECONDITION naming the element type if it is not f32
     */
    public float[] toFloatArray() {
        require(ElementType.FLOAT_32, "toFloatArray");
        return contents.toArray(F32);
    }

    /** The elements as doubles (f64 tensors only); FAILED_PRECONDITION otherwise. */
    public double[] toDoubleArray() {
        require(ElementType.FLOAT_64, "toDoubleArray");
        return contents.toArray(F64);
    }

    /** The elements as ints (any 32-bit integer type); FAILED_PRECONDITION otherwise. */
    public int[] toIntArray() {
        requireInteger(32, "toIntArray");
        return contents.toArray(I32);
    }

    /** The elements as longs (any 64-bit integer type); FAILED_PRECONDITION otherwise. */
    public long[] toLongArray() {
        requireInteger(64, "toLongArray");
        return contents.toArray(I64);
    }

    /** A copy of the dense little-endian contents, whatever the element type. */
    public byte[] toByteArray() {
        return contents.toArray(ValueLayout.JAVA_BYTE);
    }

    private void require(int type, String what) {
        if (elementType != type) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " needs a "
                    + ElementType.format(type) + " tensor, but this one is " + describe(shape, elementType));
        }
    }

    private void requireInteger(int bits, String what) {
        if (!ElementType.isInteger(elementType) || ElementType.bitCount(elementType) != bits) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what + " needs a " + bits
                    + "-bit integer tensor, but this one is " + describe(shape, elementType));
        }
    }

    static String describe(long[] shape, int elementType) {
        return (shape.length == 0 ? "" : Shape.format(shape) + "x") + ElementType.format(elementType);
    }

    /** IREE's text form, {@code 1x3xf32=[1 2 3]}, with at most 1024 elements shown. */
    @Override
    public String toString() {
        return BufferViewText.format(contents, shape, elementType, 1024);
    }
}
