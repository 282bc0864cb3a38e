package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class BitfieldsTest {

    @Test
    void constantsHaveIreeValues() {
        assertEquals(0x46, MemoryType.HOST_LOCAL);
        assertEquals(0x30, MemoryType.DEVICE_LOCAL);
        assertEquals(0x31, MemoryType.OPTIMAL_FOR_DEVICE);
        assertEquals(0x47, MemoryType.OPTIMAL_FOR_HOST);
        assertEquals(0x6, MemoryAccess.DISCARD_WRITE);
        assertEquals(0x7, MemoryAccess.ALL);
        assertEquals(0x20, MemoryAccess.ANY);
        assertEquals(0xF00 | 0x3000, BufferUsage.DISPATCH);
        assertEquals(0xC03, BufferUsage.DEFAULT);
        assertEquals(0x08000000 | 0x01000000, BufferUsage.MAPPING);
        assertEquals(1 << 28, BufferUsage.MAPPING_ACCESS_SEQUENTIAL_WRITE);
        assertEquals(0x10, CommandBufferMode.ALLOW_INLINE_EXECUTION);
        assertEquals(0x100, CommandBufferMode.RETAIN_DISPATCH_METADATA);
        assertEquals(3, CommandCategory.ANY);
        assertEquals(0x20, ExecutionStage.HOST);
        assertEquals(0x200, AccessScope.MEMORY_WRITE);
        assertEquals(0x40L, DispatchFlags.BORROW_RESOURCE_LIFETIMES);
    }

    @Test
    void zeroFormatsEmptyAndEmptyParsesZero() {
        assertEquals("", MemoryType.format(MemoryType.NONE));
        assertEquals("", CommandBufferMode.format(CommandBufferMode.DEFAULT));
        assertEquals("", DispatchFlags.format(DispatchFlags.NONE));
        assertEquals(0, MemoryAccess.parse(""));
        assertEquals(0, BufferUsage.parse(" | |"));
    }

    @Test
    void combinedNamesWinOverTheirParts() {
        assertEquals("HOST_LOCAL", MemoryType.format(MemoryType.HOST_LOCAL));
        assertEquals("DEVICE_LOCAL|OPTIMAL", MemoryType.format(MemoryType.OPTIMAL_FOR_DEVICE));
        assertEquals("HOST_LOCAL|OPTIMAL|HOST_CACHED",
                MemoryType.format(MemoryType.OPTIMAL_FOR_HOST | MemoryType.HOST_CACHED));
        assertEquals("HOST_VISIBLE|DEVICE_VISIBLE",
                MemoryType.format(MemoryType.HOST_VISIBLE | MemoryType.DEVICE_VISIBLE));
        assertEquals("ALL", MemoryAccess.format(MemoryAccess.ALL));
        assertEquals("DISCARD_WRITE", MemoryAccess.format(MemoryAccess.DISCARD_WRITE));
        assertEquals("READ|WRITE", MemoryAccess.format(MemoryAccess.READ | MemoryAccess.WRITE));
        assertEquals("ALL|MAY_ALIAS|ANY", MemoryAccess.format(0x2F));
        assertEquals("TRANSFER|DISPATCH_STORAGE", BufferUsage.format(BufferUsage.DEFAULT));
        assertEquals("TRANSFER|DISPATCH|MAPPING",
                BufferUsage.format(BufferUsage.TRANSFER | BufferUsage.DISPATCH | BufferUsage.MAPPING));
        assertEquals("DISPATCH_STORAGE_READ|MAPPING_SCOPED",
                BufferUsage.format(BufferUsage.DISPATCH_STORAGE_READ | BufferUsage.MAPPING_SCOPED));
        assertEquals("ANY", CommandCategory.format(CommandCategory.ANY));
        assertEquals("DISPATCH", CommandCategory.format(CommandCategory.DISPATCH));
        assertEquals("ONE_SHOT|ALLOW_INLINE_EXECUTION", CommandBufferMode.format(0x11));
    }

    @Test
    void unknownBitsFormatAsUpperCaseHexWithSuffix() {
        // IREE's table has no entry for UNALIGNED.
        assertEquals("10h", MemoryAccess.format(MemoryAccess.UNALIGNED));
        assertEquals("READ|10h", MemoryAccess.format(MemoryAccess.READ | MemoryAccess.UNALIGNED));
        assertEquals("TRANSFER|FCh", BufferUsage.format(0xFF));
        assertEquals("ONE_SHOT|80000000h", CommandBufferMode.format(0x80000001));
        assertEquals("HOST|FFC0h", ExecutionStage.format(0xFFE0));
        assertEquals("BORROW_RESOURCE_LIFETIMES|8000000000000000h",
                DispatchFlags.format(Long.MIN_VALUE | DispatchFlags.BORROW_RESOURCE_LIFETIMES));
    }

    @Test
    void parseIsCaseInsensitiveAndSkipsEmptyParts() {
        assertEquals(MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE,
                MemoryType.parse("|host_local|| Device_Visible |"));
        assertEquals(AccessScope.DISPATCH_READ | AccessScope.HOST_WRITE,
                AccessScope.parse("DISPATCH_READ|host_write"));
    }

    @Test
    void parseAcceptsNumbersAsIreeFormatsThem() {
        assertEquals(MemoryAccess.READ | MemoryAccess.UNALIGNED, MemoryAccess.parse("READ|10h"));
        assertEquals(3, CommandCategory.parse("1|2"));
        assertEquals(3, CommandCategory.parse("2h|1h"));
        assertEquals(3, CommandCategory.parse("TRANSFER|0x2"));
        assertEquals(0x80000001, CommandBufferMode.parse("ONE_SHOT|80000000h"));
        assertEquals(-1L, DispatchFlags.parse("FFFFFFFFFFFFFFFFh"));
    }

    @Test
    void parseRejectsUnknownNamesNamingThem() {
        StatusException e = assertThrows(StatusException.class,
                () -> MemoryType.parse("HOST_LOCAL|a08"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("'a08'"), e.getMessage());
        assertThrows(StatusException.class, () -> MemoryType.parse("NONE"));
        assertThrows(StatusException.class, () -> MemoryType.parse("HOST-LOCAL"));
        assertThrows(StatusException.class, () -> MemoryType.parse("1abc"));
        assertThrows(StatusException.class, () -> MemoryType.parse("0x"));
        assertThrows(StatusException.class, () -> MemoryType.parse(null));
    }

    @Test
    void parseRejectsNumbersWiderThanTheField() {
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> MemoryAccess.parse("10000h")).code());
        assertThrows(StatusException.class, () -> MemoryType.parse("100000000h"));
        assertThrows(StatusException.class, () -> DispatchFlags.parse("10000000000000000h"));
    }

    @Test
    void everyNamedBitRoundTrips() {
        int[] memoryTypes = {MemoryType.OPTIMAL, MemoryType.HOST_VISIBLE, MemoryType.HOST_COHERENT,
            MemoryType.HOST_CACHED, MemoryType.HOST_LOCAL, MemoryType.DEVICE_VISIBLE,
            MemoryType.DEVICE_LOCAL, MemoryType.OPTIMAL_FOR_HOST, MemoryType.OPTIMAL_FOR_DEVICE};
        for (int bits : memoryTypes) {
            assertEquals(bits, MemoryType.parse(MemoryType.format(bits)));
        }
        for (int bits = 0; bits < 1 << 6; bits++) {
            assertEquals(bits, MemoryAccess.parse(MemoryAccess.format(bits)));
            assertEquals(bits, ExecutionStage.parse(ExecutionStage.format(bits)));
            assertEquals(bits, CommandCategory.parse(CommandCategory.format(bits)));
        }
        for (int bit = 0; bit < 32; bit++) {
            int bits = 1 << bit;
            assertEquals(bits, MemoryType.parse(MemoryType.format(bits)));
            assertEquals(bits, BufferUsage.parse(BufferUsage.format(bits)));
            assertEquals(bits, CommandBufferMode.parse(CommandBufferMode.format(bits)));
            assertEquals(bits, AccessScope.parse(AccessScope.format(bits)));
        }
        for (int bit = 0; bit < 64; bit++) {
            long bits = 1L << bit | DispatchFlags.STATIC_INDIRECT_ARGUMENTS;
            assertEquals(bits, DispatchFlags.parse(DispatchFlags.format(bits)));
        }
        assertEquals("DYNAMIC_INDIRECT_PARAMETERS|STATIC_INDIRECT_PARAMETERS|CUSTOM_DIRECT_ARGUMENTS"
                + "|DYNAMIC_INDIRECT_ARGUMENTS|STATIC_INDIRECT_ARGUMENTS|ALLOW_INLINE_EXECUTION"
                + "|BORROW_RESOURCE_LIFETIMES", DispatchFlags.format(0x7F));
        assertEquals("COMMAND_ISSUE|COMMAND_PROCESS|DISPATCH|TRANSFER|COMMAND_RETIRE|HOST",
                ExecutionStage.format(0x3F));
    }

    @Test
    void hasTestsAllBits() {
        assertTrue(MemoryType.has(MemoryType.HOST_LOCAL, MemoryType.HOST_VISIBLE));
        assertFalse(MemoryType.has(MemoryType.HOST_VISIBLE, MemoryType.HOST_LOCAL));
        assertTrue(BufferUsage.has(BufferUsage.DEFAULT, BufferUsage.TRANSFER));
        assertTrue(DispatchFlags.has(0x3L, DispatchFlags.STATIC_INDIRECT_PARAMETERS));
        assertFalse(CommandCategory.has(CommandCategory.TRANSFER, CommandCategory.ANY));
    }
}
