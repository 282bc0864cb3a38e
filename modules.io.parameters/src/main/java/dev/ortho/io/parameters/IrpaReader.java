package dev.ortho.io.parameters;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the entry tables of an IREE parameter archive (IREE's {@code irpa_parser.c} semantics,
 * format {@code iree/schemas/parameter_archive.h}): packed little-endian structs, a 32-byte header
 * prefix (magic {@code IRPA}, version, header size, link to the next header, flags), the v0 header
 * (entry count and the entry, metadata and storage segments, all relative to the header), and
 * variable-size entries aligned to 16 bytes.
 *
 * <p>Every value read from the file is checked before use; the file size bounds every loop and
 * the total bytes copied into the heap (names and metadata) are capped, so a hostile file can
 * neither read outside the file nor exhaust the heap. Stateless.
 */
final class IrpaReader {
    /** {@code IREE_IO_PARAMETER_ARCHIVE_MAGIC}: "IRPA" little-endian. */
    static final int MAGIC = 0x41505249;
    static final int PREFIX_SIZE = 32;
    static final int HEADER_V0_SIZE = 88;
    static final int ENTRY_HEADER_SIZE = 60;
    static final int SPLAT_ENTRY_SIZE = 85;
    static final int DATA_ENTRY_SIZE = 76;
    static final int ENTRY_ALIGNMENT = 16;
    static final int TYPE_SKIP = 0;
    static final int TYPE_SPLAT = 1;
    static final int TYPE_DATA = 2;
    static final int TYPE_EXTERNAL = 3;
    /** Names and metadata copied from one file, in total, at most (RESOURCE_EXHAUSTED beyond). */
    static final long MAX_COPIED_BYTES = 64L << 20;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private IrpaReader() {
    }

    /** A v0 header's segments, as absolute ranges checked against the file. */
    private record Header(long base, long entryCount, long entryOffset, long entryLength, long metadataOffset,
            long metadataLength, long storageOffset, long storageLength) {
    }

    private static final class Budget {
        long copied;
    }

    static List<ParameterEntry> read(ParameterArchive archive, MemorySegment file) {
        List<ParameterEntry> entries = new ArrayList<>();
        Budget budget = new Budget();
        long size = file.byteSize();
        long base = 0;
        while (true) {
            long next = readArchive(archive, file, size, base, entries, budget);
            if (next == 0) {
                return entries;
            }
            // next > 0 and base + next + PREFIX_SIZE <= size were checked: the walk moves forward.
            base += next;
        }
    }

