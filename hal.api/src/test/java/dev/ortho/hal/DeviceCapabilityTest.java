package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class DeviceCapabilityTest {

    @Test
    void ireeBitsHaveIreesValues() {
        assertEquals(1L, DeviceCapability.TIMELINE_SEMAPHORES);
        assertEquals(1L << 5, DeviceCapability.HOST_ZERO_COPY_OK);
        assertEquals(1L << 6, DeviceCapability.CONCURRENT_SAFE);
        assertEquals(1L << 9, DeviceCapability.ISOLATED);
        assertEquals(1L << 10, DeviceCapability.PEER_ADDRESSABLE);
        assertEquals(1L << 11, DeviceCapability.SHARED_VIRTUAL_ADDRESS);
        assertEquals(0xFFFL, DeviceCapability.IREE_MASK);
    }

    @Test
    void orthoBitsStayOutOfIreesRange() {
        long ortho = DeviceCapability.ASYNC_QUEUES | DeviceCapability.MULTI_QUEUE
                | DeviceCapability.STREAM_ORDERED_REUSE | DeviceCapability.FRONTIERS | DeviceCapability.COLLECTIVES;
        assertEquals(0, ortho & DeviceCapability.IREE_MASK);
        assertEquals(ortho, ortho & DeviceCapability.ORTHO_MASK);
    }

    @Test
    void formatAndParseRoundTripIncludingUnknownBits() {
        long bits = DeviceCapability.TIMELINE_SEMAPHORES | DeviceCapability.HOST_COHERENT
                | DeviceCapability.MULTI_QUEUE | (1L << 20);
        String text = DeviceCapability.format(bits);
        assertEquals("TIMELINE_SEMAPHORES|HOST_COHERENT|MULTI_QUEUE|100000h", text);
        assertEquals(bits, DeviceCapability.parse(text));
        assertEquals(DeviceCapability.FRONTIERS, DeviceCapability.parse(" frontiers "));
        assertEquals("", DeviceCapability.format(DeviceCapability.NONE));
        assertTrue(DeviceCapability.has(bits, DeviceCapability.HOST_COHERENT | DeviceCapability.MULTI_QUEUE));
    }

    @Test
    void unknownNamesAreInvalidArgumentNamingThem() {
        StatusException e = assertThrows(StatusException.class, () -> DeviceCapability.parse("WARP_DRIVE"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("WARP_DRIVE"), e.getMessage());
    }
}
