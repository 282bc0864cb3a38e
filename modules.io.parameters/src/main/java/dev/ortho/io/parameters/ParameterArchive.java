package dev.ortho.io.parameters;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An IREE parameter archive ({@code .irpa}, IREE's {@code runtime/src/iree/schemas/parameter_archive.h}):
 * its entries, read once when it is opened, and its bytes, memory-mapped rather than read.
 *
 * <p>Every header, entry and range in the file is checked against the file's size before it is
 * used: a truncated, oversized or hostile file fails to open with a {@link StatusException}
 * (INVALID_ARGUMENT for a bad magic or a malformed entry, OUT_OF_RANGE for a range outside the
 * file or its segment, UNIMPLEMENTED for versions and entry types IREE's parser does not read,
 * RESOURCE_EXHAUSTED past {@value #MAX_ENTRIES} entries), never with another exception. Linked
 * archives ({@code next_header_offset}) in one file are read in order. Entries of type
 * {@code SKIP} are left out; {@code EXTERNAL} entries are UNIMPLEMENTED, as in IREE. The file must
 * not be truncated by another process while it is mapped (the JVM would then fail the access with
 * an {@link InternalError}).
 *
 * <p>Ownership: the archive is reference counted. The opener owns one reference;
 * {@link #retain()} adds one (buffers imported from its mapping and VM contexts using it do), and
 * the mapping is unmapped when the last reference is {@link #release() released}. Thread-safe.
 */
public final class ParameterArchive implements AutoCloseable {
    /** The most entries one file may hold (RESOURCE_EXHAUSTED beyond it, instead of running out of heap). */
    public static final int MAX_ENTRIES = 1 << 18;

    private final String name;
    private final MemorySegment bytes;
    private final Arena arena; // null: memory owned by the caller
    private final boolean writable;
    private final AtomicInteger references = new AtomicInteger(1);
    private final List<ParameterEntry> entries;

    private ParameterArchive(String name, MemorySegment bytes, Arena arena, boolean writable) {
        this.name = name;
        this.bytes = bytes;
        this.arena = arena;
        this.writable = writable;
        try {
            this.entries = IrpaReader.read(this, bytes);
        } catch (StatusException e) {
            if (arena != null) {
                arena.close();
            }
            throw e.annotate("while reading parameter archive '" + name + "'");
        }
    }

    /**
     * Maps {@code path} read-only and reads its entries. The caller owns the returned archive.
     *
     * @throws StatusException NOT_FOUND if the file does not exist, PERMISSION_DENIED if it
     *     cannot be read, UNAVAILABLE for other I/O errors, or any failure of the format checks
     */
    public static ParameterArchive open(Path path) {
        return map(path, false);
    }

    /**
     * Maps {@code path} for reading and writing (as a writable IREE file handle): the
     * {@code io_parameters.scatter} export can then write its data parameters, and the writes
     * reach the file. The caller owns the returned archive.
     *
     * @throws StatusException as {@link #open(Path)}
     */
    public static ParameterArchive openWritable(Path path) {
        return map(path, true);
    }

    /**
     * Reads the archive in {@code bytes} (for instance a file already in memory). The caller keeps
     * {@code bytes} valid while the archive is open; {@link #release()} does not free it. A
     * writable segment makes a writable archive. Data parameters in memory that is not native
     * (a heap array) are always copied when loaded, never imported.
     *
     * @throws StatusException INVALID_ARGUMENT for null, or any failure of the format checks
     */
    public static ParameterArchive of(MemorySegment bytes) {
        if (bytes == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "parameter archive bytes are null");
        }
        return new ParameterArchive("<memory>", bytes, null, !bytes.isReadOnly());
    }

    private static ParameterArchive map(Path path, boolean writable) {
        if (path == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "parameter archive path is null");
        }
        Arena arena = Arena.ofShared();
        MemorySegment bytes;
        try (FileChannel channel = writable
                ? FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(path, StandardOpenOption.READ)) {
            bytes = channel.map(writable ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY, 0,
                    channel.size(), arena);
        } catch (NoSuchFileException e) {
            arena.close();
            throw new StatusException(StatusCode.NOT_FOUND, "parameter file '" + path + "' does not exist", e);
        } catch (AccessDeniedException e) {
            arena.close();
            throw new StatusException(StatusCode.PERMISSION_DENIED, "parameter file '" + path + "' cannot be "
                    + (writable ? "opened for writing" : "read"), e);
        } catch (IOException | UnsupportedOperationException e) {
            arena.close();
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot map parameter file '" + path + "': "
                    + e.getMessage(), e);
        }
        return new ParameterArchive(path.toString(), bytes, arena, writable);
    }

    /** The entries in file order (linked archives one after the other), SKIP entries left out. */
    public List<ParameterEntry> entries() {
        return entries;
    }

    /** The archive's size in bytes. */
    public long byteSize() {
        return bytes.byteSize();
    }

    /** Whether data parameters may be written ({@link #openWritable}). */
    public boolean isWritable() {
        return writable;
    }

    /**
     * The archive's bytes (the whole mapped file; read-only unless {@link #isWritable()}), valid
     * until the last reference is released: retain the archive while using them.
     *
     * @throws StatusException FAILED_PRECONDITION once the last reference is gone
     */
    public MemorySegment contents() {
        return bytes();
    }

    /** The archive's bytes; FAILED_PRECONDITION once the last reference is gone. */
    MemorySegment bytes() {
        if (references.get() <= 0) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "parameter archive '" + name + "' is closed");
        }
        return bytes;
    }

    /**
     * Adds a reference.
     *
     * @throws StatusException FAILED_PRECONDITION if the last reference was already released
     */
    public void retain() {
        int count;
        do {
            count = references.get();
            if (count <= 0) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "parameter archive '" + name
                        + "' is closed");
            }
        } while (!references.compareAndSet(count, count + 1));
    }

    /** Drops a reference; the last one unmaps the file. Extra releases are ignored. */
    public void release() {
        int count;
        do {
            count = references.get();
            if (count <= 0) {
                return;
            }
        } while (!references.compareAndSet(count, count - 1));
        if (count == 1 && arena != null) {
            arena.close();
        }
    }

    /** Same as {@link #release()}. */
    @Override
    public void close() {
        release();
    }

    @Override
    public String toString() {
        return "parameter archive '" + name + "' (" + entries.size() + " entries, " + bytes.byteSize() + " bytes)";
    }
}
