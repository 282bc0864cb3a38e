package dev.ortho.hal;

/**
 * How a dispatch is launched: IREE's {@code iree_hal_dispatch_config_t}.
 *
 * @param workgroupSizeX workgroup size; all three 0 means the function's default
 * @param workgroupSizeY see {@code workgroupSizeX}
 * @param workgroupSizeZ see {@code workgroupSizeX}
 * @param workgroupCountX static workgroup count, used unless an indirect-parameters
 *     {@link DispatchFlags} flag is set
 * @param workgroupCountY see {@code workgroupCountX}
 * @param workgroupCountZ see {@code workgroupCountX}
 * @param workgroupCountRef buffer holding three little-endian uint32 counts, used with the
 *     indirect-parameters flags; null otherwise
 * @param dynamicLocalMemory extra workgroup local memory in bytes, added to the function's
 */
public record DispatchConfig(int workgroupSizeX, int workgroupSizeY, int workgroupSizeZ,
        int workgroupCountX, int workgroupCountY, int workgroupCountZ,
        BufferRef workgroupCountRef, int dynamicLocalMemory) {

    /** The function's default workgroup size and a static {@code x * y * z} workgroup count. */
    public static DispatchConfig ofCount(int x, int y, int z) {
        return new DispatchConfig(0, 0, 0, x, y, z, null, 0);
    }

    /** Workgroup counts read from {@code countRef} when the dispatch runs. */
    public static DispatchConfig indirect(BufferRef countRef) {
        return new DispatchConfig(0, 0, 0, 0, 0, 0, countRef, 0);
    }
}
