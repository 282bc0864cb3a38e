package dev.ortho.hal.frontier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.Test;

class AxisTest {

    @Test
    void encodesIreesDocumentedExampleValues() {
        assertEquals(0x0103000100000000L, Axis.queue(1, 3, 1, 0));
        assertEquals(0x010301000000002AL, Axis.collective(1, 3, 42));
        assertEquals(0x0103030000000007L, Axis.host(1, 3, 7));
        assertEquals(0x0103020000000005L, Axis.make(1, 3, Axis.DOMAIN_EPILOGUE, 5));
    }

    @Test
    void domainValuesAreIrees() {
        assertEquals(0, Axis.DOMAIN_QUEUE);
        assertEquals(1, Axis.DOMAIN_COLLECTIVE);
        assertEquals(2, Axis.DOMAIN_EPILOGUE);
        assertEquals(3, Axis.DOMAIN_HOST);
    }

    @Test
    void decodesEveryComponentIncludingTheTopBit() {
        long axis = Axis.queue(0xFE, 0xAB, 0xCD, 0xEF);
        assertEquals(0xFEAB00CDEF000000L, axis);
        assertEquals(0xFE, Axis.session(axis));
        assertEquals(0xAB, Axis.machine(axis));
        assertEquals(Axis.DOMAIN_QUEUE, Axis.domain(axis));
        assertEquals(0xCDEF000000L, Axis.ordinal(axis));
        assertEquals(0xCD, Axis.deviceIndex(axis));
        assertEquals(0xEF, Axis.queueIndex(axis));
        long channel = Axis.collective(255, 255, Axis.ORDINAL_MASK);
        assertEquals(Axis.ORDINAL_MASK, Axis.ordinal(channel));
        assertEquals(255, Axis.session(channel));
    }

    @Test
    void oversizedComponentsFailWithOutOfRangeNamingTheValue() {
        assertStatus(StatusCode.OUT_OF_RANGE, "session epoch 256", () -> Axis.queue(256, 0, 0, 0));
        assertStatus(StatusCode.OUT_OF_RANGE, "machine index -1", () -> Axis.host(0, -1, 1));
        assertStatus(StatusCode.OUT_OF_RANGE, "device index 300", () -> Axis.queue(0, 0, 300, 0));
        assertStatus(StatusCode.OUT_OF_RANGE, "queue index 256", () -> Axis.queue(0, 0, 0, 256));
        assertStatus(StatusCode.OUT_OF_RANGE, "0x10000000000", () -> Axis.collective(0, 0, 1L << 40));
    }

    @Test
    void unknownDomainsAndReservedQueueBitsAreInvalid() {
        assertStatus(StatusCode.INVALID_ARGUMENT, "domain 4", () -> Axis.make(0, 0, 4, 1));
        assertStatus(StatusCode.INVALID_ARGUMENT, "reserved queue ordinal bits 0x1",
                () -> Axis.make(0, 0, Axis.DOMAIN_QUEUE, 1));
        assertFalse(Axis.isValid(0x0000040000000000L));
        assertFalse(Axis.isValid(0x0000000000000001L));
        assertTrue(Axis.isValid(Axis.queue(0, 0, 0, 0)));
        assertStatus(StatusCode.INVALID_ARGUMENT, "axis 0x0000050000000000 is invalid: unknown domain 5",
                () -> Axis.validate(0x0000050000000000L));
    }

    @Test
    void textFormRoundTrips() {
        assertEquals("q0.1", Axis.toString(Axis.queue(0, 0, 0, 1)));
        assertEquals("s1.m3.c42", Axis.toString(Axis.collective(1, 3, 42)));
        assertEquals("m3.h7", Axis.toString(Axis.host(0, 3, 7)));
        assertEquals("s2.e9", Axis.toString(Axis.make(2, 0, Axis.DOMAIN_EPILOGUE, 9)));
        assertEquals("0x0000070000000000", Axis.toString(0x0000070000000000L));
        long[] samples = {Axis.queue(0, 0, 0, 0), Axis.queue(255, 255, 255, 255), Axis.collective(0, 9, 0),
            Axis.host(200, 0, Axis.ORDINAL_MASK), Axis.make(1, 1, Axis.DOMAIN_EPILOGUE, 77)};
        for (long axis : samples) {
            assertEquals(axis, Axis.parse(Axis.toString(axis)), Axis.toString(axis));
        }
        assertEquals(Axis.collective(1, 3, 42), Axis.parse("0x010301000000002a"));
    }

    @Test
    void malformedTextFailsWithInvalidArgumentNamingTheText() {
        for (String text : new String[] {"", "q", "q1", "q1.", "qx.1", "x3", "s1", "s1.m2", "q0.1.2", "c", "0x",
            "0xZZ", "0x11112222333344445", "c-1", "s.q0.1"}) {
            StatusException e = assertThrows(StatusException.class, () -> Axis.parse(text), text);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), text);
            assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
        }
        assertStatus(StatusCode.OUT_OF_RANGE, "device index 256", () -> Axis.parse("q256.0"));
        assertStatus(StatusCode.OUT_OF_RANGE, "channel id 1099511627776", () -> Axis.parse("c1099511627776"));
        assertStatus(StatusCode.INVALID_ARGUMENT, "unknown domain 4", () -> Axis.parse("0x0000040000000000"));
        assertStatus(StatusCode.INVALID_ARGUMENT, "null", () -> Axis.parse(null));
    }

    static void assertStatus(StatusCode code, String fragment, Runnable call) {
        StatusException e = assertThrows(StatusException.class, call::run);
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), () -> "'" + e.getMessage() + "' lacks '" + fragment + "'");
    }
}
