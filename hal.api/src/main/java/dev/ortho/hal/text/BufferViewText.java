package dev.ortho.hal.text;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.BufferView;
import dev.ortho.hal.Device;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.EncodingType;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.Shape;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Objects;

/**
 * IREE's text form of buffer views ({@code iree_hal_buffer_view_parse} / {@code _format}), the
 * syntax of {@code --input=} and of printed results: {@code [shape x] type [= elements]}.
 *
 * <ul>
 *   <li>{@code 2x2xf32=[1 2][3 4]}, {@code 4xi8=1,2,3,4}, scalar {@code f32=1}, {@code 2x*16=AABB CCDD}.
 *   <li>Parsing: surrounding whitespace and one pair of double quotes are dropped; elements are
 *       separated by any mix of whitespace, {@code ,}, {@code [} and {@code ]} (brackets are
 *       not checked against the shape); no elements fill with zeros; a single element is
 *       splatted to every position; any other count must equal the shape's element count.
 *   <li>Formatting: rank-1 elements separated by one space, each outer dimension wrapped in
 *       {@code [...]}; at most {@code maxElementCount} elements are printed and each row cut
 *       short ends in {@code ...}.
 *   <li>Elements: see {@link #formatElement}. Contents are dense row-major, little-endian;
 *       sub-byte types are packed LSB first ({@link ElementType#packedByteCount}).
 * </ul>
 *
 * <p>The codecs work on {@link MemorySegment}s and know nothing of buffers: a driver maps a
 * buffer and passes the mapped segment. Two entry points do IREE's whole job on a device:
 * {@link #parse(String, Device)} ({@code iree_hal_buffer_view_parse}, allocating the buffer)
 * and {@link #format(BufferView, long)} ({@code iree_hal_buffer_view_format}, reading through a
 * mapping). Not instantiable; every method is thread-safe as long as no other thread writes the
 * segments or buffers involved during the call. Segments are borrowed for the call only and
 * must be accessible from the calling thread.
 */
public final class BufferViewText {
    /** The largest rank the parser accepts (IREE's limit); more is RESOURCE_EXHAUSTED. */
    public static final int MAX_RANK = 128;
    /** Alignment of segments {@link #parse(String, Arena)} allocates (HAL buffer alignment). */
    public static final long ALIGNMENT = 64;
    /** Longest text {@link #format} produces (a Java string's limit); see {@link #textLimit}. */
    private static final int MAX_TEXT = Integer.MAX_VALUE - 64;
    /** How much of a long input error messages quote. */
    private static final int QUOTE = 48;
    /** Largest host-to-device update one staging step issues (IREE's inline update limit). */
    static final long MAX_UPDATE_BYTES = 64 * 1024;

    /**
     * The metadata part of the text form: shape, element type and encoding (always
     * {@link EncodingType#DENSE_ROW_MAJOR}: the text form carries none).
     *
     * @param shape the dimensions; copied on construction and on access
     */
    public record Header(long[] shape, int elementType, int encodingType) {
        public Header {
            shape = shape.clone();
        }

        @Override
        public long[] shape() {
            return shape.clone();
        }

        /** Product of the dimensions; OUT_OF_RANGE if it overflows. */
        public long elementCount() {
            return Shape.elementCount(shape);
        }

        /**
         * Bytes the dense contents occupy (sub-byte types packed), IREE's
         * {@code iree_hal_buffer_compute_view_size}.
         *
         * @throws StatusException INVALID_ARGUMENT for 0-bit element types, which cannot be
         *     indexed; OUT_OF_RANGE if the size overflows
         */
        public long byteLength() {
            requireIndexable(elementType);
            return ElementType.packedByteCount(elementType, elementCount());
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Header h && Arrays.equals(shape, h.shape)
                    && elementType == h.elementType && encodingType == h.encodingType;
        }

        @Override
        public int hashCode() {
            return Objects.hash(Arrays.hashCode(shape), elementType, encodingType);
        }

        @Override
        public String toString() {
            String type = ElementType.format(elementType);
            return shape.length == 0 ? type : Shape.format(shape) + "x" + type;
        }
    }

    /**
     * A parsed buffer view.
     *
     * @param contents exactly {@code header.byteLength()} bytes, owned by whoever owns the
     *     segment it was parsed into (the caller's arena or destination)
     */
    public record Parsed(Header header, MemorySegment contents) {
    }

    private BufferViewText() {
    }

