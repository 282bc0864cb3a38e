package dev.ortho.hal.cpu.internal.vmvx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.cpu.internal.executable.LocalExecutableCache;
import dev.ortho.vm.Instance;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Bad {@code vmvx-bytecode-fb} executables fail to prepare with a clear status. */
class VmvxLoaderTest {
    private static final String HEADER = """
            vm.module @bad version 0
            vm.type !vm.buffer
            """;
    private static final String DISPATCH_ARGS = "(%r0: !vm.buffer, %r1: !vm.buffer, %r2: !vm.list<!vm.buffer>, "
            + "%i0: i32, %i1: i32, %i2: i32, %i3: i32, %i4: i32, %i5: i32, %i6: i32, %i7: i32, %i8: i32) -> ()";

    private final LocalExecutableCache cache = new LocalExecutableCache("test", VmvxFixtures.registry());

    private static ExecutableParams params(byte[] archive, int... constants) {
        return new ExecutableParams(VmvxLoader.FORMAT, MemorySegment.ofArray(archive), constants);
    }

    private static String dispatch(String name, String attributes, String body) {
        return "vm.export @" + name + "\nvm.func @" + name + DISPATCH_ARGS + (attributes.isEmpty() ? "" : " attributes {"
                + attributes + "}") + " {\n^bb0:\n" + body + "  vm.return\n}\n";
    }

    private StatusException prepareFails(StatusCode code, byte[] archive, int... constants) {
        StatusException e = assertThrows(StatusException.class, () -> cache.prepareExecutable(params(archive, constants)));
        assertEquals(code, e.code(), e.getMessage());
        assertTrue(e.getMessage().contains("while preparing a vmvx-bytecode-fb executable in cache 'test'"), e.getMessage());
        return e;
    }

    @Test
    void anEntryPointWithAnotherCallingConventionIsInvalidArgument() {
        String source = HEADER + "vm.export @wrong\nvm.func @wrong(%r0: !vm.buffer, %i0: i32) -> () {\n^bb0:\n  vm.return\n}\n";
        StatusException e = prepareFails(StatusCode.INVALID_ARGUMENT, VmvxFixtures.archive(source));
        assertTrue(e.getMessage().contains("expected '0rrriiiiiiiii_v' but got '0ri_v'"), e.getMessage());
    }

    /**
     * Found by the ONNX sweep (test_size, test_shape_*, test_nonmaxsuppression_*): IREE's compiler
     * names builtin dispatches {@code __builtin_splat_i64} and the program looks them up by name;
     * they are dispatch functions like any other, only {@code __set_constants} is not.
     */
    @Test
    void exportsNamedWithTwoUnderscoresAreDispatchFunctionsExceptSetConstants() {
        String source = HEADER + "vm.export @__set_constants\nvm.func @__set_constants(%r0: !vm.buffer) -> () {\n"
                + "^bb0:\n  vm.return\n}\n" + dispatch("__builtin_splat_i64", "", "") + dispatch("d", "", "");
        var executable = cache.prepareExecutable(params(VmvxFixtures.archive(source), 7));
        assertEquals(2, executable.functionCount());
        assertEquals(0, executable.lookupFunction("__builtin_splat_i64"));
        assertEquals(1, executable.lookupFunction("d"));
        StatusException e = assertThrows(StatusException.class, () -> executable.lookupFunction("__set_constants"));
        assertEquals(StatusCode.NOT_FOUND, e.code());
        executable.release();
    }

    @Test
    void malformedCountAttributesAreInvalidArgument() {
        for (String attrs : List.of("binding_count = \"two\"", "constant_count = \"-1\"", "binding_count = \"256\"",
                "local_memory = \"999999999999\"")) {
            StatusException e = prepareFails(StatusCode.INVALID_ARGUMENT,
                    VmvxFixtures.archive(HEADER + dispatch("d", attrs, "")));
            assertTrue(e.getMessage().contains("executable entry point 'd' attribute "), e.getMessage());
        }
    }

    @Test
    void absentCountAttributesMeanZeroAsIreeCompilerOmitsThem() {
        var executable = cache.prepareExecutable(params(VmvxFixtures.archive(HEADER + dispatch("d", "", ""))));
        try {
            assertEquals(0, executable.functionInfo(0).bindingCount());
            assertEquals(0, executable.functionInfo(0).constantCount());
            assertEquals(0, executable.functionInfo(0).localMemory());
        } finally {
            executable.release();
        }
    }

