package dev.ortho.vm.internal.flatbuffers;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked, zero-copy reads of one FlatBuffer held in a {@link MemorySegment}.
 *
 * <p>Every access verifies what flatcc's generated verifier checks before IREE touches a
 * buffer: offsets are non-zero, 4-byte aligned and land inside the buffer; a table's vtable is
 * inside the buffer, 2-byte aligned, at least 4 bytes and even; each present field lies inside
 * the table's declared size; vectors and strings fit in the buffer, strings are NUL-terminated.
 * A violation is a {@link StatusException} {@code INVALID_ARGUMENT} whose message names the
 * field path and the offending value. Reading never allocates in proportion to claimed sizes,
 * and a work budget proportional to the buffer length bounds how much aliased data (many
 * offsets pointing at the same object) can be expanded.
 *
 * <p>Byte slices returned by {@link #slice} alias the buffer. Not thread-safe (the budget is
 * mutable); one reader per decode.
 */
public final class FlatBufferReader {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * A verified table: its position, vtable position and sizes. Its path for messages
     * ({@code module.imported_functions[3].signature}) is built only when an error is reported.
     */
    public record Table(long position, long vtable, int vtableSize, int tableSize, Table parent, String field, int index) {
        /** The field path of this table, e.g. {@code module.exported_functions[2]}. */
        public String path() {
            return pathOf(parent, field, index);
        }
    }

    /** A verified vector: position of element 0, element count, owning table and field name. */
    public record Vector(long start, int count, Table owner, String field) {
        /** The field path of this vector. */
        public String path() {
            return pathOf(owner, field, -1);
        }
    }

    private static String pathOf(Table parent, String field, int index) {
        String path = parent == null ? field : parent.path() + "." + field;
        return index < 0 ? path : path + "[" + index + "]";
    }

    private final MemorySegment buffer;
    private final long length;
    private long budget;

    /** Reads {@code buffer}, the FlatBuffer proper (after any size prefix). */
    public FlatBufferReader(MemorySegment buffer) {
        this.buffer = buffer;
        this.length = buffer.byteSize();
        this.budget = 2 * length + 4096;
    }

    private static StatusException invalid(Table parent, String field, int index, String problem) {
        return new StatusException(StatusCode.INVALID_ARGUMENT,
                "FlatBuffer verification failed: " + pathOf(parent, field, index) + ": " + problem);
    }

    /** Charges {@code units} of decoding work; fails once the buffer's budget is spent. */
    public void charge(long units, Table owner, String field) {
        budget -= units;
        if (budget < 0) {
            throw invalid(owner, field, -1, "decoding expands beyond " + (2 * length + 4096)
                    + " units for a " + length + "-byte buffer (aliased objects)");
        }
    }

    private void checkRange(long position, long size, Table parent, String field, int index, String what) {
        checkRange(position, size, parent, field, index, what, -1, null);
    }

    /** Range check whose message, built only on failure, reads {@code what [amount unit]}. */
    private void checkRange(long position, long size, Table parent, String field, int index, String what,
            long amount, String unit) {
        if (position < 0 || size < 0 || position > length || size > length - position) {
            String subject = unit == null ? what : what + " of " + amount + " " + unit;
            throw invalid(parent, field, index, subject + " [" + position + ", " + (position + size)
                    + ") outside the " + length + "-byte buffer");
        }
    }

    /** Follows the uoffset stored at {@code position}; returns the absolute target. */
    private long follow(long position, Table parent, String field, int index) {
        checkRange(position, 4, parent, field, index, "offset field");
        if ((position & 3) != 0) {
            throw invalid(parent, field, index, "offset field at " + position + " is not 4-byte aligned");
        }
        long offset = Integer.toUnsignedLong(buffer.get(INT, position));
        if (offset == 0) {
            throw invalid(parent, field, index, "null offset at " + position);
        }
        long target = position + offset;
        if (target > length - 4 || (target & 3) != 0) {
            throw invalid(parent, field, index, "offset " + offset + " at " + position + " points to " + target
                    + (target > length - 4 ? ", outside the " + length + "-byte buffer" : ", not 4-byte aligned"));
        }
        return target;
    }

