package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DeviceUriTest {

    @Test
    void bareDriverNameHasEmptyPathAndNoParams() {
        DeviceUri uri = DeviceUri.parse("local-task");
        assertEquals("local-task", uri.driverName());
        assertEquals("", uri.path());
        assertTrue(uri.params().isEmpty());
    }

    @Test
    void schemePathAndParamsSplitLikeIree() {
        DeviceUri uri = DeviceUri.parse("remote://127.0.0.1:7640?token_file=/run/t&timeout_ms=50");
        assertEquals("remote", uri.driverName());
        assertEquals("127.0.0.1:7640", uri.path());
        assertEquals(Map.of("token_file", "/run/t", "timeout_ms", "50"), uri.params());
        assertEquals(List.of("token_file", "timeout_ms"), List.copyOf(uri.params().keySet()));
        assertEquals("/run/t", uri.param("token_file", "x"));
        assertEquals("x", uri.param("missing", "x"));
    }

    @Test
    void slashesAfterTheSchemeAreOptional() {
        assertEquals("0", DeviceUri.parse("cuda:0").path());
        assertEquals("0", DeviceUri.parse("cuda:/0").path());
        assertEquals("0", DeviceUri.parse("cuda://0").path());
        assertEquals("", DeviceUri.parse("local-sync://").path());
    }

    @Test
    void wrapperCompositionStaysInTheScheme() {
        assertEquals("validation+local-task", DeviceUri.parse("validation+local-task://").driverName());
    }

    @Test
    void keyWithoutValueAndStrayAmpersandsAreTolerated() {
        DeviceUri uri = DeviceUri.parse("local-task?&trace&&workers=2&");
        assertEquals(Map.of("trace", "", "workers", "2"), uri.params());
    }

    @Test
    void toStringRoundTrips() {
        for (String text : List.of("local-task://", "remote://h:1?a=1&b", "validation+local-sync://x")) {
            assertEquals(text, DeviceUri.parse(text).toString());
            assertEquals(DeviceUri.parse(text), DeviceUri.parse(DeviceUri.parse(text).toString()));
        }
    }

    @Test
    void malformedUrisAreInvalidArgumentNamingTheUri() {
        for (String bad : new String[] {"", "  ", "://x", "Local-Task", "local task", "+local-task",
                "validation+", "-x", "local-task?=3", "local-task?a=1&a=2"}) {
            StatusException e = assertThrows(StatusException.class, () -> DeviceUri.parse(bad), bad);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), bad);
            assertTrue(e.getMessage().startsWith("device URI '" + bad + "'"), e.getMessage());
        }
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> DeviceUri.parse(null)).code());
    }

    @Test
    void messageSaysWhatIsWrong() {
        StatusException e = assertThrows(StatusException.class, () -> DeviceUri.parse("loc@l"));
        assertEquals("INVALID_ARGUMENT; device URI 'loc@l': driver name 'loc@l' has invalid"
                + " character '@' at 3 (expected lower-case letters, digits, '.', '_', '-')",
                e.toString());
    }
}
