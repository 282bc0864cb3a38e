package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.RefCount;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A typed, shaped view of a {@link Buffer}: IREE's {@code iree_hal_buffer_view_t}. It holds a
 * shape (dimensions, rank 0 for a scalar), an {@link ElementType}
 * ({@code (numerical_type << 24) | bit_count}), an {@link EncodingType} and the buffer, which it
 * retains until its own last release. Metadata only: creating a view copies no memory.
 *
 * <p>{@link #byteLength()} is the size of the dense contents, {@code ceil(elements * bits / 8)}
 * (sub-byte types packed), as IREE's {@code iree_hal_buffer_view_byte_length}. Unlike IREE, a
 * view longer than its buffer is refused at creation, so every view can be mapped whole.
 *
 * <p>Text form: {@code dev.ortho.hal.text.BufferViewText} parses IREE's
 * {@code 2x2xf32=[1 2][3 4]} syntax into a view on a device and formats views.
 *
 * <p>Immutable apart from its reference count (and the subspan a view of part of a buffer makes
 * when first asked for its buffer); thread-safe. The creator owns one reference.
 */
public final class BufferView implements Resource {
    private static final VarHandle BUFFER;

    static {
        try {
            BUFFER = MethodHandles.lookup().findVarHandle(BufferView.class, "buffer", Buffer.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The buffer the view retains: the viewed buffer itself, or the one a lazy subspan is of. */
    private final Buffer source;
    /** Where the viewed range starts in {@link #source} (0 unless the subspan is lazy). */
    private final long sourceOffset;
    /** Bytes of the viewed range of {@link #source}. */
    private final long sourceLength;
    /**
     * The viewed buffer: {@link #source} itself, or the subspan of it made by the first
     * {@link #buffer()} (null until then). Written once, through {@link #BUFFER}.
     */
    private volatile Buffer buffer;
    private final long[] shape;
    private final int elementType;
    private final int encodingType;
    private final long elementCount;
    private final long byteLength;
    private final RefCount references = new RefCount();

    private BufferView(Buffer source, long sourceOffset, long sourceLength, boolean whole, long[] shape,
            int elementType, int encodingType, long elementCount, long byteLength) {
        this.source = source;
        this.sourceOffset = sourceOffset;
        this.sourceLength = sourceLength;
        this.buffer = whole ? source : null;
        this.shape = shape;
        this.elementType = elementType;
        this.encodingType = encodingType;
        this.elementCount = elementCount;
        this.byteLength = byteLength;
    }

    /**
     * Creates a view of {@code buffer} (retained by the view) with a copy of {@code shape}: IREE's
     * {@code iree_hal_buffer_view_create}. The caller owns the view and keeps its own reference
     * to the buffer.
     *
     * @param encodingType {@link EncodingType#DENSE_ROW_MAJOR} or {@link EncodingType#OPAQUE}
     * @throws StatusException INVALID_ARGUMENT if {@code buffer} or {@code shape} is null, the
     *     element type has bits set outside its numerical type and bit count
     *     ({@code 0x00FFFF00}) or the encoding is unknown, each naming the value;
     *     OUT_OF_RANGE naming the dimension if one is negative, if the element count or byte
     *     length overflows, or if the view needs more bytes than {@code buffer} has
     */
    public static BufferView create(Buffer buffer, long[] shape, int elementType, int encodingType) {
        if (buffer == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view buffer is null");
        }
        if (shape == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view shape is null (use an empty "
                    + "array for a scalar)");
        }
        long[] dims = shape.clone();
        long count = checkMetadata(dims, elementType, encodingType);
        long bytes = ElementType.packedByteCount(elementType, count);
        if (bytes > buffer.byteLength()) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view " + describe(dims, elementType)
                    + " needs " + bytes + " bytes but buffer " + buffer + " has " + buffer.byteLength());
        }
        buffer.retain();
        return new BufferView(buffer, 0, buffer.byteLength(), true, dims, elementType, encodingType, count, bytes);
    }

    /**
     * Creates a view of {@code [offset, offset + length)} of {@code source} (IREE's
     * {@code hal.buffer_view.create}, which views a subspan of its buffer argument unless the range
     * is all of it), without copying {@code shape}. The view retains {@code source}; the subspan
     * is made when {@link #buffer()} is first called, so a view nobody asks the buffer of (a
     * program's results that are only passed on or released) costs no subspan. A range that is all
     * of {@code source} views {@code source} itself, as {@link #create} does. The caller owns the
     * view and keeps its own reference to {@code source}.
     *
     * <p>The view adopts {@code shape}: the caller must not modify the array afterwards.
     *
     * @param length the range's length, or {@link Buffer#WHOLE_BUFFER} for the rest of
     *     {@code source}
     * @throws StatusException as {@link #create}; for a range that does not fit {@code source},
     *     as {@link Buffer#calculateRange} (OUT_OF_RANGE naming the range and the buffer length,
     *     INVALID_ARGUMENT for a negative length other than WHOLE_BUFFER)
     */
    public static BufferView createAdopting(Buffer source, long offset, long length, long[] shape, int elementType,
            int encodingType) {
        if (source == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view buffer is null");
        }
        if (shape == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view shape is null (use an empty "
                    + "array for a scalar)");
        }
        long sourceLength = source.byteLength();
        long resolved = Buffer.calculateRange("buffer view subspan", sourceLength, offset, length);
        boolean whole = offset == 0 && resolved == sourceLength;
        long count = checkMetadata(shape, elementType, encodingType);
        long bytes = ElementType.packedByteCount(elementType, count);
        if (bytes > resolved) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view " + describe(shape, elementType)
                    + " needs " + bytes + " bytes but buffer " + source + (whole ? "" : " range [" + offset + ", "
                    + (offset + resolved) + ")") + " has " + resolved);
        }
        source.retain();
        return new BufferView(source, offset, resolved, whole, shape, elementType, encodingType, count, bytes);
    }

    /** Checks the dimensions, element type and encoding; returns the element count. */
    private static long checkMetadata(long[] dims, int elementType, int encodingType) {
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 0) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view shape[" + i + "] = " + dims[i]
                        + " is negative");
            }
        }
        if ((elementType & 0x00FFFF00) != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view element type 0x"
                    + Integer.toHexString(elementType) + " has bits outside (numerical_type << 24) | bit_count");
        }
        if (encodingType != EncodingType.DENSE_ROW_MAJOR && encodingType != EncodingType.OPAQUE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view encoding type " + encodingType
                    + " is unknown (OPAQUE = 0, DENSE_ROW_MAJOR = 1)");
        }
        return Shape.elementCount(dims);
    }

    /**
     * Allocates a zero-filled buffer for a dense view of {@code shape} and {@code elementType}
     * from {@code allocator} with {@code params} and returns the view, which owns the buffer's
     * only reference.
     *
     * @throws StatusException as {@link #create} and {@link Allocator#allocateBuffer}
     */
    public static BufferView allocate(Allocator allocator, BufferParams params, long[] shape, int elementType) {
        if (allocator == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view allocator is null");
        }
        if (shape == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view shape is null");
        }
        long bytes = ElementType.packedByteCount(elementType, Shape.elementCount(shape));
        try (Buffer buffer = allocator.allocateBuffer(params, bytes)) {
            return create(buffer, shape, elementType, EncodingType.DENSE_ROW_MAJOR);
        }
    }

    /**
     * The viewed buffer; borrowed, valid while this view is. The same object on every call: for a
     * view made by {@link #createAdopting} of part of its buffer, the subspan made by the first
     * call.
     *
     * @throws StatusException what the source buffer's {@code subspan} throws on that first call
     *     (its range was checked at creation, so only a driver failure)
     */
    public Buffer buffer() {
        Buffer viewed = buffer; // volatile: pairs with the CAS in subspanSlowPath
        return viewed != null ? viewed : subspanSlowPath();
    }

    private Buffer subspanSlowPath() {
        Buffer made = source.subspan(sourceOffset, sourceLength);
        Buffer raced = (Buffer) BUFFER.compareAndExchange(this, (Buffer) null, made); // publishes the subspan
        if (raced != null) {
            made.release();
            return raced;
        }
        return made;
    }

    /** A copy of the dimensions. */
    public long[] shape() {
        return shape.clone();
    }

    /** Number of dimensions (0 for a scalar). */
    public int rank() {
        return shape.length;
    }

    /**
     * Dimension {@code index}.
     *
     * @throws StatusException OUT_OF_RANGE naming the index and the rank
     */
    public long dim(int index) {
        if (index < 0 || index >= shape.length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view dimension " + index
                    + " is outside rank " + shape.length);
        }
        return shape[index];
    }

    /** The {@link ElementType} value. */
    public int elementType() {
        return elementType;
    }

    /** The {@link EncodingType} value. */
    public int encodingType() {
        return encodingType;
    }

    /** Product of the dimensions (1 for a scalar). */
    public long elementCount() {
        return elementCount;
    }

    /** Bytes one element occupies on its own (IREE's {@code iree_hal_buffer_view_element_size}). */
    public int elementSize() {
        return ElementType.denseByteCount(elementType);
    }

    /** Bytes of the dense contents: IREE's {@code iree_hal_buffer_view_byte_length}. */
    public long byteLength() {
        return byteLength;
    }

    /**
     * The byte offset of the element at {@code indices} (one per dimension): IREE's
     * {@code iree_hal_buffer_view_compute_offset}.
     *
     * @throws StatusException INVALID_ARGUMENT for a non-dense encoding, an opaque or sub-byte
     *     element type, or an index count other than the rank; OUT_OF_RANGE naming the index that
     *     is not below its dimension
     */
    public long computeOffset(long... indices) {
        requireIndexable("offset");
        if (indices == null || indices.length != shape.length) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view shape rank/indices mismatch: "
                    + shape.length + " != " + (indices == null ? 0 : indices.length));
        }
        long offset = 0;
        for (int i = 0; i < indices.length; i++) {
            if (indices[i] < 0 || indices[i] >= shape[i]) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view index[" + i + "] out of bounds: "
                        + indices[i] + " >= " + shape[i]);
            }
            offset = offset * shape[i] + indices[i];
        }
        return offset * elementSize();
    }

    private void requireIndexable(String what) {
        if (encodingType != EncodingType.DENSE_ROW_MAJOR) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view " + this
                    + ": only dense encodings support view " + what + " computation");
        }
        if (ElementType.bitCount(elementType) == 0 || !ElementType.isByteAligned(elementType)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view " + this
                    + ": opaque and sub-byte element types cannot be indexed");
        }
    }

    @Override
    public void retain() {
        references.retain();
    }

    @Override
    public void release() {
        if (references.release(this)) {
            Buffer viewed = buffer;
            if (viewed != null && viewed != source) {
                viewed.release(); // the lazy subspan, if it was made
            }
            source.release();
        }
    }

    /** The metadata, e.g. {@code 2x2xf32}; never reads the buffer. */
    @Override
    public String toString() {
        return describe(shape, elementType);
    }

    private static String describe(long[] dims, int elementType) {
        String type = ElementType.format(elementType);
        return dims.length == 0 ? type : Shape.format(dims) + "x" + type;
    }
}
