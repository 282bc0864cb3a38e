package dev.ortho.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.junit.jupiter.api.function.Executable;

/** Status assertions shared by the VM tests. */
final class Assertions2 {
    private Assertions2() {
    }

    static StatusException assertStatus(StatusCode code, Executable body) {
        StatusException e = assertThrows(StatusException.class, body);
        assertEquals(code, e.code(), () -> "unexpected status: " + e);
        return e;
    }

    static StatusException assertStatus(StatusCode code, Executable body, String why) {
        StatusException e = assertThrows(StatusException.class, body, why);
        assertEquals(code, e.code(), () -> why + ": unexpected status: " + e);
        return e;
    }
}
