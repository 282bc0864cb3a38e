package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
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
import dev.ortho.hal.text.BufferViewText;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.Variant;
import dev.ortho.vm.VmList;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Function inputs and outputs in IREE's tool syntax ({@code tooling/function_io.c},
 * {@code process_results.c}, {@code comparison.cc}):
 *
 * <ul>
 *   <li>inputs: scalars ({@code 5}, {@code 3.14}), {@code (null)}/{@code (ignored)} (zero or a
 *       null ref), buffer views ({@code 2x2xf32=1 2 3 4}, {@code 2x2xi32=[[1 2][3 4]]}), raw
 *       contents from a file ({@code 2xf32=@file.bin}, {@code +} continues an open file),
 *       NumPy arrays ({@code @file.npy} reads the first array, {@code +file.npy} the next one of
 *       the same file, {@code *file.npy} all remaining ones) and {@code &2xf32} (the
 *       {@code hal.buffer} of such a view);
 *   <li>outputs: {@code result[i]: } lines, or per {@code --output=}: empty (ignore),
 *       {@code -} (print), {@code @file.npy}/{@code +file.npy} (create/append an array),
 *       {@code @file.bin}/{@code +file.bin} (raw contents);
 *   <li>expected outputs compared like IREE's approximate mode ({@code |actual - expected| <=
 *       atol + rtol * |expected|}, NaN equal to NaN, integers exact) with IREE's
 *       {@code [FAILED] result[i]: ...} messages.
 * </ul>
 *
 * <p>An instance holds the files opened by one parse (so {@code +} continues them); close it
 * after parsing. Not thread-safe.
 */
final class FunctionIo implements Closeable {
    /** IREE's {@code --output_max_element_count} default. */
    static final long DEFAULT_MAX_ELEMENTS = 1024;

    /** Tolerances of the approximate comparison (IREE's flag defaults). */
    record Tolerance(boolean exact, double f16, double f32, double f64, double bf16, double rtol) {
        static final Tolerance DEFAULT = new Tolerance(false, 0.001f, 0.0001f, 0.0001, 0.01f, 1e-5);
    }

    private final Device device;
    private final boolean expectations;
    private final Map<String, SeekableByteChannel> streams = new HashMap<>();
    private final Arena arena = Arena.ofConfined();

    /**
     * @param device allocates buffer-view inputs; null when no HAL device is in use
     * @param expectations parsing {@code --expected_output=} values: {@code (ignored)} then
     *     yields an empty variant that matches any result (otherwise it is a zero or null ref)
     */
    FunctionIo(Device device, boolean expectations) {
        this.device = device;
        this.expectations = expectations;
    }

    @Override
    public void close() {
        for (SeekableByteChannel channel : streams.values()) {
            try {
                channel.close();
            } catch (IOException e) {
                // read-only channels: nothing is lost
            }
        }
        streams.clear();
        arena.close();
    }

    // ---------------------------------------------------------------- parsing

    /**
     * Parses {@code specs} against the argument types {@code cconv} ({@code iIfFr} letters) into
     * a new list the caller owns. A spec may yield zero or more values ({@code *file.npy}).
     *
     * @throws StatusException INVALID_ARGUMENT {@code parsing input `x`: ...} for bad syntax,
     *     shapes, element counts, types or a cconv mismatch; NOT_FOUND for a missing file;
     *     UNIMPLEMENTED for unsupported file kinds
     */
    VmList parse(String cconv, List<String> specs) {
        VmList list = VmList.ofVariants(specs.size());
        int[] position = {0};
        try {
            for (String raw : specs) {
                String spec = raw.strip();
                try {
                    parseInto(cconv, position, spec, list);
                } catch (StatusException e) {
                    throw e.annotate("parsing input `" + spec + "`");
                }
            }
        } catch (StatusException e) {
            list.release();
            throw e;
        }
        return list;
    }

    private static char consumeAny(String cconv, int[] position) {
        if (position[0] >= cconv.length()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function expected fewer input values");
        }
        return cconv.charAt(position[0]++);
    }

