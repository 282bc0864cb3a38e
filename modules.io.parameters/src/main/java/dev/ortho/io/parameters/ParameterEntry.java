package dev.ortho.io.parameters;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * One parameter: IREE's {@code iree_io_parameter_index_entry_t}. Either a <em>data</em>
 * parameter, a byte range of a {@link ParameterArchive} ({@link #contents()}), or a <em>splat</em>
 * parameter, a little-endian pattern of 1, 2, 4, 8 or 16 bytes repeated to {@link #length()}
 * bytes with no storage behind it ({@link #splatPattern()}).
 *
 * <p>Immutable and thread-safe. A data entry's contents are valid while its archive is open
 * (see {@link ParameterArchive#release()}).
 */
public final class ParameterEntry {
    private final byte[] keyBytes;
    private final byte[] metadata;
    private final long length;
    private final byte[] pattern; // splat only
    private final ParameterArchive archive; // data only
    private final long offset; // data only: absolute offset in the archive's bytes

    private ParameterEntry(byte[] keyBytes, byte[] metadata, long length, byte[] pattern, ParameterArchive archive,
            long offset) {
        this.keyBytes = keyBytes;
        this.metadata = metadata;
        this.length = length;
        this.pattern = pattern;
        this.archive = archive;
        this.offset = offset;
    }

    static ParameterEntry data(byte[] key, byte[] metadata, ParameterArchive archive, long offset, long length) {
        return new ParameterEntry(key, metadata, length, null, archive, offset);
    }

    /**
     * A splat parameter named {@code key} of {@code length} bytes repeating {@code pattern}
     * (copied), for indices built in code ({@link ParameterIndex.Builder#addSplat}).
     *
     * @throws StatusException INVALID_ARGUMENT unless the pattern is 1, 2, 4, 8 or 16 bytes long
     *     and divides {@code length} (which must not be negative)
     */
    public static ParameterEntry splat(String key, byte[] pattern, long length) {
        if (key == null || pattern == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "splat parameter key or pattern is null");
        }
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        checkSplat(keyBytes, pattern.length, length);
        return new ParameterEntry(keyBytes, new byte[0], length, pattern.clone(), null, 0);
    }

    static ParameterEntry splat(byte[] key, byte[] metadata, byte[] pattern, long length) {
        checkSplat(key, pattern.length, length);
        return new ParameterEntry(key, metadata, length, pattern, null, 0);
    }

    private static void checkSplat(byte[] key, int patternLength, long length) {
        if (patternLength != 1 && patternLength != 2 && patternLength != 4 && patternLength != 8
                && patternLength != 16) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "splat parameter `" + text(key)
                    + "` pattern length " + patternLength + " is not 1, 2, 4, 8 or 16 bytes");
        }
        if (length < 0 || length % patternLength != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "splat parameter `" + text(key) + "` length "
                    + Long.toUnsignedString(length) + " is not a multiple of its " + patternLength
                    + " byte pattern");
        }
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The key (the name programs use), decoded as UTF-8. */
    public String key() {
        return text(keyBytes);
    }

    /** The key exactly as stored; lookups compare these bytes, as IREE does. A copy. */
    public byte[] keyBytes() {
        return keyBytes.clone();
    }

    /** The key bytes as a lossless string (one char per byte): the lookup key. */
    String lookupKey() {
        return new String(keyBytes, StandardCharsets.ISO_8859_1);
    }

    /** The entry's optional metadata blob (not interpreted; empty if none). A copy. */
    public byte[] metadata() {
        return metadata.clone();
    }

    /** The parameter's size in bytes. */
    public long length() {
        return length;
    }

    /** Whether this is a splat parameter (no storage; read-only). */
    public boolean isSplat() {
        return pattern != null;
    }

    /**
     * The splat pattern (1, 2, 4, 8 or 16 bytes, little-endian). A copy.
     *
     * @throws StatusException FAILED_PRECONDITION for a data parameter
     */
    public byte[] splatPattern() {
        if (pattern == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "parameter `" + key() + "` is not a splat");
        }
        return pattern.clone();
    }

    /** The archive holding a data parameter's bytes, or null for a splat. */
    public ParameterArchive archive() {
        return archive;
    }

    /** A data parameter's absolute byte offset in its archive (0 for a splat). */
    public long offset() {
        return offset;
    }

    /**
     * A view of a data parameter's bytes (read-only unless the archive is writable), valid while
     * the archive is open.
     *
     * @throws StatusException FAILED_PRECONDITION for a splat or a closed archive
     */
    public MemorySegment contents() {
        if (archive == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "splat parameter `" + key()
                    + "` has no contents");
        }
        return archive.bytes().asSlice(offset, length);
    }

    @Override
    public String toString() {
        return (pattern != null ? "splat" : "data") + " parameter `" + key() + "` (" + length + " bytes)";
    }
}
