package dev.ortho.hal;

/**
 * What an executable's function needs to be dispatched: IREE's
 * {@code iree_hal_executable_export_info_t} (the parts every device uses).
 *
 * @param name the export name, looked up by {@link Executable#lookupFunction(String)}
 * @param constantCount number of 32-bit push constants the function reads
 * @param bindingCount number of buffer bindings the function reads or writes
 * @param workgroupSizeX the function's default workgroup size
 * @param workgroupSizeY see {@code workgroupSizeX}
 * @param workgroupSizeZ see {@code workgroupSizeX}
 * @param localMemory static workgroup local memory in bytes
 */
public record ExecutableFunctionInfo(String name, int constantCount, int bindingCount,
        int workgroupSizeX, int workgroupSizeY, int workgroupSizeZ, int localMemory) {}
