package dev.ortho.bench.models;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A NumPy {@code .npy} array (format versions 1–3, C order, little-endian or one-byte elements),
 * read whole: its {@code descr} (such as {@code <f4}), shape and raw element bytes in a direct
 * buffer in native (little-endian) order. Enough for the benchmark inputs in {@code models/};
 * anything else is refused with an {@link IOException} naming the file and the field.
 */
record Npy(String descr, long[] shape, ByteBuffer data) {
    private static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};
    private static final Pattern DESCR = Pattern.compile("'descr':\\s*'([<|]?[a-zA-Z][0-9]+)'");
    private static final Pattern FORTRAN = Pattern.compile("'fortran_order':\\s*(True|False)");
    private static final Pattern SHAPE = Pattern.compile("'shape':\\s*\\(([0-9,\\s]*)\\)");

    static Npy read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        if (bytes.length < 10 || !Arrays.equals(bytes, 0, 6, MAGIC, 0, 6)) {
            throw new IOException(file + ": not a .npy file (no \\x93NUMPY magic)");
        }
        int major = bytes[6];
        ByteBuffer le = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int headerLength;
        int headerStart;
        if (major == 1) {
            headerLength = Short.toUnsignedInt(le.getShort(8));
            headerStart = 10;
        } else if (major == 2 || major == 3) {
            if (bytes.length < 12) {
                throw new IOException(file + ": truncated .npy header");
            }
            headerLength = le.getInt(8);
            headerStart = 12;
        } else {
            throw new IOException(file + ": unsupported .npy version " + major);
        }
        if (headerLength < 0 || headerStart + (long) headerLength > bytes.length) {
            throw new IOException(file + ": header length " + headerLength + " past the end of the file");
        }
        String header = new String(bytes, headerStart, headerLength,
                major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
        String descr = group(DESCR, header, file, "descr");
        if (descr.startsWith(">")) {
            throw new IOException(file + ": big-endian descr " + descr + " is not supported");
        }
        if (group(FORTRAN, header, file, "fortran_order").equals("True")) {
            throw new IOException(file + ": fortran_order True is not supported");
        }
        String dims = group(SHAPE, header, file, "shape").trim();
        long[] shape = dims.isEmpty() ? new long[0]
                : Arrays.stream(dims.split(",")).map(String::trim).filter(d -> !d.isEmpty())
                        .mapToLong(Long::parseLong).toArray();
        int elementBytes = Integer.parseInt(descr.replaceAll("^[<|]?[a-zA-Z]", ""));
        long count = 1;
        for (long d : shape) {
            count = Math.multiplyExact(count, d);
        }
        int dataStart = headerStart + headerLength;
        long size = Math.multiplyExact(count, elementBytes);
        if (dataStart + size != bytes.length) {
            throw new IOException(file + ": shape " + Arrays.toString(shape) + " of " + descr + " needs " + size
                    + " bytes, the file has " + (bytes.length - dataStart));
        }
        ByteBuffer data = ByteBuffer.allocateDirect((int) size).order(ByteOrder.nativeOrder());
        data.put(bytes, dataStart, (int) size).flip();
        return new Npy(descr.replaceAll("^[<|]", ""), shape, data);
    }

    private static String group(Pattern pattern, String header, Path file, String field) throws IOException {
        Matcher m = pattern.matcher(header);
        if (!m.find()) {
            throw new IOException(file + ": no readable '" + field + "' in the .npy header: " + header.trim());
        }
        return m.group(1);
    }
}
