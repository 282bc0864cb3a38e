package dev.ortho.hal.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import org.junit.jupiter.api.Test;

class BufferAccessTest {
    private static final int HOST = MemoryType.HOST_LOCAL | MemoryType.HOST_VISIBLE;
    private static final int SCOPED = BufferUsage.MAPPING_SCOPED;

    private static void fails(StatusCode code, String expected, int memoryType, int usage, int allowed, int mode,
            int access) {
        StatusException e = assertThrows(StatusException.class,
                () -> BufferAccess.checkMapping("read", "buffer b", memoryType, usage, allowed, mode, access));
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().startsWith("read: "), e.getMessage());
        assertTrue(e.getMessage().contains("buffer b") && e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void allowedMappingsPass() {
        BufferAccess.checkMapping("map", "b", HOST, SCOPED, MemoryAccess.ALL, Buffer.MAPPING_MODE_SCOPED,
                MemoryAccess.READ | MemoryAccess.WRITE);
        BufferAccess.checkMapping("map", "b", HOST, BufferUsage.MAPPING_PERSISTENT, MemoryAccess.READ,
                Buffer.MAPPING_MODE_PERSISTENT, MemoryAccess.READ);
    }

    @Test
    void eachRuleFailsWithItsCode() {
        fails(StatusCode.INVALID_ARGUMENT, "mapping mode 3", HOST, SCOPED, MemoryAccess.ALL, 3, MemoryAccess.READ);
        fails(StatusCode.PERMISSION_DENIED, "is not HOST_VISIBLE", MemoryType.DEVICE_LOCAL, SCOPED, MemoryAccess.ALL,
                Buffer.MAPPING_MODE_SCOPED, MemoryAccess.READ);
        fails(StatusCode.PERMISSION_DENIED, "does not allow", HOST, SCOPED, MemoryAccess.ALL,
                Buffer.MAPPING_MODE_PERSISTENT, MemoryAccess.READ);
        fails(StatusCode.PERMISSION_DENIED, "is not allowed by", HOST, SCOPED, MemoryAccess.READ,
                Buffer.MAPPING_MODE_SCOPED, MemoryAccess.WRITE);
        fails(StatusCode.PERMISSION_DENIED, "is not allowed by", HOST, SCOPED, MemoryAccess.ALL,
                Buffer.MAPPING_MODE_SCOPED, 0);
    }

    @Test
    void modeAloneIsCheckedWithoutTheBits() {
        BufferAccess.checkMappingMode("map", "b", Buffer.MAPPING_MODE_PERSISTENT);
        StatusException e = assertThrows(StatusException.class, () -> BufferAccess.checkMappingMode("map", "b", 0));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
    }
}
