package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.RefCount;

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
 * <p>Immutable apart from its reference count; thread-safe. The creator owns one reference.
 */
public final class BufferView implements Resource {
    private final Buffer buffer;
    private final long[] shape;
    private final int elementType;
    private final int encodingType;
    private final long elementCount;
    private final long byteLength;
    private final RefCount references = new RefCount();

    private BufferView(Buffer buffer, long[] shape, int elementType, int encodingType, long elementCount,
            long byteLength) {
        this.buffer = buffer;
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
        long count = Shape.elementCount(dims);
        long bytes = ElementType.packedByteCount(elementType, count);
        if (bytes > buffer.byteLength()) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view " + describe(dims, elementType)
                    + " needs " + bytes + " bytes but buffer " + buffer + " has " + buffer.byteLength());
        }
        buffer.retain();
        return new BufferView(buffer, dims, elementType, encodingType, count, bytes);
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

    /** The viewed buffer; borrowed, valid while this view is. */
    public Buffer buffer() {
        return buffer;
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
            buffer.release();
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
