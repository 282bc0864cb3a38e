package dev.ortho.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StatusCodeTest {

    @Test
    void numericValuesMatchIree() {
        // iree/base/status.h, iree_status_code_e
        String[] ireeOrder = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
            "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
            "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
            "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED", "DEFERRED", "INCOMPATIBLE"};
        assertEquals(ireeOrder.length, StatusCode.values().length);
        for (int value = 0; value < ireeOrder.length; value++) {
            StatusCode code = StatusCode.valueOf(ireeOrder[value]);
            assertEquals(value, code.value(), code.name());
            assertSame(code, StatusCode.fromValue(value));
        }
    }

    @Test
    void unenumeratedValuesInsideTheCodeMaskAreUnknown() {
        assertSame(StatusCode.UNKNOWN, StatusCode.fromValue(19));
        assertSame(StatusCode.UNKNOWN, StatusCode.fromValue(31));
    }

    @Test
    void valuesOutsideTheCodeMaskAreRejectedWithInvalidArgument() {
        StatusException e = assertThrows(StatusException.class, () -> StatusCode.fromValue(32));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertEquals("INVALID_ARGUMENT; status code value 32 is outside IREE's code range [0, 31]",
                e.toString());
        assertThrows(StatusException.class, () -> StatusCode.fromValue(-1));
    }
}
