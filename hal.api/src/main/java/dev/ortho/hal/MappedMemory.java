package dev.ortho.hal;

import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A host view of a range of a {@link Buffer}: IREE's {@code iree_hal_buffer_mapping_t}, made by
 * {@link Buffer#map(int, int, long, long)} in scoped or persistent mode. Either way the mapping
 * retains its buffer until {@link #close()}, so the memory stays valid while mapped even if the
 * caller releases the buffer; the segment must not be used after closing (it may be backed by
 * memory that is then freed or reused), and {@link #contents()} then fails.
 *
 * <p>Not thread-safe: one mapping belongs to one user.
 */
@ProviderType
public interface MappedMemory extends AutoCloseable {

    /**
     * The mapped bytes, {@link #byteLength()} long; read-only unless mapped with WRITE.
     *
     * @throws dev.ortho.base.StatusException FAILED_PRECONDITION after {@link #close()}
     */
    MemorySegment contents();

    /** Offset of the mapping within the buffer it was mapped from. */
    long byteOffset();

    /** Length of the mapping in bytes. */
    long byteLength();

    /** The {@link MemoryAccess} bits the mapping was made with. */
    int access();

    /**
     * Makes host writes to {@code [offset, offset + length)} of the mapping visible to the device
     * (no-op for host-coherent memory).
     *
     * @throws dev.ortho.base.StatusException OUT_OF_RANGE if the range exceeds the mapping
     */
    void flush(long offset, long length);

    /**
     * Makes device writes to {@code [offset, offset + length)} visible to the host (no-op for
     * host-coherent memory).
     *
     * @throws dev.ortho.base.StatusException OUT_OF_RANGE if the range exceeds the mapping
     */
    void invalidate(long offset, long length);

    /** Unmaps and releases the mapping's reference to its buffer; idempotent. */
    @Override
    void close();
}
