package dev.ortho.hal;

/**
 * What a buffer must support, as requested from an {@link Allocator} or {@link Device#queueAlloca}:
 * IREE's {@code iree_hal_buffer_params_t}. Bits are {@link MemoryType}, {@link MemoryAccess} and
 * {@link BufferUsage} values.
 *
 * @param type required memory type bits (e.g. {@code DEVICE_LOCAL}, {@code HOST_VISIBLE})
 * @param access access the buffer must allow ({@code 0} means {@link MemoryAccess#ALL})
 * @param usage how the buffer will be used ({@code 0} means {@link BufferUsage#DEFAULT})
 * @param queueAffinity queues the buffer is used on ({@code 0} means any)
 * @param minAlignment minimum byte alignment of the allocation ({@code 0} means the default,
 *     at least 64)
 */
public record BufferParams(int type, int access, int usage, long queueAffinity, long minAlignment) {

    /** Device-local, fully accessible, default usage. */
    public static BufferParams deviceLocal() {
        return new BufferParams(MemoryType.DEVICE_LOCAL, MemoryAccess.ALL, BufferUsage.DEFAULT, 0, 0);
    }

    /** Host-local and device-visible, mappable: for staging and for results read by the host. */
    public static BufferParams hostLocal() {
        return new BufferParams(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE, MemoryAccess.ALL,
                BufferUsage.DEFAULT | BufferUsage.MAPPING, 0, 0);
    }
}