    private static void consume(String cconv, int[] position, char expected) {
        char actual = consumeAny(cconv, position);
        if (actual != expected) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function signature mismatch: expected cconv type `"
                    + expected + "` but provided type `" + actual + "`");
        }
    }

    private void parseInto(String cconv, int[] position, String spec, VmList list) {
        if (spec.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "no value specified for input");
        }
        if (spec.equals("(null)") || spec.equals("(ignored)")) {
            char type = consumeAny(cconv, position);
            if (expectations && spec.equals("(ignored)")) {
                list.resize(list.size() + 1); // an empty variant: matches any result
            } else if (type == 'r') {
                list.pushRefMove(null);
            } else {
                Variant zero = ScalarText.parse(spec, type);
                list.pushValueBits(zero.valueType(), zero.bits());
            }
            return;
        }
        char first = spec.charAt(0);
        if (first == '@' || first == '+' || first == '*') {
            parseFileInto(cconv, position, spec, list);
            return;
        }
        if (first == '&') {
            consume(cconv, position, 'r');
            BufferView view = parseTensor(spec.substring(1));
            try {
                list.pushRefMove(HalRefs.wrap(view.buffer()));
            } finally {
                view.release();
            }
            return;
        }
        if (position[0] < cconv.length() && cconv.charAt(position[0]) != 'r') {
            int index = position[0];
            Variant value = ScalarText.parse(spec, consumeAny(cconv, position), index);
            list.pushValueBits(value.valueType(), value.bits());
            return;
        }
        consume(cconv, position, 'r');
        if (spec.indexOf('=') < 0 && spec.indexOf('x') < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "invalid tensor specification, requires at least a shape/type (`4x2xf32=...`)");
        }
        pushView(list, parseTensor(spec));
    }

    private static void pushView(VmList list, BufferView view) {
        try {
            list.pushRefMove(HalRefs.wrap(view));
        } finally {
            view.release();
        }
    }

    private Device requireDevice(String what) {
        if (device == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what
                    + " needs a HAL device, but no module of this run depends on the 'hal' module");
        }
        return device;
    }

    /** {@code 2x2xf32=1 2 3 4}, or {@code 2x2xf32=@file.bin} / {@code =+file.bin} read raw. */
    private BufferView parseTensor(String spec) {
        Device target = requireDevice("buffer view input `" + spec + "`");
        int equals = spec.indexOf('=');
        if (equals >= 0 && equals + 1 < spec.length()
                && (spec.charAt(equals + 1) == '@' || spec.charAt(equals + 1) == '+')) {
            BufferViewText.Header header = BufferViewText.parseHeader(spec.substring(0, equals));
            String file = spec.substring(equals + 2);
            SeekableByteChannel stream = open(file, spec.charAt(equals + 1) == '+');
            long bytes = header.byteLength();
            MemorySegment contents = readContents(stream, file, bytes);
            return upload(target, header.shape(), header.elementType(), contents);
        }
        return BufferViewText.parse(spec, target);
    }

    private MemorySegment readContents(SeekableByteChannel stream, String file, long bytes) {
        try {
            long left = stream.size() - stream.position();
            if (bytes > left) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "file '" + file + "' has " + left
                        + " bytes left but the buffer view needs " + bytes);
            }
            MemorySegment contents = arena.allocate(Math.max(1, bytes), 64).asSlice(0, bytes);
            java.nio.ByteBuffer target = contents.asByteBuffer();
            while (target.hasRemaining()) {
                if (stream.read(target) < 0) {
                    throw new StatusException(StatusCode.OUT_OF_RANGE, "file '" + file + "' ended early");
                }
            }
            return contents;
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read '" + file + "': " + e.getMessage(), e);
        }
    }

    private void parseFileInto(String cconv, int[] position, String spec, VmList list) {
        boolean append = spec.charAt(0) != '@';
        boolean splat = spec.charAt(0) == '*';
        String path = spec.substring(1);
        if (!path.endsWith(".npy")) {
            throw new StatusException(StatusCode.UNIMPLEMENTED,
                    "only numpy (.npy) files are supported for metadata-less variant I/O");
        }
        SeekableByteChannel stream = open(path, append);
        Device target = requireDevice("numpy input `" + spec + "`");
        // @ and + read one array; * reads every array left (zero or more)
        boolean first = true;
        while (splat ? !atEnd(stream) : first) {
            first = false;
            consume(cconv, position, 'r');
            NpyFile.Array array = NpyFile.read(stream, path, arena);
            pushView(list, upload(target, array.shape(), array.elementType(), array.contents()));
        }
    }

    private static boolean atEnd(SeekableByteChannel stream) {
        try {
            return stream.position() >= stream.size();
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot query file position: " + e.getMessage(), e);
        }
    }

    /** {@code @} opens the file anew (from its start); {@code +} continues an opened one. */
    private SeekableByteChannel open(String path, boolean append) {
        SeekableByteChannel existing = streams.get(path);
        try {
            if (existing != null) {
                if (!append) {
                    existing.position(0);
                }
                return existing;
            }
            SeekableByteChannel channel = FileChannel.open(Path.of(path), StandardOpenOption.READ);
            streams.put(path, channel);
            return channel;
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "file '" + path + "' does not exist", e);
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot open '" + path + "': " + e.getMessage(), e);
        }
    }

    /** A new dense view on {@code device} holding a copy of {@code contents}. */
    static BufferView upload(Device device, long[] shape, int elementType, MemorySegment contents) {
        BufferParams params = new BufferParams(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL,
                BufferUsage.DEFAULT | BufferUsage.MAPPING_SCOPED, 0, 0);
        try (Buffer buffer = device.allocator().allocateBuffer(params, contents.byteSize())) {
            BufferView view = BufferView.create(buffer, shape, elementType, EncodingType.DENSE_ROW_MAJOR);
            if (contents.byteSize() > 0) {
                try {
                    buffer.write(0, contents);
                } catch (StatusException e) {
                    view.release();
                    throw e;
                }
            }
            return view;
        }
    }

    // ---------------------------------------------------------------- printing and writing

    /** IREE's variant text: {@code (null)}, {@code i32=5}, or the ref type name, a newline and its contents. */
    static String format(Variant value, long maxElements) {
        if (value.isEmpty() || value.isRef() && value.ref() == null) {
            return "(null)";
        }
        if (!value.isRef()) {
            return ScalarText.format(value);
        }
        StringBuilder text = new StringBuilder(value.refType().name()).append('\n');
        RefObject ref = value.ref();
        if (ref instanceof VmList child) {
            for (int i = 0; i < child.size(); i++) {
                text.append("child_list[").append(i).append("]: ")
                        .append(format(child.getVariant(i), maxElements)).append('\n');
            }
        } else if (isBufferView(value)) {
            text.append(BufferViewText.format(HalRefs.bufferView(ref), maxElements));
        } else {
            text.append("(no printer)");
        }
        return text.toString();
    }

    private static boolean isBufferView(Variant value) {
        return value.isRef() && value.ref() != null && value.refType().name().equals(HalTypes.BUFFER_VIEW.name());
    }

    /** Prints every result as {@code result[i]: ...}. */
    static void print(VmList results, long maxElements, PrintStream out) {
        for (int i = 0; i < results.size(); i++) {
            out.println("result[" + i + "]: " + format(results.getVariant(i), maxElements));
        }
    }

    /**
     * Handles each result per its {@code --output=} spec.
     *
     * @throws StatusException OUT_OF_RANGE if the counts differ, UNIMPLEMENTED for an unknown
     *     mode, INVALID_ARGUMENT for a result that cannot be written to a file
     */
    static void write(VmList results, List<String> specs, long maxElements, PrintStream out) {
        if (results.size() != specs.size()) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, specs.size()
                    + " outputs specified but the provided variant list only has " + results.size() + " elements");
        }
        for (int i = 0; i < specs.size(); i++) {
            String spec = specs.get(i);
            Variant value = results.getVariant(i);
            if (spec.isEmpty()) {
                continue;
            }
            if (spec.equals("-")) {
                out.println(format(value, maxElements));
                continue;
            }
            boolean append;
            if (spec.startsWith("@")) {
                append = false;
            } else if (spec.startsWith("+")) {
                append = true;
            } else {
                throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported output mode specification '"
                        + spec + "'");
            }
            String path = spec.substring(1);
            writeFile(Path.of(path), contentsOf(value, path.endsWith(".npy")), append);
        }
    }

    private static byte[] contentsOf(Variant value, boolean npy) {
        if (value.isValue()) {
            ValueType type = value.valueType();
            int elementType;
            int bytes;
            switch (type) {
                case I8 -> { elementType = ElementType.INT_8; bytes = 1; }
                case I16 -> { elementType = ElementType.INT_16; bytes = 2; }
                case I32 -> { elementType = ElementType.INT_32; bytes = 4; }
                case I64 -> { elementType = ElementType.INT_64; bytes = 8; }
                case F32 -> { elementType = ElementType.FLOAT_32; bytes = 4; }
                case F64 -> { elementType = ElementType.FLOAT_64; bytes = 8; }
                default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported value type");
            }
            MemorySegment scalar = MemorySegment.ofArray(new byte[8]);
            scalar.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0, value.bits());
            MemorySegment data = scalar.asSlice(0, bytes);
            return npy ? NpyFile.encode(new long[0], elementType, data) : data.toArray(ValueLayout.JAVA_BYTE);
        }
        if (isBufferView(value)) {
            BufferView view = HalRefs.bufferView(value.ref());
            try (MappedMemory mapping = view.buffer().map(MemoryAccess.READ, 0, view.byteLength())) {
                return npy ? NpyFile.encode(view.shape(), view.elementType(), mapping.contents())
                        : mapping.contents().toArray(ValueLayout.JAVA_BYTE);
            }
        }
        if (value.isRef() && value.ref() != null && value.refType().name().equals(HalTypes.BUFFER.name())) {
            Buffer buffer = HalRefs.buffer(value.ref());
            try (MappedMemory mapping = buffer.map(MemoryAccess.READ, 0, buffer.byteLength())) {
                return npy ? NpyFile.encode(new long[] {buffer.byteLength()}, ElementType.INT_8, mapping.contents())
                        : mapping.contents().toArray(ValueLayout.JAVA_BYTE);
            }
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                "unsupported output source type; expected: !hal.buffer, !hal.buffer_view");
    }

    private static void writeFile(Path path, byte[] bytes, boolean append) {
        try {
            if (append) {
                Files.write(path, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } else {
                Files.write(path, bytes);
            }
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot write '" + path + "': no such directory", e);
        } catch (AccessDeniedException e) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "cannot write '" + path + "': access denied", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot write '" + path + "': " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- comparison

    /**
     * Compares {@code actual} with {@code expected} (an empty expected variant, from
     * {@code (ignored)} or {@code (null)} for a ref, matches anything), appending IREE's
     * {@code [FAILED] ...} report for every mismatch to {@code report}.
     *
     * @return whether everything matched
     */
    static boolean compare(VmList expected, VmList actual, Tolerance tolerance, StringBuilder report) {
        if (expected.size() != actual.size()) {
            report.append("[FAILED] expected ").append(expected.size()).append(" list elements but ")
                    .append(actual.size()).append(" provided\n");
            return false;
        }
        boolean all = true;
        for (int i = 0; i < expected.size(); i++) {
            all &= compareVariant(i, expected.getVariant(i), actual.getVariant(i), tolerance, report);
        }
        return all;
    }

    private static boolean compareVariant(int index, Variant expected, Variant actual, Tolerance tolerance,
            StringBuilder report) {
        if (expected.isEmpty() || expected.isRef() && expected.ref() == null) {
            return true;
        }
        if (expected.isValue() && actual.isValue() && expected.valueType() == actual.valueType()) {
            if (expected.bits() == actual.bits() || expected.valueType() == ValueType.F32
                    && expected.asF32() == actual.asF32() || expected.valueType() == ValueType.F64
                    && expected.asF64() == actual.asF64()) {
                return true;
            }
            String type = expected.valueType().name().toLowerCase(java.util.Locale.ROOT);
            boolean floating = type.startsWith("f");
            report.append("[FAILED] result[").append(index).append("]: ").append(type).append(" values differ\n")
                    .append("  expected: ").append(floating ? scalarG(expected) : scalarInt(expected)).append('\n')
                    .append("  actual: ").append(floating ? scalarG(actual) : scalarInt(actual)).append('\n');
            return false;
        }
        if (isBufferView(expected) && isBufferView(actual)) {
            BufferView want = HalRefs.bufferView(expected.ref());
            BufferView got = HalRefs.bufferView(actual.ref());
            String problem = matchViews(want, got, tolerance);
            if (problem == null) {
                return true;
            }
            report.append("[FAILED] result[").append(index).append("]: ").append(problem)
                    .append("; expected that the view is equal to contents of a view of ").append(want)
                    .append("\n  expected:\n").append(BufferViewText.format(want, DEFAULT_MAX_ELEMENTS))
                    .append("\n  actual:\n").append(BufferViewText.format(got, DEFAULT_MAX_ELEMENTS)).append('\n');
            return false;
        }
        report.append("[FAILED] result[").append(index).append("]: variant types mismatch; expected ")
                .append(typeString(expected)).append(" but got ").append(typeString(actual)).append('\n');
        return false;
    }

    private static String scalarInt(Variant v) {
        return v.valueType() == ValueType.I64 ? Long.toString(v.asI64()) : Integer.toString(v.asI32());
    }

    private static String scalarG(Variant v) {
        double d = v.valueType() == ValueType.F32 ? v.asF32() : v.asF64();
        return ScalarText.formatG(d).toUpperCase(java.util.Locale.ROOT);
    }

    private static String typeString(Variant v) {
        if (v.isEmpty()) {
            return "empty";
        }
        if (v.isValue()) {
            return v.valueType().name().toLowerCase(java.util.Locale.ROOT);
        }
        return v.refType().name();
    }

    /** Null when the views match, else IREE's matcher description of the first difference. */
    private static String matchViews(BufferView expected, BufferView actual, Tolerance tolerance) {
        if (!java.util.Arrays.equals(expected.shape(), actual.shape()) || expected.elementType() != actual.elementType()
                || expected.encodingType() != actual.encodingType()) {
            // IREE's metadata matcher describes itself too ("matches <shape>x<type>").
            return "metadata is " + actual + "; expected that the view matches " + expected;
        }
        int type = actual.elementType();
        try (MappedMemory a = actual.buffer().map(MemoryAccess.READ, 0, actual.byteLength());
                MappedMemory e = expected.buffer().map(MemoryAccess.READ, 0, expected.byteLength())) {
            MemorySegment got = a.contents();
            MemorySegment want = e.contents();
            long count = actual.elementCount();
            if (!ElementType.isByteAligned(type)) {
                return got.mismatch(want) < 0 ? null : "contents differ (sub-byte elements compared bytewise)";
            }
            int size = ElementType.denseByteCount(type);
            for (long i = 0; i < count; i++) {
                if (!elementMatches(want, got, i, size, type, tolerance)) {
                    return "element at index " + i + " (" + BufferViewText.formatElement(got, i, type)
                            + ") does not match the expected (" + BufferViewText.formatElement(want, i, type) + ")";
                }
            }
            return null;
        }
    }

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    private static boolean elementMatches(MemorySegment want, MemorySegment got, long i, int size, int type,
            Tolerance t) {
        long offset = i * size;
        if (!t.exact()) {
            if (type == ElementType.FLOAT_32) {
                return fuzzy(got.get(F32, offset), want.get(F32, offset), t.f32(), t.rtol());
            } else if (type == ElementType.FLOAT_64) {
                return fuzzy(got.get(F64, offset), want.get(F64, offset), t.f64(), t.rtol());
            } else if (type == ElementType.FLOAT_16) {
                return fuzzy(Float.float16ToFloat(got.get(I16, offset)), Float.float16ToFloat(want.get(I16, offset)),
                        t.f16(), t.rtol());
            } else if (type == ElementType.BFLOAT_16) {
                return fuzzy(Float.intBitsToFloat((got.get(I16, offset) & 0xFFFF) << 16),
                        Float.intBitsToFloat((want.get(I16, offset) & 0xFFFF) << 16), t.bf16(), t.rtol());
            }
        }
        return MemorySegment.mismatch(want, offset, offset + size, got, offset, offset + size) < 0;
    }

    /** IREE's {@code iree_math_fuzzy_compare_f64}. */
    static boolean fuzzy(double actual, double expected, double atol, double rtol) {
        if (actual == expected) {
            return true;
        }
        if (Double.isNaN(actual) && Double.isNaN(expected)) {
            return true;
        }
        if (!Double.isFinite(expected)) {
            return false;
        }
        return Math.abs(actual - expected) <= atol + rtol * Math.abs(expected);
    }
}
