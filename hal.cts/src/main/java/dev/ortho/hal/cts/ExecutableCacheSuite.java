package dev.ortho.hal.cts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.ExecutableParams;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Executable cache conformance against the CTS test executable ({@link #testExecutable()}):
 * format support, preparation, function information and lookup, and the errors for unknown
 * formats, malformed data and unknown functions.
 */
public abstract class ExecutableCacheSuite extends DeviceTestBase {
    private ExecutableCache cache;
    private ExecutableParams params;

    @BeforeEach
    final void openCache() {
        params = testExecutable();
        Assumptions.assumeTrue(params != null, "device provides no CTS test executable");
        cache = device.createExecutableCache("cts-cache");
    }

    @AfterEach
    final void closeCache() {
        if (cache != null) {
            cache.release();
        }
    }

    @Test
    void theTestFormatIsPreparableAndUnknownFormatsAreNot() {
        assertTrue(cache.canPrepareFormat(params.format()));
        assertEquals(1, device.queryI64("hal.executable.format", params.format()));
        assertFalse(cache.canPrepareFormat("no-such-format"));
        assertFalse(cache.canPrepareFormat(""));
    }

    @Test
    void preparedFunctionsDescribeThemselvesAndAreFoundByName() {
        try (Executable executable = cache.prepareExecutable(params)) {
            assertEquals(params.format(), executable.format());
            assertTrue(executable.functionCount() >= 4, "count " + executable.functionCount());
            Set<String> names = new HashSet<>();
            for (int i = 0; i < executable.functionCount(); i++) {
                ExecutableFunctionInfo info = executable.functionInfo(i);
                assertTrue(names.add(info.name()), "duplicate function " + info.name());
                assertEquals(i, executable.lookupFunction(info.name()));
                assertTrue(info.workgroupSizeX() >= 1 && info.workgroupSizeY() >= 1 && info.workgroupSizeZ() >= 1,
                        info.toString());
                assertTrue(info.constantCount() >= 0 && info.bindingCount() >= 0 && info.localMemory() >= 0,
                        info.toString());
            }
            ExecutableFunctionInfo add = executable.functionInfo(executable.lookupFunction("add_f32"));
            assertEquals("add_f32", add.name());
            assertEquals(3, add.bindingCount());
            assertEquals(1, add.constantCount());
            ExecutableFunctionInfo matmul = executable.functionInfo(executable.lookupFunction("matmul_f32"));
            assertEquals(3, matmul.bindingCount());
            assertEquals(3, matmul.constantCount());
        }
    }

    @Test
    void functionOrdinalsOutsideTheExecutableAreOutOfRange() {
        try (Executable executable = cache.prepareExecutable(params)) {
            int count = executable.functionCount();
            var e = assertStatus(StatusCode.OUT_OF_RANGE, () -> executable.functionInfo(count));
            assertTrue(e.getMessage().contains(String.valueOf(count)), e.getMessage());
            assertStatus(StatusCode.OUT_OF_RANGE, () -> executable.functionInfo(-1));
        }
    }

    @Test
    void unknownFunctionNamesAreNotFoundNamingTheFunction() {
        try (Executable executable = cache.prepareExecutable(params)) {
            var e = assertStatus(StatusCode.NOT_FOUND, () -> executable.lookupFunction("no_such_kernel"));
            assertTrue(e.getMessage().contains("no_such_kernel"), e.getMessage());
        }
    }

    @Test
    void anUnsupportedFormatIsIncompatibleNamingTheFormat() {
        var e = assertStatus(StatusCode.INCOMPATIBLE, () -> cache.prepareExecutable(
                new ExecutableParams("no-such-format", params.data(), new int[0])));
        assertTrue(e.getMessage().contains("no-such-format"), e.getMessage());
    }

    @Test
    void malformedDataOrMissingParamsAreInvalidArgument() {
        byte[] garbage = new byte[256];
        for (int i = 0; i < garbage.length; i++) {
            garbage[i] = (byte) (0xF0 | i);
        }
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> cache.prepareExecutable(
                new ExecutableParams(params.format(), MemorySegment.ofArray(garbage), new int[0])));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> cache.prepareExecutable(
                new ExecutableParams(params.format(), MemorySegment.ofArray(new byte[0]), new int[0])));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> cache.prepareExecutable(null));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> cache.prepareExecutable(
                new ExecutableParams(params.format(), null, new int[0])));
    }

    @Test
    void executablesOutliveTheirCacheAndPrepareRepeatedly() {
        Executable first = cache.prepareExecutable(params);
        Executable second = cache.prepareExecutable(params);
        cache.release();
        cache = null;
        assertEquals(first.functionCount(), second.functionCount());
        assertEquals(first.lookupFunction("add_f32"), second.lookupFunction("add_f32"));
        first.release();
        second.release();
    }
}
