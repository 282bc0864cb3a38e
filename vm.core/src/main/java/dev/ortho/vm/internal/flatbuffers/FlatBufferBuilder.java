package dev.ortho.vm.internal.flatbuffers;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Builds one size-prefixed FlatBuffer back to front with the byte layout of the flatcc builder
 * (the builder IREE's tools use), so that the same sequence of create/add calls yields the same
 * bytes as IREE's C code.
 *
 * <p>Layout rules reproduced from flatcc: objects are emitted downwards ("front") in creation
 * order, each aligned for its first element with zero padding after its payload; strings carry a
 * NUL terminator inside their padding; vectors are at least 4-byte aligned; table fields are laid
 * out in the order they are added, each aligned relative to the first field; scalar fields equal
 * to their schema default are not stored; vtables are deduplicated and clustered upwards
 * ("back"), after all table data; the finished buffer is padded at the back to its largest
 * alignment and starts with {@code size | root offset | file identifier}.
 *
 * <p>References returned by the {@code create…}/{@link #endTable()} methods are builder
 * positions (negative for data, odd positive for vtables) and are only meaningful to this
 * builder. Tables are built one at a time: all children of a table are created before
 * {@link #startTable()}. Not thread-safe; one builder per buffer.
 */
public final class FlatBufferBuilder {
    private static final int FIELD_SIZE = 4;

    /** Front data occupies {@code front[frontStart, front.length)}; position p maps to index front.length + p. */
    private byte[] front = new byte[1024];
    private int frontStart = front.length;
    /** Back data (vtables, end padding) occupies {@code back[0, backLength)}. */
    private byte[] back = new byte[256];
    private int backLength;
    private int minAlign = 1;
    private final Map<ByteBuffer, Integer> vtableCache = new HashMap<>();

    // The table under construction (flatcc's ds stack, vs stack and offset patch list).
    private boolean inTable;
    private byte[] tableData = new byte[64];
    private int tableLength;
    private int tableAlign;
    private short[] fieldOffsets = new short[32];
    private int idEnd;
    private int[] offsetFieldPositions = new int[16];
    private int offsetFieldCount;

    private int emitStart() {
        return frontStart - front.length;
    }

    private int frontPad(long size, int align) {
        return (int) ((emitStart() - size) & (align - 1));
    }

    private void noteAlign(int align) {
        minAlign = Math.max(minAlign, align);
    }

    /** Reserves {@code length} bytes below the current front and returns the array index of the first. */
    private int reserveFront(long length) {
        if (length > Integer.MAX_VALUE - 64 || (long) front.length - frontStart + length > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("FlatBuffer larger than 2 GiB");
        }
        int needed = (int) length;
        if (frontStart < needed) {
            int used = front.length - frontStart;
            long capacity = Math.max((long) front.length * 2, (long) used + needed + 64);
            int newCapacity = (int) Math.min(capacity, Integer.MAX_VALUE - 8);
            byte[] grown = new byte[newCapacity];
            System.arraycopy(front, frontStart, grown, newCapacity - used, used);
            front = grown;
            frontStart = newCapacity - used;
        }
        frontStart -= needed;
        return frontStart;
    }

    private int emitBack(byte[] data, int length) {
        int ref = backLength;
        if (backLength + length > back.length) {
            back = Arrays.copyOf(back, Math.max(back.length * 2, backLength + length));
        }
        System.arraycopy(data, 0, back, backLength, length);
        backLength += length;
        return ref + 1;
    }

    private static void putInt(byte[] array, int index, int value) {
        array[index] = (byte) value;
        array[index + 1] = (byte) (value >>> 8);
        array[index + 2] = (byte) (value >>> 16);
        array[index + 3] = (byte) (value >>> 24);
    }

    private void requireNoTable() {
        if (inTable) {
            throw new IllegalStateException("children must be created before startTable()");
        }
    }

    /** Creates a UTF-8 string (length prefix, bytes, NUL terminator, padding). */
    public int createString(String value) {
        requireNoTable();
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        int pad = frontPad(bytes.length + 1L, FIELD_SIZE) + 1;
        int index = reserveFront(FIELD_SIZE + (long) bytes.length + pad);
        putInt(front, index, bytes.length);
        System.arraycopy(bytes, 0, front, index + FIELD_SIZE, bytes.length);
        Arrays.fill(front, index + FIELD_SIZE + bytes.length, index + FIELD_SIZE + bytes.length + pad, (byte) 0);
        return emitStart();
    }

    /**
     * Creates a vector of {@code count} fixed-size elements whose little-endian bytes are
     * {@code data} ({@code count * elementSize} bytes), aligned to {@code max(align, 4)}.
     */
    public int createVector(MemorySegment data, int count, int elementSize, int align) {
        requireNoTable();
        long size = (long) count * elementSize;
        if (data.byteSize() != size) {
            throw new IllegalArgumentException("vector data is " + data.byteSize() + " bytes, expected " + size);
        }
        int effectiveAlign = Math.max(align, FIELD_SIZE);
        noteAlign(effectiveAlign);
        int pad = frontPad(size, effectiveAlign);
        int index = reserveFront(FIELD_SIZE + size + pad);
        putInt(front, index, count);
        MemorySegment.copy(data, ValueLayout.JAVA_BYTE, 0, front, index + FIELD_SIZE, (int) size);
        Arrays.fill(front, index + FIELD_SIZE + (int) size, index + FIELD_SIZE + (int) size + pad, (byte) 0);
        return emitStart();
    }

    /** Creates a vector of {@code uint8}. */
    public int createByteVector(MemorySegment data) {
        if (data.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("byte vector larger than 2 GiB");
        }
        return createVector(data, (int) data.byteSize(), 1, 1);
    }

    /** Creates a vector of {@code int32}. */
    public int createIntVector(int[] values) {
        MemorySegment data = MemorySegment.ofArray(new byte[values.length * 4]);
        for (int i = 0; i < values.length; i++) {
            data.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), i * 4L, values[i]);
        }
        return createVector(data, values.length, 4, 4);
    }

    /** Creates a vector of offsets to previously created objects (tables or strings); 0 = null. */
    public int createOffsetVector(int[] refs) {
        requireNoTable();
        noteAlign(FIELD_SIZE);
        long size = (long) refs.length * FIELD_SIZE;
        int pad = frontPad(size, FIELD_SIZE);
        int index = reserveFront(FIELD_SIZE + size + pad);
        int base = emitStart();
        putInt(front, index, refs.length);
        for (int i = 0; i < refs.length; i++) {
            if (refs[i] == 0) {
                // A null element: a union vector's NONE member carries no value.
                putInt(front, index + FIELD_SIZE + i * FIELD_SIZE, 0);
                continue;
            }
            if (refs[i] > 0) {
                throw new IllegalArgumentException("offset vector element " + i + " is not an object reference");
            }
            putInt(front, index + FIELD_SIZE + i * FIELD_SIZE, refs[i] - base - i * FIELD_SIZE - FIELD_SIZE);
        }
        return base;
    }

    /** Starts a table; fields are added with the {@code add…} methods, then {@link #endTable()}. */
    public void startTable() {
        requireNoTable();
        inTable = true;
        tableLength = 0;
        tableAlign = FIELD_SIZE;
        idEnd = 0;
        offsetFieldCount = 0;
    }

    private int pushField(int id, int size, int align) {
        if (!inTable) {
            throw new IllegalStateException("no table started");
        }
        if (id >= fieldOffsets.length) {
            fieldOffsets = Arrays.copyOf(fieldOffsets, Math.max(fieldOffsets.length * 2, id + 1));
        }
        if (fieldOffsets[id] != 0) {
            throw new IllegalStateException("table field " + id + " already set");
        }
        int offset = (tableLength + align - 1) & -align;
        if (offset + size + FIELD_SIZE > 0xFFFF) {
            throw new IllegalArgumentException("table larger than 64 KiB");
        }
        if (offset + size > tableData.length) {
            tableData = Arrays.copyOf(tableData, Math.max(tableData.length * 2, offset + size));
        }
        Arrays.fill(tableData, tableLength, offset + size, (byte) 0);
        tableLength = offset + size;
        fieldOffsets[id] = (short) (offset + FIELD_SIZE);
        idEnd = Math.max(idEnd, id + 1);
        return offset;
    }

    /** Adds a 32-bit scalar field unless it equals {@code defaultValue}. */
    public void addInt(int id, int value, int defaultValue) {
        if (value == defaultValue) {
            return;
        }
        tableAlign = Math.max(tableAlign, 4);
        putInt(tableData, pushField(id, 4, 4), value);
    }

    /** Adds a 64-bit scalar field unless it equals {@code defaultValue}. */
    public void addLong(int id, long value, long defaultValue) {
        if (value == defaultValue) {
            return;
        }
        tableAlign = Math.max(tableAlign, 8);
        int offset = pushField(id, 8, 8);
        putInt(tableData, offset, (int) value);
        putInt(tableData, offset + 4, (int) (value >>> 32));
    }

    /** Adds an offset field referring to a previously created object. */
    public void addOffset(int id, int ref) {
        if (ref >= 0) {
            throw new IllegalArgumentException("field " + id + " is not an object reference");
        }
        int offset = pushField(id, FIELD_SIZE, FIELD_SIZE);
        putInt(tableData, offset, ref);
        if (offsetFieldCount == offsetFieldPositions.length) {
            offsetFieldPositions = Arrays.copyOf(offsetFieldPositions, offsetFieldCount * 2);
        }
        offsetFieldPositions[offsetFieldCount++] = offset;
    }

    /** Finishes the current table: emits (or reuses) its vtable, then its fields. */
    public int endTable() {
        if (!inTable) {
            throw new IllegalStateException("no table started");
        }
        int vtableSize = 2 * (idEnd + 2);
        byte[] vtable = new byte[vtableSize];
        vtable[0] = (byte) vtableSize;
        vtable[1] = (byte) (vtableSize >>> 8);
        int tableSize = tableLength + FIELD_SIZE;
        vtable[2] = (byte) tableSize;
        vtable[3] = (byte) (tableSize >>> 8);
        for (int id = 0; id < idEnd; id++) {
            vtable[4 + 2 * id] = (byte) fieldOffsets[id];
            vtable[5 + 2 * id] = (byte) (fieldOffsets[id] >>> 8);
        }
        Integer cached = vtableCache.get(ByteBuffer.wrap(vtable));
        int vtableRef = cached != null ? cached : emitBack(vtable, vtableSize);
        if (cached == null) {
            vtableCache.put(ByteBuffer.wrap(vtable), vtableRef);
        }
        Arrays.fill(fieldOffsets, 0, idEnd, (short) 0);

        noteAlign(tableAlign);
        int pad = frontPad(tableLength, tableAlign);
        int base = emitStart() - (pad + tableLength + FIELD_SIZE);
        for (int i = 0; i < offsetFieldCount; i++) {
            int position = offsetFieldPositions[i];
            int ref = getInt(tableData, position);
            putInt(tableData, position, ref - base - position - FIELD_SIZE);
        }
        int index = reserveFront(FIELD_SIZE + (long) tableLength + pad);
        putInt(front, index, base - (vtableRef - 1));
        System.arraycopy(tableData, 0, front, index + FIELD_SIZE, tableLength);
        Arrays.fill(front, index + FIELD_SIZE + tableLength, index + FIELD_SIZE + tableLength + pad, (byte) 0);
        inTable = false;
        return base;
    }

    private static int getInt(byte[] array, int index) {
        return (array[index] & 0xFF) | (array[index + 1] & 0xFF) << 8
                | (array[index + 2] & 0xFF) << 16 | (array[index + 3] & 0xFF) << 24;
    }

    /**
     * Finishes the buffer with {@code root} as its root table: pads the back to the buffer's
     * alignment, then emits the size prefix, root offset and 4-character {@code identifier}.
     * Returns the complete bytes (size prefix included); the builder must not be used again.
     */
    public byte[] finishSizePrefixed(int root, String identifier) {
        requireNoTable();
        byte[] id = identifier.getBytes(StandardCharsets.US_ASCII);
        if (id.length != 4) {
            throw new IllegalArgumentException("file identifier must be 4 characters: " + identifier);
        }
        int align = Math.max(minAlign, FIELD_SIZE);
        int endPad = backLength & (align - 1);
        if (endPad != 0) {
            emitBack(new byte[endPad], endPad);
        }
        int headerPad = frontPad(3 * FIELD_SIZE, align);
        int index = reserveFront(3L * FIELD_SIZE + headerPad);
        int bufferBase = emitStart() + FIELD_SIZE;
        putInt(front, index, backLength - bufferBase);
        putInt(front, index + 4, root - bufferBase);
        System.arraycopy(id, 0, front, index + 8, 4);
        Arrays.fill(front, index + 12, index + 12 + headerPad, (byte) 0);
        int frontLength = front.length - frontStart;
        byte[] out = new byte[Math.addExact(frontLength, backLength)];
        System.arraycopy(front, frontStart, out, 0, frontLength);
        System.arraycopy(back, 0, out, frontLength, backLength);
        return out;
    }
}