    @Test
    void corruptTruncatedAndEmptyArchivesAreInvalidArgument() {
        byte[] good = VmvxFixtures.archive(VmvxFixtures.resource("simple_mul.vmasm"));
        prepareFails(StatusCode.INVALID_ARGUMENT, new byte[0]);
        prepareFails(StatusCode.INVALID_ARGUMENT, Arrays.copyOf(good, 40));
        prepareFails(StatusCode.INVALID_ARGUMENT, "definitely not a module archive".getBytes());
        Random random = new Random(8);
        for (int round = 0; round < 300; round++) {
            byte[] bad = good.clone();
            for (int flips = 0; flips < 1 + random.nextInt(4); flips++) {
                bad[random.nextInt(bad.length)] = (byte) random.nextInt(256);
            }
            byte[] input = random.nextBoolean() ? bad : Arrays.copyOf(bad, random.nextInt(bad.length));
            try {
                cache.prepareExecutable(params(input)).release();
            } catch (StatusException expected) {
                assertTrue(expected.code() != StatusCode.OK && expected.code() != StatusCode.UNKNOWN,
                        expected.toString());
            }
        }
    }

    @Test
    void anImportNoModuleProvidesIsNotFoundAtPrepareTime() {
        String source = HEADER + "vm.import @vmvx.no_such_kernel cconv \"0r_v\"\n" + dispatch("d", "",
                "  %r3 = vm.const.ref.zero\n  vm.call @vmvx.no_such_kernel(%r3)\n");
        StatusException e = prepareFails(StatusCode.NOT_FOUND, VmvxFixtures.archive(source));
        assertTrue(e.getMessage().contains("no function `no_such_kernel` exported by module `vmvx`"), e.getMessage());
    }

    @Test
    void anImportWithAnotherCallingConventionThanVmvxIsRejected() {
        String source = HEADER + "vm.import @vmvx.mul.2d.f32 cconv \"0r_v\"\n" + dispatch("d", "",
                "  %r3 = vm.const.ref.zero\n  vm.call @vmvx.mul.2d.f32(%r3)\n");
        StatusException e = assertThrows(StatusException.class,
                () -> cache.prepareExecutable(params(VmvxFixtures.archive(source))));
        assertTrue(e.getMessage().contains("mul.2d.f32"), e.getMessage());
    }

    @Test
    void executableConstantsMustMatchSetConstants() {
        byte[] withSetter = VmvxFixtures.archive(VmvxFixtures.resource("scale_bias.vmasm"));
        StatusException none = prepareFails(StatusCode.INVALID_ARGUMENT, withSetter);
        assertTrue(none.getMessage().contains("requires executable-level constants but none were provided"),
                none.getMessage());
        byte[] withoutSetter = VmvxFixtures.archive(VmvxFixtures.resource("simple_mul.vmasm"));
        StatusException extra = prepareFails(StatusCode.INVALID_ARGUMENT, withoutSetter, 1, 2);
        assertTrue(extra.getMessage().contains("has no executable-level constants but 2 constants were provided"),
                extra.getMessage());
    }

    @Test
    void aModuleNeedingAnExtensionTheLoaderLacksIsUnimplemented() {
        VmvxLoader bare = new VmvxLoader(new Instance(), List::of, List.of());
        byte[] needsF32 = VmvxFixtures.archive(VmvxFixtures.resource("scale_bias.vmasm"));
        StatusException e = assertThrows(StatusException.class, () -> bare.load(params(needsF32, 0)));
        assertEquals(StatusCode.UNIMPLEMENTED, e.code(), e.getMessage());
    }

    @Test
    void aFailingSetConstantsFailsThePreparation() {
        String source = HEADER + "vm.export @__set_constants\nvm.func @__set_constants(%r0: !vm.buffer) -> () {\n"
                + "^bb0:\n  %i0 = vm.const.i32 9\n  vm.fail %i0, \"rejected constants\"\n}\n" + dispatch("d", "", "");
        StatusException e = prepareFails(StatusCode.FAILED_PRECONDITION, VmvxFixtures.archive(source), 1);
        assertTrue(e.getMessage().contains("rejected constants"), e.getMessage());
    }
}