    /** Checks the file identifier at bytes 4..7 and returns the root table, named {@code name} in messages. */
    public Table root(String identifier, String name) {
        if (length < 8) {
            throw invalid(null, name, -1, "buffer of " + length + " bytes is too small for a root offset and identifier");
        }
        byte[] id = new byte[4];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 4, id, 0, 4);
        String actual = new String(id, StandardCharsets.ISO_8859_1);
        if (!actual.equals(identifier)) {
            throw invalid(null, name, -1, "file identifier is '" + printable(actual) + "', expected '" + identifier + "'");
        }
        return table(follow(0, null, name, -1), null, name, -1);
    }

    private static String printable(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            out.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\x%02X", (int) c));
        }
        return out.toString();
    }

    private Table table(long position, Table parent, String field, int index) {
        charge(1, parent, field);
        long vtable = position - buffer.get(INT, position);
        if (vtable < 0 || vtable > length - 4) {
            throw invalid(parent, field, index, "vtable at " + vtable + " outside the " + length + "-byte buffer");
        }
        if ((vtable & 1) != 0) {
            throw invalid(parent, field, index, "vtable at " + vtable + " is not 2-byte aligned");
        }
        int vtableSize = Short.toUnsignedInt(buffer.get(SHORT, vtable));
        int tableSize = Short.toUnsignedInt(buffer.get(SHORT, vtable + 2));
        if (vtableSize < 4 || (vtableSize & 1) != 0) {
            throw invalid(parent, field, index, "vtable size " + vtableSize + " is not an even number >= 4");
        }
        checkRange(vtable, vtableSize, parent, field, index, "vtable");
        if (tableSize < 4) {
            throw invalid(parent, field, index, "table size " + tableSize + " is smaller than its 4-byte header");
        }
        checkRange(position, tableSize, parent, field, index, "table");
        return new Table(position, vtable, vtableSize, tableSize, parent, field, index);
    }

    /** Absolute position of field {@code id} of {@code size} bytes, or -1 when absent. */
    private long field(Table table, int id, int size, String name) {
        int slot = 4 + 2 * id;
        if (slot + 2 > table.vtableSize()) {
            return -1;
        }
        int voffset = Short.toUnsignedInt(buffer.get(SHORT, table.vtable() + slot));
        if (voffset == 0) {
            return -1;
        }
        if (voffset < 4 || voffset + size > table.tableSize()) {
            throw invalid(table, name, -1, "field at table offset " + voffset + " (" + size
                    + " bytes) outside the " + table.tableSize() + "-byte table");
        }
        return table.position() + voffset;
    }

    /** Whether field {@code id} is present. */
    public boolean has(Table table, int id) {
        int slot = 4 + 2 * id;
        return slot + 2 <= table.vtableSize() && buffer.get(SHORT, table.vtable() + slot) != 0;
    }

    /** Reads an unsigned byte field (union types), or {@code defaultValue} when absent. */
    public int getUByte(Table table, int id, String name, int defaultValue) {
        long at = field(table, id, 1, name);
        return at < 0 ? defaultValue : Byte.toUnsignedInt(buffer.get(ValueLayout.JAVA_BYTE, at));
    }

    /** Reads a 32-bit scalar field, or {@code defaultValue} when absent. */
    public int getInt(Table table, int id, String name, int defaultValue) {
        long at = field(table, id, 4, name);
        return at < 0 ? defaultValue : buffer.get(INT, at);
    }

    /** Reads a 64-bit scalar field, or {@code defaultValue} when absent. */
    public long getLong(Table table, int id, String name, long defaultValue) {
        long at = field(table, id, 8, name);
        return at < 0 ? defaultValue : buffer.get(LONG, at);
    }

    /** Reads a sub-table field, or null when absent. */
    public Table getTable(Table table, int id, String name) {
        long at = field(table, id, 4, name);
        return at < 0 ? null : table(follow(at, table, name, -1), table, name, -1);
    }

    /** Reads a string field, or null when absent. */
    public String getString(Table table, int id, String name) {
        long at = field(table, id, 4, name);
        return at < 0 ? null : string(follow(at, table, name, -1), table, name, -1);
    }

    /** Reads a vector field of {@code elementSize}-byte elements, or null when absent. */
    public Vector getVector(Table table, int id, String name, int elementSize) {
        long at = field(table, id, 4, name);
        if (at < 0) {
            return null;
        }
        long position = follow(at, table, name, -1);
        long count = Integer.toUnsignedLong(buffer.get(INT, position));
        checkRange(position + 4, count * elementSize, table, name, -1, "vector", count, "elements");
        return new Vector(position + 4, (int) count, table, name);
    }

    private String string(long position, Table parent, String field, int index) {
        long size = Integer.toUnsignedLong(buffer.get(INT, position));
        checkRange(position + 4, size + 1, parent, field, index, "string", size, "bytes and its terminator");
        if (buffer.get(ValueLayout.JAVA_BYTE, position + 4 + size) != 0) {
            throw invalid(parent, field, index, "string of " + size + " bytes is not NUL-terminated");
        }
        charge(size + 1, parent, field);
        byte[] bytes = new byte[(int) size];
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, position + 4, bytes, 0, (int) size);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Element {@code index} of a vector of tables. */
    public Table tableAt(Vector vector, int index) {
        return table(follow(vector.start() + 4L * index, vector.owner(), vector.field(), index),
                vector.owner(), vector.field(), index);
    }

    /** The 32-bit value at {@code position} (within a verified vector or struct). */
    public int intAt(long position) {
        return buffer.get(INT, position);
    }

    /** The 16-bit value at {@code position} (within a verified vector or struct). */
    public short shortAt(long position) {
        return buffer.get(SHORT, position);
    }

    /** The unsigned byte at {@code position} (within a verified vector). */
    public int ubyteAt(long position) {
        return Byte.toUnsignedInt(buffer.get(ValueLayout.JAVA_BYTE, position));
    }

    /** A read-only view of {@code [position, position + size)}, which must be verified in range. */
    public MemorySegment slice(long position, long size) {
        return buffer.asSlice(position, size).asReadOnly();
    }
}
