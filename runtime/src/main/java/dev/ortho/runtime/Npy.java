package dev.ortho.runtime;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ElementType;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * NumPy {@code .npy} arrays (format versions 1.0, 2.0 and 3.0) as IREE's tools read and write
 * them ({@code tooling/numpy_io.c}): little-endian (or byte-order-free) {@code b}, {@code i},
 * {@code u}, {@code f}, {@code c} and {@code V} dtypes, C order only. Several arrays may follow
 * one another in one file (numpy's {@code np.save} to an open file); {@link #read} reads the
 * next one from the channel's position.
 *
 * <p>Hostile input is refused before anything is allocated for it: the header length is
 * bounded by {@link #MAX_HEADER_BYTES}, the rank by {@link #MAX_RANK}, and the contents must
 * fit in what is left of the file, so a huge declared shape costs nothing. Element types are
 * IREE's ({@link ElementType}): {@code <f4} is {@link ElementType#FLOAT_32}, {@code <i8}
 * {@link ElementType#SINT_64}, {@code |b1} {@link ElementType#BOOL_8}, {@code V2} 16-bit opaque.
 * Stateless; thread-safe.
 */
public final class Npy {
    /** Largest header dict accepted (numpy itself writes a few hundred bytes). */
    public static final int MAX_HEADER_BYTES = 1 << 20;
    /** Largest rank accepted (IREE's tools take up to 128 dimensions). */
    public static final int MAX_RANK = 128;
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};

    private Npy() {
    }

    /**
     * Every array of {@code file}, in order (numpy's {@code np.save} called repeatedly on one
     * open file writes several), read into memory the garbage collector frees.
     *
     * @throws StatusException NOT_FOUND if the file does not exist, INVALID_ARGUMENT for an
     *     empty file, as {@link #read} otherwise
     */
    public static List<Tensor> readAll(Path file) {
        return readAll(file, Integer.MAX_VALUE);
    }

    /** The first {@code limit} arrays of {@code file} (at least one); as {@link #readAll(Path)}. */
    static List<Tensor> readAll(Path file, int limit) {
        String name = file.toString();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            if (channel.size() == 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "npy file '" + name + "' is empty");
            }
            List<Tensor> arrays = new ArrayList<>();
            Arena arena = Arena.ofAuto();
            while (arrays.size() < limit && channel.position() < channel.size()) {
                arrays.add(read(channel, name, arena));
            }
            return arrays;
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "npy file '" + name + "' does not exist", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read '" + name + "': " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code arrays} one after another to {@code file} (replacing it), as numpy reads them
     * back with repeated {@code np.load} on one open file.
     *
     * @throws StatusException UNIMPLEMENTED for an element type numpy has no dtype for (sub-byte,
     *     bf16, f8 variants), NOT_FOUND / PERMISSION_DENIED / UNAVAILABLE if the file cannot be written
     */
    public static void write(Path file, List<Tensor> arrays) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        for (Tensor array : arrays) {
            bytes.writeBytes(encode(array.shape(), array.elementType(), array.contents()));
        }
        try {
            Files.write(file, bytes.toByteArray());
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot write '" + file + "': no such directory", e);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "cannot write '" + file + "': access denied", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot write '" + file + "': " + e.getMessage(), e);
        }
    }

    /**
     * Reads the array at {@code channel}'s position and leaves the position after it; the
     * contents are allocated in {@code arena}.
     *
     * @throws StatusException OUT_OF_RANGE {@code end-of-file} when the channel is at its end;
     *     INVALID_ARGUMENT for a truncated or malformed header or truncated contents (naming the
     *     byte counts); UNIMPLEMENTED for big-endian, Fortran-order or unsupported dtypes;
     *     UNAVAILABLE for an I/O error
     */
    public static Tensor read(SeekableByteChannel channel, String name, Arena arena) {
        try {
            if (channel.position() >= channel.size()) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "end-of-file reading npy array from '" + name + "'");
            }
            ByteBuffer prefix = readExactly(channel, 8, name, "header prefix");
            for (int i = 0; i < MAGIC.length; i++) {
                if (prefix.get(i) != MAGIC[i]) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "npy header magic mismatch in '" + name + "'");
                }
            }
            int major = prefix.get(6) & 0xFF;
            int minor = prefix.get(7) & 0xFF;
            long headerLength;
            if (major == 1) {
                headerLength = readExactly(channel, 2, name, "2-byte header length").getShort(0) & 0xFFFF;
            } else if (major == 2 || major == 3) {
                headerLength = readExactly(channel, 4, name, "4-byte header length").getInt(0) & 0xFFFFFFFFL;
            } else {
                throw new StatusException(StatusCode.UNIMPLEMENTED, "npy version " + major + "." + minor
                        + " not supported in '" + name + "'");
            }
            if (headerLength > MAX_HEADER_BYTES) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "npy header of " + headerLength
                        + " bytes in '" + name + "' exceeds the limit of " + MAX_HEADER_BYTES);
            }
            ByteBuffer headerBytes = readExactly(channel, (int) headerLength, name,
                    "header string of " + headerLength + " bytes");
            String header = StandardCharsets.ISO_8859_1.decode(headerBytes).toString();
            Header parsed = parseHeader(header.strip(), name);
            long count = 1;
            for (long dim : parsed.shape) {
                count = multiply(count, dim, name);
            }
            long bytes = multiply(count, ElementType.denseByteCount(parsed.elementType), name);
            long left = channel.size() - channel.position();
            if (bytes > left) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "failed to read npy contents of " + bytes
                        + " bytes from '" + name + "': only " + left + " bytes remain (shape "
                        + java.util.Arrays.toString(parsed.shape) + ")");
            }
            MemorySegment contents = arena.allocate(Math.max(1, bytes), 64).asSlice(0, bytes);
            ByteBuffer target = contents.asByteBuffer();
            while (target.hasRemaining()) {
                if (channel.read(target) < 0) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "npy contents of '" + name + "' truncated");
                }
            }
            return Tensor.of(contents, parsed.elementType, parsed.shape);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read '" + name + "': " + e.getMessage(), e);
        }
    }

    private static long multiply(long a, long b, String name) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "npy array size in '" + name + "' overflows 64 bits");
        }
    }

    private static ByteBuffer readExactly(SeekableByteChannel channel, int length, String name, String what)
            throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        while (buffer.hasRemaining()) {
            if (channel.read(buffer) < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "failed to read npy " + what + " from '"
                        + name + "': file truncated after " + buffer.position() + " of " + length + " bytes");
            }
        }
        return buffer.flip();
    }

    private record Header(long[] shape, int elementType) {
    }

    /** Parses {@code {'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }}. */
    private static Header parseHeader(String header, String name) {
        String dict = header;
        if (!dict.startsWith("{") || !dict.endsWith("}")) {
            throw malformed(name, header);
        }
        dict = dict.substring(1, dict.length() - 1).strip();
        String descr = null;
        String shape = null;
        boolean fortran = false;
        while (!dict.isEmpty()) {
            int colon = dict.indexOf(':');
            if (colon < 0) {
                throw malformed(name, header);
            }
            String key = unquote(dict.substring(0, colon).strip());
            dict = dict.substring(colon + 1).strip();
            String value;
            if (dict.startsWith("True") || dict.startsWith("False")) {
                value = dict.startsWith("True") ? "True" : "False";
                dict = dict.substring(value.length());
            } else if (dict.startsWith("'")) {
                int end = dict.indexOf('\'', 1);
                if (end < 0) {
                    throw malformed(name, header);
                }
                value = dict.substring(1, end);
                dict = dict.substring(end + 1);
            } else if (dict.startsWith("(")) {
                int end = dict.indexOf(')');
                if (end < 0) {
                    throw malformed(name, header);
                }
                value = dict.substring(1, end);
                dict = dict.substring(end + 1);
            } else {
                throw malformed(name, header);
            }
            dict = dict.strip();
            if (dict.startsWith(",")) {
                dict = dict.substring(1).strip();
            } else if (!dict.isEmpty()) {
                throw malformed(name, header);
            }
            switch (key) {
                case "descr" -> descr = value;
                case "fortran_order" -> fortran = value.equals("True");
                case "shape" -> shape = value;
                default -> {
                    // unknown keys are ignored, as numpy and IREE do
                }
            }
        }
        if (fortran) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "fortran order arrays not supported ('" + name + "')");
        }
        if (descr == null || shape == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "npy header of '" + name
                    + "' lacks " + (descr == null ? "'descr'" : "'shape'"));
        }
        return new Header(parseShape(shape, name), elementType(descr, name));
    }

    private static StatusException malformed(String name, String header) {
        String shown = header.length() > 200 ? header.substring(0, 200) + "..." : header;
        return new StatusException(StatusCode.INVALID_ARGUMENT, "malformed header dict in '" + name + "': " + shown);
    }

    private static String unquote(String key) {
        return key.length() >= 2 && key.startsWith("'") && key.endsWith("'") ? key.substring(1, key.length() - 1) : key;
    }

    private static long[] parseShape(String text, String name) {
        String shape = text.strip();
        if (shape.endsWith(",")) {
            shape = shape.substring(0, shape.length() - 1);
        }
        if (shape.isBlank()) {
            return new long[0];
        }
        String[] parts = shape.split(",", MAX_RANK + 1);
        if (parts.length > MAX_RANK) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "npy shape rank in '" + name
                    + "' exceeds " + MAX_RANK + "; be reasonable please");
        }
        long[] dims = new long[parts.length];
        for (int i = 0; i < parts.length; i++) {
            String dim = parts[i].strip();
            if (dim.isEmpty() || dim.length() > 19 || !dim.chars().allMatch(Character::isDigit)) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "invalid npy dimension " + i + " value '"
                        + (dim.length() > 40 ? dim.substring(0, 40) + "..." : dim) + "' in '" + name + "'");
            }
            dims[i] = Long.parseLong(dim);
        }
        return dims;
    }

    private static int elementType(String descr, String name) {
        String d = descr;
        if (d.startsWith(">")) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "big-endian data type '" + descr
                    + "' unsupported ('" + name + "')");
        }
        if (d.startsWith("<") || d.startsWith("|") || d.startsWith("=")) {
            d = d.substring(1);
        }
        if (d.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "npy descr '" + descr + "' missing kind");
        }
        char kind = d.charAt(0);
        int numerical = switch (kind) {
            case 'b' -> ElementType.NUMERICAL_TYPE_BOOLEAN;
            case 'i' -> ElementType.NUMERICAL_TYPE_INTEGER_SIGNED;
            case 'u' -> ElementType.NUMERICAL_TYPE_INTEGER_UNSIGNED;
            case 'f' -> ElementType.NUMERICAL_TYPE_FLOAT_IEEE;
            case 'c' -> ElementType.NUMERICAL_TYPE_FLOAT_COMPLEX;
            case 'V' -> ElementType.NUMERICAL_TYPE_UNKNOWN;
            default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported npy data type " + kind
                    + " (descr '" + descr + "')");
        };
        String width = d.substring(1);
        if (width.isEmpty() || width.length() > 3 || !width.chars().allMatch(Character::isDigit)
                || Integer.parseInt(width) == 0 || Integer.parseInt(width) > 16) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "invalid npy descr byte width in '" + descr + "'");
        }
        return ElementType.make(numerical, Integer.parseInt(width) * 8);
    }

    /** The numpy dtype of {@code elementType}: {@code <f4}, {@code |i1}, … as IREE writes it. */
    public static String descr(int elementType) {
        int bytes = ElementType.denseByteCount(elementType);
        String kind = switch (ElementType.numericalType(elementType)) {
            case ElementType.NUMERICAL_TYPE_UNKNOWN -> "V";
            case ElementType.NUMERICAL_TYPE_BOOLEAN -> "b";
            case ElementType.NUMERICAL_TYPE_INTEGER, ElementType.NUMERICAL_TYPE_INTEGER_SIGNED -> "i";
            case ElementType.NUMERICAL_TYPE_INTEGER_UNSIGNED -> "u";
            case ElementType.NUMERICAL_TYPE_FLOAT_IEEE -> "f";
            case ElementType.NUMERICAL_TYPE_FLOAT_COMPLEX -> "c";
            default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported data encoding for npy: "
                    + ElementType.format(elementType));
        };
        if (!ElementType.isByteAligned(elementType)) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported data encoding for npy: "
                    + ElementType.format(elementType) + " is not byte-aligned");
        }
        return (bytes == 1 ? "|" : "<") + kind + bytes;
    }

    /**
     * The bytes of one {@code .npy} array (version 1.0, or 2.0 for a header over 65535 bytes,
     * header padded to 64 bytes as numpy and IREE write it) followed by {@code contents}.
     */
    public static byte[] encode(long[] shape, int elementType, MemorySegment contents) {
        StringBuilder dict = new StringBuilder("{'descr': '").append(descr(elementType))
                .append("', 'fortran_order': False, 'shape': (");
        List<String> dims = new ArrayList<>();
        for (long dim : shape) {
            dims.add(Long.toString(dim));
        }
        dict.append(String.join(", ", dims));
        if (shape.length == 1) {
            dict.append(',');
        }
        dict.append("), }");
        byte[] header = dict.toString().getBytes(StandardCharsets.ISO_8859_1);
        boolean v2 = header.length > 65535;
        int current = 8 + (v2 ? 4 : 2) + header.length + 1;
        int padded = (current + 63) & ~63;
        int headerLength = header.length + (padded - current) + 1;
        if (contents.byteSize() > Integer.MAX_VALUE - padded) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "npy array of " + contents.byteSize()
                    + " bytes is too large to write");
        }
        ByteBuffer out = ByteBuffer.allocate(padded + (int) contents.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        out.put(MAGIC).put((byte) (v2 ? 2 : 1)).put((byte) 0);
        if (v2) {
            out.putInt(headerLength);
        } else {
            out.putShort((short) headerLength);
        }
        out.put(header);
        while (out.position() < padded - 1) {
            out.put((byte) ' ');
        }
        out.put((byte) '\n');
        out.put(contents.asByteBuffer());
        return out.array();
    }
}