    /** Reads the archive whose header is at {@code base}; returns its next_header_offset (0: last). */
    private static long readArchive(ParameterArchive archive, MemorySegment file, long size, long base,
            List<ParameterEntry> entries, Budget budget) {
        if (size - base < PREFIX_SIZE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "not enough bytes for a valid IRPA header at offset "
                    + base + " (" + (size - base) + " bytes left); file may be empty or truncated");
        }
        int magic = file.get(U32, base);
        if (magic != MAGIC) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, String.format(
                    "IRPA file magic missing or invalid %08X at offset %d; expected %08X", magic, base, MAGIC));
        }
        int major = Short.toUnsignedInt(file.get(U16, base + 4));
        int minor = Short.toUnsignedInt(file.get(U16, base + 6));
        long headerSize = file.get(U64, base + 8);
        long next = file.get(U64, base + 16);
        if (headerSize < 0 || headerSize > size - base) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "file buffer underrun parsing header of reported size "
                    + Long.toUnsignedString(headerSize) + " at offset " + base + " (only " + (size - base)
                    + " bytes available)");
        }
        if (next != 0 && (next < 0 || next > size - base || size - base - next < PREFIX_SIZE)) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "file buffer underrun verifying linked header at "
                    + "next_header_offset " + Long.toUnsignedString(next) + " from offset " + base + " (file size "
                    + size + ")");
        }
        if (major != 0) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "IRPA major version " + major + "." + minor
                    + " not supported by this runtime");
        }
        if (minor > 0) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "IRPA version " + major + "." + minor
                    + " not supported (major supported but minor is newer than the runtime trying to parse it)");
        }
        if (headerSize != HEADER_V0_SIZE) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "IRPA v0 header expected to be exactly "
                    + HEADER_V0_SIZE + " bytes but was reported as " + Long.toUnsignedString(headerSize));
        }
        Header header = new Header(base, file.get(U64, base + 32),
                file.get(U64, base + 40), file.get(U64, base + 48),
                file.get(U64, base + 56), file.get(U64, base + 64),
                file.get(U64, base + 72), file.get(U64, base + 80));
        checkSegment("entry_segment", base, header.entryOffset, header.entryLength, size);
        checkSegment("metadata_segment", base, header.metadataOffset, header.metadataLength, size);
        checkSegment("storage_segment", base, header.storageOffset, header.storageLength, size);
        readEntries(archive, file, header, entries, budget);
        return next;
    }

    /** A segment {@code [base + offset, +length)} must lie in the file (IREE skips empty ones). */
    private static void checkSegment(String field, long base, long offset, long length, long size) {
        if (length == 0) {
            return;
        }
        if (offset < 0 || length < 0 || offset > size - base || length > size - base - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, field + " out of range (offset "
                    + Long.toUnsignedString(offset) + " + length " + Long.toUnsignedString(length)
                    + " from header at " + base + ", file_size=" + size + ")");
        }
    }

    private static void readEntries(ParameterArchive archive, MemorySegment file, Header h,
            List<ParameterEntry> entries, Budget budget) {
        long at = h.base + h.entryOffset;
        long remaining = h.entryLength;
        for (long i = 0; Long.compareUnsigned(i, h.entryCount) < 0; i++) {
            if (remaining < ENTRY_HEADER_SIZE) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "entry table truncated at entry " + i + " of "
                        + Long.toUnsignedString(h.entryCount) + "; " + remaining
                        + " bytes left, insufficient for the " + ENTRY_HEADER_SIZE + " byte entry header");
            }
            long entrySize = file.get(U64, at);
            if (entrySize < ENTRY_HEADER_SIZE || entrySize > remaining) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "entry " + i + " entry_size "
                        + Long.toUnsignedString(entrySize) + " is outside [" + ENTRY_HEADER_SIZE + ", " + remaining
                        + "] (entry table truncated; insufficient bytes for sized header)");
            }
            long entryAt = at;
            long aligned = (entrySize + ENTRY_ALIGNMENT - 1) & -ENTRY_ALIGNMENT;
            // The last entry may omit its trailing padding.
            at += Math.min(aligned, remaining);
            remaining -= Math.min(aligned, remaining);

            int type = file.get(U32, entryAt + 8);
            byte[] name = metadataBytes(file, h, "name", i, file.get(U64, entryAt + 20), file.get(U64, entryAt + 28),
                    budget);
            byte[] metadata = metadataBytes(file, h, "metadata", i, file.get(U64, entryAt + 36),
                    file.get(U64, entryAt + 44), budget);
            switch (type) {
                case TYPE_SKIP -> {
                }
                case TYPE_SPLAT -> entries.add(splat(file, entryAt, entrySize, i, name, metadata));
                case TYPE_DATA -> entries.add(data(archive, file, h, entryAt, entrySize, i, name, metadata));
                default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "parser does not support entry type "
                        + Integer.toUnsignedString(type) + " (entry " + i + ", `" + ParameterEntry.text(name) + "`)");
            }
            if (entries.size() > ParameterArchive.MAX_ENTRIES) {
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "archive holds more than "
                        + ParameterArchive.MAX_ENTRIES + " entries");
            }
        }
    }

    /** Copies {@code [offset, +length)} of the metadata segment (a name or a metadata blob). */
    private static byte[] metadataBytes(MemorySegment file, Header h, String field, long entry, long offset,
            long length, Budget budget) {
        if (length == 0) {
            return new byte[0];
        }
        if (offset < 0 || length < 0 || offset > h.metadataLength || length > h.metadataLength - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "entry " + entry + " " + field
                    + " reference out of range of the metadata segment (offset " + Long.toUnsignedString(offset)
                    + ", length " + Long.toUnsignedString(length) + ", segment_size=" + h.metadataLength + ")");
        }
        if (length > MAX_COPIED_BYTES - budget.copied) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "entry " + entry + " " + field + " of "
                    + length + " bytes exceeds the " + MAX_COPIED_BYTES + " bytes of names and metadata an archive "
                    + "may hold");
        }
        budget.copied += length;
        return file.asSlice(h.base + h.metadataOffset + offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    private static ParameterEntry splat(MemorySegment file, long at, long entrySize, long i, byte[] name,
            byte[] metadata) {
        if (entrySize < SPLAT_ENTRY_SIZE) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "splat entry " + i + " (`" + ParameterEntry.text(name)
                    + "`) entry_size " + entrySize + " is below the " + SPLAT_ENTRY_SIZE + " byte splat entry");
        }
        long length = file.get(U64, at + 60);
        int patternLength = Byte.toUnsignedInt(file.get(ValueLayout.JAVA_BYTE, at + 84));
        if (patternLength > 16) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "splat pattern length " + patternLength
                    + " out of bounds 16 (entry " + i + ", `" + ParameterEntry.text(name) + "`)");
        }
        byte[] pattern = file.asSlice(at + 68, patternLength).toArray(ValueLayout.JAVA_BYTE);
        return ParameterEntry.splat(name, metadata, pattern, length);
    }

    private static ParameterEntry data(ParameterArchive archive, MemorySegment file, Header h, long at,
            long entrySize, long i, byte[] name, byte[] metadata) {
        if (entrySize < DATA_ENTRY_SIZE) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "data entry " + i + " (`" + ParameterEntry.text(name)
                    + "`) entry_size " + entrySize + " is below the " + DATA_ENTRY_SIZE + " byte data entry");
        }
        long offset = file.get(U64, at + 60);
        long length = file.get(U64, at + 68);
        if (length == 0) {
            return ParameterEntry.data(name, metadata, archive, 0, 0);
        }
        if (offset < 0 || length < 0 || offset > h.storageLength || length > h.storageLength - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "data entry " + i + " (`" + ParameterEntry.text(name)
                    + "`) storage reference out of range of the storage segment (offset "
                    + Long.toUnsignedString(offset) + ", length " + Long.toUnsignedString(length)
                    + ", segment_size=" + h.storageLength + ")");
        }
        return ParameterEntry.data(name, metadata, archive, h.base + h.storageOffset + offset, length);
    }
}
