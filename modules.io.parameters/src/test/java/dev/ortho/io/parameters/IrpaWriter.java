package dev.ortho.io.parameters;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes IREE parameter archives for tests (the layout of IREE's {@code irpa_builder.c}: header,
 * entry table, metadata segment, storage segment aligned to {@code dataAlignment}), with hooks to
 * corrupt any field afterwards ({@link #patch}) and to link several archives in one file.
 */
public final class IrpaWriter {
    record Entry(int type, String name, byte[] metadata, byte[] data, byte[] pattern, long splatLength) {
    }

    private final List<Entry> entries = new ArrayList<>();
    private int dataAlignment = 64;

    public IrpaWriter data(String name, byte[] data) {
        entries.add(new Entry(IrpaReader.TYPE_DATA, name, new byte[0], data, null, 0));
        return this;
    }

    IrpaWriter data(String name, byte[] data, String metadata) {
        entries.add(new Entry(IrpaReader.TYPE_DATA, name, metadata.getBytes(StandardCharsets.UTF_8), data, null, 0));
        return this;
    }

    IrpaWriter splat(String name, byte[] pattern, long length) {
        entries.add(new Entry(IrpaReader.TYPE_SPLAT, name, new byte[0], null, pattern, length));
        return this;
    }

    IrpaWriter skip(String name) {
        entries.add(new Entry(IrpaReader.TYPE_SKIP, name, new byte[0], null, null, 0));
        return this;
    }

    /** An entry of {@code type} with only the common header (e.g. EXTERNAL = 3, sized as IREE's 92 bytes). */
    IrpaWriter raw(int type, String name) {
        entries.add(new Entry(type, name, new byte[0], null, null, 0));
        return this;
    }

    IrpaWriter alignment(int alignment) {
        this.dataAlignment = alignment;
        return this;
    }

    /** Offsets of the last {@link #build()}: entry table start and the offset of each entry. */
    long entryTable;
    final List<Long> entryOffsets = new ArrayList<>();

    public byte[] build() {
        entryOffsets.clear();
        ByteArrayOutputStream metadata = new ByteArrayOutputStream();
        ByteArrayOutputStream storage = new ByteArrayOutputStream();
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        for (Entry e : entries) {
            byte[] name = e.name.getBytes(StandardCharsets.UTF_8);
            long nameOffset = metadata.size();
            metadata.writeBytes(name);
            long metaOffset = metadata.size();
            metadata.writeBytes(e.metadata);
            int size = switch (e.type) {
                case IrpaReader.TYPE_SPLAT -> IrpaReader.SPLAT_ENTRY_SIZE;
                case IrpaReader.TYPE_DATA -> IrpaReader.DATA_ENTRY_SIZE;
                case 3 -> 92;
                default -> IrpaReader.ENTRY_HEADER_SIZE;
            };
            ByteBuffer b = ByteBuffer.allocate((size + 15) & -16).order(ByteOrder.LITTLE_ENDIAN);
            b.putLong(size).putInt(e.type).putLong(0);
            b.putLong(nameOffset).putLong(name.length);
            b.putLong(e.metadata.length == 0 ? 0 : metaOffset).putLong(e.metadata.length);
            b.putLong(e.type == IrpaReader.TYPE_DATA ? dataAlignment : 0);
            if (e.type == IrpaReader.TYPE_SPLAT) {
                b.putLong(e.splatLength);
                byte[] pattern = new byte[16];
                System.arraycopy(e.pattern, 0, pattern, 0, Math.min(16, e.pattern.length));
                b.put(pattern);
                b.put((byte) e.pattern.length);
            } else if (e.type == IrpaReader.TYPE_DATA) {
                while (storage.size() % dataAlignment != 0) {
                    storage.write(0);
                }
                b.putLong(storage.size()).putLong(e.data.length);
                storage.writeBytes(e.data);
            }
            entryOffsets.add((long) table.size());
            table.writeBytes(b.array());
        }
        long tableOffset = IrpaReader.HEADER_V0_SIZE + 8; // 96: header padded to 16
        long metadataOffset = tableOffset + table.size();
        long storageOffset = align(metadataOffset + metadata.size(), dataAlignment);
        long fileSize = align(storageOffset + storage.size(), 16);
        ByteBuffer f = ByteBuffer.allocate((int) fileSize).order(ByteOrder.LITTLE_ENDIAN);
        f.putInt(IrpaReader.MAGIC).putShort((short) 0).putShort((short) 0);
        f.putLong(IrpaReader.HEADER_V0_SIZE).putLong(0).putLong(0);
        f.putLong(entries.size());
        f.putLong(tableOffset).putLong(table.size());
        f.putLong(metadataOffset).putLong(metadata.size());
        f.putLong(storageOffset).putLong(storage.size());
        f.position((int) tableOffset);
        f.put(table.toByteArray());
        f.put(metadata.toByteArray());
        f.position((int) storageOffset);
        f.put(storage.toByteArray());
        entryTable = tableOffset;
        for (int i = 0; i < entryOffsets.size(); i++) {
            entryOffsets.set(i, entryOffsets.get(i) + tableOffset);
        }
        return f.array();
    }

    /** Two archives in one file: {@code second} at the first 16-aligned offset after {@code first}, linked. */
    static byte[] link(byte[] first, byte[] second) {
        int at = (int) align(first.length, 16);
        byte[] file = new byte[at + second.length];
        System.arraycopy(first, 0, file, 0, first.length);
        System.arraycopy(second, 0, file, at, second.length);
        patch(file, 16, at); // next_header_offset of the first header
        return file;
    }

    /** Writes {@code value} little-endian over 8 bytes at {@code offset}. */
    static void patch(byte[] file, long offset, long value) {
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putLong((int) offset, value);
    }

    static void patch32(byte[] file, long offset, int value) {
        ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN).putInt((int) offset, value);
    }

    static long align(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }
}