    /**
     * Parses only the shape and element type of {@code text}, ignoring anything after
     * {@code =} (IREE's {@code iree_hal_parse_shape_and_element_type}); lets a caller size the
     * destination before {@link #parse(String, MemorySegment)}.
     *
     * @throws StatusException INVALID_ARGUMENT naming the text if it is empty, the shape is
     *     malformed or the element type unknown; RESOURCE_EXHAUSTED above {@link #MAX_RANK}
     */
    public static Header parseHeader(String text) {
        String value = unquote(text);
        if (value.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "empty buffer view text");
        }
        int equals = value.indexOf('=');
        String meta = equals < 0 ? value : value.substring(0, equals);
        int lastX = meta.lastIndexOf('x');
        String shapeText = lastX < 0 ? "" : meta.substring(0, lastX);
        String typeText = (lastX < 0 ? meta : meta.substring(lastX + 1)).strip();
        long[] shape;
        try {
            shape = Shape.parse(shapeText);
        } catch (StatusException e) {
            throw e.annotate("in buffer view '" + quote(value) + "'");
        }
        if (shape.length > MAX_RANK) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "buffer view rank "
                    + shape.length + " exceeds " + MAX_RANK + " in '" + quote(value) + "'");
        }
        int elementType;
        try {
            elementType = ElementType.parse(typeText);
        } catch (StatusException e) {
            throw e.annotate("in buffer view '" + quote(value) + "'");
        }
        return new Header(shape, elementType, EncodingType.DENSE_ROW_MAJOR);
    }

    /**
     * Parses {@code text} into a new segment of {@code header.byteLength()} bytes allocated from
     * {@code arena} with {@link #ALIGNMENT}; the arena owns it and frees it when closed.
     *
     * @throws StatusException as {@link #parseHeader} and {@link #parseElements};
     *     RESOURCE_EXHAUSTED if the arena cannot allocate the contents
     */
    public static Parsed parse(String text, Arena arena) {
        Objects.requireNonNull(arena, "arena");
        Header header = parseHeader(text);
        long length = header.byteLength();
        MemorySegment contents;
        try {
            contents = arena.allocate(length, ALIGNMENT);
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED,
                    "cannot allocate " + length + " bytes for buffer view " + header, e);
        }
        parseElements(dataOf(text), header.elementType(), header.elementCount(), contents);
        return new Parsed(header, contents);
    }

    /**
     * Parses {@code text} into the first {@code header.byteLength()} bytes of
     * {@code destination}; the rest of it is not touched. The returned contents are a slice of
     * {@code destination}.
     *
     * @throws StatusException as {@link #parseHeader} and {@link #parseElements}; OUT_OF_RANGE
     *     if {@code destination} is smaller than the contents
     */
    public static Parsed parse(String text, MemorySegment destination) {
        Header header = parseHeader(text);
        MemorySegment contents = slice(destination, header.byteLength(), header.toString());
        parseElements(dataOf(text), header.elementType(), header.elementCount(), contents);
        return new Parsed(header, contents);
    }

    /**
     * Parses IREE's text form ({@code 2x2xf32=[1 2][3 4]}, {@code 4xi8=1,2,3,4}, {@code f32=1})
     * into a new device-local buffer of {@code device}: IREE's {@code iree_hal_buffer_view_parse}.
     * The elements are written through a mapping when the buffer is host-visible and mappable,
     * otherwise staged on the host and copied with {@link Device#queueUpdate} (this call then
     * blocks until the copy completes). The caller owns the view; the view owns the buffer.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code device} is null; as
     *     {@link #parseHeader} and {@link #parseElements} (INVALID_ARGUMENT / OUT_OF_RANGE naming
     *     the bad element or shape); as {@link dev.ortho.hal.Allocator#allocateBuffer}
     */
    public static BufferView parse(String text, Device device) {
        if (device == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "buffer view parse device is null");
        }
        Header header = parseHeader(text);
        long bytes = header.byteLength();
        String data = dataOf(text);
        BufferParams params = new BufferParams(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL,
                BufferUsage.DEFAULT | BufferUsage.MAPPING_SCOPED, 0, 0);
        try (Buffer buffer = device.allocator().allocateBuffer(params, bytes)) {
            if (bytes > 0) {
                fill(device, buffer, header, data);
            }
            return BufferView.create(buffer, header.shape(), header.elementType(), header.encodingType());
        }
    }

    private static void fill(Device device, Buffer buffer, Header header, String data) {
        boolean mappable = MemoryType.has(buffer.memoryType(), MemoryType.HOST_VISIBLE)
                && (buffer.allowedUsage() & BufferUsage.MAPPING_SCOPED) != 0;
        if (mappable) {
            try (MappedMemory mapping = buffer.map(MemoryAccess.DISCARD_WRITE, 0, header.byteLength())) {
                parseElements(data, header.elementType(), header.elementCount(), mapping.contents());
            }
            return;
        }
        try (Arena arena = Arena.ofConfined(); Semaphore done = device.createSemaphore(0)) {
            long length = header.byteLength();
            MemorySegment staging = arena.allocate(length, ALIGNMENT);
            parseElements(data, header.elementType(), header.elementCount(), staging);
            // chained chunks of IREE's 64 KiB update limit: chunk i waits for i, signals i + 1
            long chunks = 0;
            for (long offset = 0; offset < length; offset += MAX_UPDATE_BYTES, chunks++) {
                long size = Math.min(MAX_UPDATE_BYTES, length - offset);
                device.queueUpdate(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(done, chunks),
                        SemaphoreList.of(done, chunks + 1), staging.asSlice(offset, size), buffer, offset, 0);
            }
            done.await(chunks, Timeout.infinite());
        }
    }

    /**
     * Parses the element part of the text form ({@code iree_hal_parse_buffer_elements}) into
     * {@code elementCount} elements of {@code elementType} at the start of {@code destination}:
     * empty {@code data} writes zeros, a single element is splatted.
     *
     * @throws StatusException INVALID_ARGUMENT naming the element, its index and its character
     *     position if it is malformed or out of the type's range (e.g. {@code 256} for
     *     {@code si8}), or if the type has 0 bits; OUT_OF_RANGE if there are more elements than
     *     {@code elementCount}, fewer (other than 0 or 1), or {@code destination} is too small
     */
    public static void parseElements(String data, int elementType, long elementCount,
                                     MemorySegment destination) {
        Objects.requireNonNull(data, "data");
        Header header = new Header(new long[] {elementCount}, elementType,
                EncodingType.DENSE_ROW_MAJOR);
        MemorySegment contents = slice(destination, header.byteLength(), header.toString());
        if (data.isEmpty()) {
            contents.fill((byte) 0);
            return;
        }
        long count = 0;
        String first = null;
        int i = 0;
        while (i < data.length()) {
            if (isSeparator(data.charAt(i))) {
                i++;
                continue;
            }
            int start = i;
            while (i < data.length() && !isSeparator(data.charAt(i))) {
                i++;
            }
            if (count >= elementCount) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "more than " + elementCount
                        + " elements in '" + quote(data) + "' (extra one at character " + start
                        + ")");
            }
            String token = data.substring(start, i);
            try {
                ElementText.parse(token, contents, count, elementType);
            } catch (StatusException e) {
                throw e.annotate("element " + count + " at character " + start + " of '"
                        + quote(data) + "'");
            }
            first = count == 0 ? token : first;
            count++;
        }
        if (count == 1 && elementCount > 1) {
            splat(contents, elementType, elementCount, first);
        } else if (count < elementCount) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "only " + count + " of "
                    + elementCount + " elements in '" + quote(data) + "'");
        }
    }

    /**
     * Formats a buffer view completely, e.g. {@code 2x2xf32=[1 2][3 4]}.
     *
     * @throws StatusException as {@link #format(MemorySegment, long[], int, long)}
     */
    public static String format(MemorySegment contents, long[] shape, int elementType) {
        return format(contents, shape, elementType, Long.MAX_VALUE);
    }

    /**
     * Formats a buffer view, printing at most {@code maxElementCount} elements
     * ({@code iree_hal_buffer_view_format}): {@code 4xi8=1 2...} for a limit of 2.
     *
     * @throws StatusException as {@link #formatElements}
     */
    public static String format(MemorySegment contents, long[] shape, int elementType,
                                long maxElementCount) {
        String meta = new Header(shape, elementType, EncodingType.DENSE_ROW_MAJOR).toString();
        return meta + "=" + formatElements(contents, shape, elementType, maxElementCount);
    }

    /**
     * Formats {@code view} completely ({@code 2x2xf32=[1 2][3 4]}), reading its buffer through
     * a scoped mapping.
     *
     * @throws StatusException as {@link #format(BufferView, long)}
     */
    public static String format(BufferView view) {
        return format(view, Long.MAX_VALUE);
    }

    /**
     * Formats {@code view} printing at most {@code maxElementCount} elements, as IREE's
     * {@code iree_hal_buffer_view_format} ({@code 4xi8=1 2...}). The view is borrowed for the
     * call.
     *
     * @throws StatusException PERMISSION_DENIED if the buffer cannot be mapped for reading;
     *     INVALID_ARGUMENT for a negative limit or a 0-bit element type
     */
    public static String format(BufferView view, long maxElementCount) {
        Objects.requireNonNull(view, "view");
        try (MappedMemory mapping = view.buffer().map(MemoryAccess.READ, 0, view.byteLength())) {
            return format(mapping.contents(), view.shape(), view.elementType(), maxElementCount);
        }
    }

    /**
     * Formats only the elements ({@code iree_hal_format_buffer_elements}): {@code [1 2][3 4]}
     * for shape 2x2, {@code 1} for a scalar, {@code [1...][...]} for 2x2 limited to 1 element.
     *
     * @throws StatusException INVALID_ARGUMENT for 0-bit element types or a negative limit;
     *     OUT_OF_RANGE if {@code contents} holds fewer bytes than the elements printed need
     *     (rank 0 and 1) or than the whole view (rank 2 and up), or the shape overflows;
     *     RESOURCE_EXHAUSTED if the text would exceed a Java string
     */
    public static String formatElements(MemorySegment contents, long[] shape, int elementType,
                                        long maxElementCount) {
        Objects.requireNonNull(contents, "contents");
        if (maxElementCount < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "max element count " + maxElementCount + " is negative");
        }
        long[] dims = shape.length == 0 ? new long[] {1} : shape.clone();
        Header header = new Header(dims, elementType, EncodingType.DENSE_ROW_MAJOR);
        long whole = header.byteLength();
        long needed = dims.length == 1
                ? ElementType.packedByteCount(elementType, Math.min(maxElementCount, dims[0]))
                : whole;
        if (contents.byteSize() < needed) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view " + header
                    + " needs " + needed + " bytes but the contents hold " + contents.byteSize());
        }
        long minimum = minimumTextLength(dims, maxElementCount);
        if (minimum > textLimit()) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "buffer view " + header
                    + " needs at least " + minimum + " characters of text, more than the limit of "
                    + textLimit() + "; pass a smaller max element count or shape");
        }
        StringBuilder out = new StringBuilder();
        long[] budget = {maxElementCount};
        appendElements(out, contents, dims, 0, 0, elementType, budget);
        return out.toString();
    }

    /**
     * Formats element {@code index} of {@code contents} ({@code iree_hal_format_element}):
     * integers in decimal by signedness ({@code i*} as signed); f16, bf16, f32, f64 and the
     * 8-bit floats through C's {@code %G} ({@code 1.5}, {@code 1123.57}, {@code -1.5E-10},
     * {@code 1E+06}, {@code INF}, {@code -NAN}, {@code -0}); every other type, including
     * {@code i1}, sub-byte and complex, as upper-case hex of its bytes in memory order
     * ({@code *16} 0xC7CF stored little-endian is {@code CFC7}).
     *
     * @throws StatusException INVALID_ARGUMENT for 0-bit types; OUT_OF_RANGE if the element
     *     lies beyond {@code contents}
     */
    public static String formatElement(MemorySegment contents, long index, int elementType) {
        checkElement(contents, index, elementType, StatusCode.OUT_OF_RANGE);
        StringBuilder out = new StringBuilder();
        ElementText.format(out, contents, index, elementType);
        return out.toString();
    }

    /**
     * Parses {@code text} as one element of {@code elementType} into element {@code index} of
     * {@code destination} ({@code iree_hal_parse_element}). Integers follow C's {@code strtol}
     * with base 0 ({@code 0x1F}, octal {@code 017}, {@code -5}); signless types accept both the
     * signed and unsigned range ({@code i8}: -128..255). Floats follow {@code strtod}
     * ({@code 1.5}, {@code -1e-10}, {@code 0x1p3}, {@code inf}, {@code nan}). Hex types need
     * exactly two digits per byte.
     *
     * @throws StatusException INVALID_ARGUMENT naming the text if it is malformed, has trailing
     *     characters, or is out of the type's range, or if the element lies beyond
     *     {@code destination} (as IREE)
     */
    public static void parseElement(String text, int elementType, MemorySegment destination,
                                    long index) {
        Objects.requireNonNull(text, "text");
        checkElement(destination, index, elementType, StatusCode.INVALID_ARGUMENT);
        checkWritable(destination);
        ElementText.parse(text, destination, index, elementType);
    }

    private static void appendElements(StringBuilder out, MemorySegment contents, long[] dims,
                                       int axis, long firstElement, int type, long[] budget) {
        if (axis < dims.length - 1) {
            long stride = 1;
            for (int i = axis + 1; i < dims.length; i++) {
                stride *= dims[i];
            }
            for (long i = 0; i < dims[axis]; i++) {
                out.append('[');
                appendElements(out, contents, dims, axis + 1, firstElement + i * stride, type,
                        budget);
                out.append(']');
                checkLength(out);
            }
            return;
        }
        long count = Math.min(budget[0], dims[axis]);
        budget[0] -= count;
        for (long i = 0; i < count; i++) {
            if (i > 0) {
                out.append(' ');
            }
            ElementText.format(out, contents, firstElement + i, type);
            checkLength(out);
        }
        if (count < dims[axis]) {
            out.append("...");
        }
    }

    private static void checkLength(StringBuilder out) {
        if (out.length() > textLimit()) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED,
                    "buffer view text exceeds " + textLimit() + " characters; pass a smaller"
                            + " max element count");
        }
    }

    /**
     * The longest text {@link #formatElements} builds: a Java string's limit, and a quarter of
     * the heap (the builder's growth and the final copy need about three times the text), so a
     * shape like {@code 90000000001x0x3} fails up front instead of exhausting the heap.
     */
    private static long textLimit() {
        return Math.min(MAX_TEXT, Runtime.getRuntime().maxMemory() / 4);
    }

    /**
     * Characters the text of {@code dims} needs at least: two brackets per row of every outer
     * axis (printed even for empty or elided rows) and one per printed element. Saturates at
     * {@link Long#MAX_VALUE}.
     */
    private static long minimumTextLength(long[] dims, long maxElementCount) {
        long brackets = 0;
        long rows = 1;
        for (int axis = 0; axis < dims.length - 1; axis++) {
            rows = saturatingMultiply(rows, dims[axis]);
            brackets = saturatingAdd(brackets, saturatingMultiply(rows, 2));
        }
        long elements = Math.min(maxElementCount, saturatingMultiply(rows, dims[dims.length - 1]));
        return saturatingAdd(brackets, elements);
    }

    private static long saturatingMultiply(long a, long b) {
        long high = Math.multiplyHigh(a, b);
        long low = a * b;
        return high != 0 || low < 0 ? Long.MAX_VALUE : low;
    }

    private static long saturatingAdd(long a, long b) {
        long sum = a + b;
        return sum < 0 ? Long.MAX_VALUE : sum;
    }

    private static void checkElement(MemorySegment segment, long index, int type,
                                     StatusCode code) {
        Objects.requireNonNull(segment, "segment");
        requireIndexable(type);
        if (index < 0 || index >= segment.byteSize() * 8L || segment.byteSize()
                < ElementType.packedByteCount(type, index + 1)) {
            throw new StatusException(code, "element " + index + " of "
                    + ElementType.format(type) + " lies beyond " + segment.byteSize() + " bytes");
        }
    }

    private static void requireIndexable(int type) {
        if (ElementType.bitCount(type) == 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "element type "
                    + ElementType.format(type) + " has 0 bits and cannot be indexed");
        }
    }

    private static void checkWritable(MemorySegment segment) {
        if (segment.isReadOnly()) {
            throw new StatusException(StatusCode.PERMISSION_DENIED,
                    "buffer view destination segment is read-only");
        }
    }

    private static MemorySegment slice(MemorySegment destination, long length, String what) {
        Objects.requireNonNull(destination, "destination");
        checkWritable(destination);
        if (destination.byteSize() < length) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "buffer view " + what + " needs "
                    + length + " bytes but the destination holds " + destination.byteSize());
        }
        return destination.asSlice(0, length);
    }

    private static void splat(MemorySegment contents, int type, long count, String token) {
        if (!ElementType.isByteAligned(type)) {
            for (long i = 1; i < count; i++) {
                ElementText.parse(token, contents, i, type);
            }
            return;
        }
        long filled = ElementType.denseByteCount(type);
        while (filled < contents.byteSize()) {
            long n = Math.min(filled, contents.byteSize() - filled);
            MemorySegment.copy(contents, 0, contents, filled, n);
            filled += n;
        }
    }

    private static boolean isSeparator(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == 0x0B
                || c == ',' || c == '[' || c == ']';
    }

    /** Drops surrounding whitespace and one leading and one trailing double quote, as IREE. */
    private static String unquote(String text) {
        Objects.requireNonNull(text, "text");
        String value = text.strip();
        if (value.startsWith("\"")) {
            value = value.substring(1);
        }
        if (value.endsWith("\"")) {
            value = value.substring(0, value.length() - 1);
        }
        return value;
    }

    private static String dataOf(String text) {
        String value = unquote(text);
        int equals = value.indexOf('=');
        return equals < 0 ? "" : value.substring(equals + 1);
    }

    private static String quote(String text) {
        return text.length() <= QUOTE ? text : text.substring(0, QUOTE) + "...";
    }
}
