package dev.ortho.hal.spi;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;

/**
 * The host-access rules of {@link Buffer#map} (and of read, write and fill, which are scoped
 * mappings), written once for every driver's buffer: IREE's {@code iree_hal_buffer_map_range}
 * checks of the mapping mode, memory type, mapping usage and access. The range is the driver's to
 * check after these.
 */
public final class BufferAccess {
    private BufferAccess() {}

    /**
     * Checks that {@code buffer} may be mapped in {@code mode} with {@code access}, given its
     * memory type and allowed usage and access bits: INVALID_ARGUMENT for a mode other than
     * {@link Buffer#MAPPING_MODE_SCOPED} and {@link Buffer#MAPPING_MODE_PERSISTENT};
     * PERMISSION_DENIED if it is not {@code HOST_VISIBLE}, lacks the mapping usage of the mode, or
     * does not allow the requested access (or none is requested). Messages start with
     * "{@code <what>: }" and name the buffer and the values.
     *
     * @param what the call, for messages ({@code map}, {@code read}, ...)
     * @param buffer the buffer, named in messages (its {@code toString} is called only on failure)
     */
    public static void checkMapping(String what, Object buffer, int memoryType, int allowedUsage,
            int allowedAccess, int mode, int access) {
        checkMappingMode(what, buffer, mode);
        if (!MemoryType.has(memoryType, MemoryType.HOST_VISIBLE)) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, what + ": " + buffer + " is not HOST_VISIBLE "
                    + "(memory type " + MemoryType.format(memoryType) + ")");
        }
        int usage = mode == Buffer.MAPPING_MODE_PERSISTENT ? BufferUsage.MAPPING_PERSISTENT
                : BufferUsage.MAPPING_SCOPED;
        if ((allowedUsage & usage) == 0) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, what + ": " + buffer + " does not allow "
                    + BufferUsage.format(usage) + " (usage " + BufferUsage.format(allowedUsage) + ")");
        }
        int requested = access & MemoryAccess.ALL;
        if (requested == 0 || (requested & ~allowedAccess) != 0) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, what + ": access " + MemoryAccess.format(access)
                    + " is not allowed by " + buffer + " (allowed " + MemoryAccess.format(allowedAccess) + ")");
        }
    }

    /**
     * The first rule of {@link #checkMapping} alone, for a buffer whose bits are not known yet:
     * INVALID_ARGUMENT for a mode other than {@link Buffer#MAPPING_MODE_SCOPED} and
     * {@link Buffer#MAPPING_MODE_PERSISTENT}.
     */
    public static void checkMappingMode(String what, Object buffer, int mode) {
        if (mode != Buffer.MAPPING_MODE_SCOPED && mode != Buffer.MAPPING_MODE_PERSISTENT) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, what + ": mapping mode " + mode + " of " + buffer
                    + " is neither SCOPED (1) nor PERSISTENT (2)");
        }
    }
}
