package dev.ortho.hal.cpu.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** {@link KernelExecutable#of}: the executable a loader of plain kernel functions hands out. */
class KernelExecutableTest {
    private static KernelFunction noop(String name) {
        return new KernelFunction(new ExecutableFunctionInfo(name, 0, 0, 1, 1, 1, 0), (d, w) -> { });
    }

    private static StatusCode code(org.junit.jupiter.api.function.Executable call) {
        return assertThrows(StatusException.class, call).code();
    }

    @Test
    void functionsAreFoundByOrdinalAndNameAndBadOnesNamedInTheError() {
        KernelExecutable executable = KernelExecutable.of("f", "test executable", List.of(noop("a"), noop("b")), null);
        assertEquals("f", executable.format());
        assertEquals(2, executable.functionCount());
        assertEquals(1, executable.lookupFunction("b"));
        assertEquals("a", executable.functionInfo(0).name());
        var missing = assertThrows(StatusException.class, () -> executable.lookupFunction("c"));
        assertEquals(StatusCode.NOT_FOUND, missing.code());
        assertTrue(missing.getMessage().contains("function 'c' is not exported by test executable"));
        assertEquals(StatusCode.OUT_OF_RANGE, code(() -> executable.function(2)));
        assertEquals(StatusCode.OUT_OF_RANGE, code(() -> executable.functionInfo(-1)));
    }

    @Test
    void theLastReleaseRunsTheCallbackOnceAndOneMoreFails() {
        AtomicInteger released = new AtomicInteger();
        KernelExecutable executable = KernelExecutable.of("f", "e", List.of(noop("a")), released::incrementAndGet);
        executable.retain();
        executable.release();
        assertEquals(0, released.get());
        executable.release();
        assertEquals(1, released.get());
        assertEquals(StatusCode.FAILED_PRECONDITION, code(executable::release));
        assertEquals(1, released.get());
    }

    @Test
    void aRepeatedFunctionNameIsInvalidArgument() {
        assertEquals(StatusCode.INVALID_ARGUMENT, code(() -> KernelExecutable.of("f", "e", List.of(noop("a"), noop("a")),
                null)));
    }
}
