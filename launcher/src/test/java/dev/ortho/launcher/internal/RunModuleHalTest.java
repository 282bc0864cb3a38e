package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ElementType;
import dev.ortho.vm.Instance;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code run-module} / {@code benchmark-module} / {@code vm:invoke} end to end over the
 * {@code hal} module: buffer-view inputs in every syntax, a VMVX dispatch on {@code local-sync}
 * (plain and validated), printed / written / expected outputs and coarse-fences functions.
 */
class RunModuleHalTest {
    @TempDir
    Path dir;
    private Path program;
    private final DriverRegistry registry = HalPrograms.registry();
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

    @BeforeEach
    void writeProgram() {
        program = HalPrograms.mulProgram(dir);
    }

    private VmTools tools() {
        return new VmTools(new Instance(), registry, () -> HalPrograms.EXTENSIONS,
                () -> new ByteArrayInputStream(new byte[0]));
    }

    private int run(String... args) {
        outBytes.reset();
        errBytes.reset();
        Cli cli = new Cli(registry, "ortho test", () -> 0);
        tools().subcommands().forEach(cli::add);
        PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
        return cli.run(args, out, err);
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "validation+local-sync", "local-sync://"})
    void bufferViewsInAndOutThroughAVmvxDispatch(String device) {
        assertEquals(0, run("run-module", "--module=" + program, "--function=mul", "--device=" + device,
                "--input=2x2xf32=1 2 3 4", "--input=2x2xf32=[[10 20][30 40]]"), err());
        assertEquals("EXEC @mul\nresult[0]: hal.buffer_view\n2x2xf32=[10 40][90 160]\n", out());
    }

    @Test
    void dumpModulePrintsIreeTextUnlessOrthoDirectivesAreAsked() throws Exception {
        // iree-dump-module prints neither dependencies nor function attributes: the default
        // disassembly of an IREE-compiled module must be byte-identical to it.
        Path vmfb = dir.resolve("mul.vmfb");
        assertEquals(0, run("as-module", "--output=" + vmfb, program.toString()), err());
        assertEquals(0, run("dump-module", "--output=disassembly", vmfb.toString()), err());
        String iree = out();
        assertTrue(iree.startsWith("vm.module @"), iree);
        assertTrue(!iree.contains("vm.dependency") && !iree.contains("attributes {"), iree);
        assertEquals(0, run("dump-module", "--output=disassembly", "--ortho_directives", vmfb.toString()), err());
        String ortho = out();
        assertTrue(ortho.contains("vm.dependency @hal version 7") && ortho.contains("attributes {"), ortho);
        // Only the Ortho form reassembles into the same module.
        Path text = dir.resolve("again.vmasm");
        Files.writeString(text, ortho);
        Path again = dir.resolve("again.vmfb");
        assertEquals(0, run("as-module", "--output=" + again, text.toString()), err());
        assertArrayEquals(Files.readAllBytes(vmfb), Files.readAllBytes(again));
    }

    @Test
    void coarseFencesFunctionsGetAWaitAndASignalFence() {
        assertEquals(0, run("run-module", "--module=" + program, "--function=mul_async",
                "--input=2x2xf32=1 2 3 4", "--input=2x2xf32=2"), err());
        assertEquals("EXEC @mul_async\nresult[0]: hal.buffer_view\n2x2xf32=[2 4][6 8]\n", out());
    }

    @Test
    void npyAndRawBinaryInputs() throws Exception {
        Path npy = dir.resolve("in.npy");
        try (Arena arena = Arena.ofConfined()) {
            byte[] first = NpyFile.encode(new long[] {2, 2}, ElementType.FLOAT_32, floats(arena, 1, 2, 3, 4));
            byte[] second = NpyFile.encode(new long[] {2, 2}, ElementType.FLOAT_32, floats(arena, 5, 6, 7, 8));
            Files.write(npy, concat(first, second));
            Files.write(dir.resolve("in.bin"), floats(arena, 1, 1, 2, 2).toArray(ValueLayout.JAVA_BYTE));
        }
        // @ reads the first array, + the next one of the same file
        assertEquals(0, run("run-module", "--module=" + program, "--function=mul", "--input=@" + npy,
                "--input=+" + npy), err());
        assertTrue(out().endsWith("2x2xf32=[5 12][21 32]\n"), out());
        // * reads every array of the file (zero or more: none are left after the two)
        assertEquals(0, run("run-module", "--module=" + program, "--function=mul", "--input=*" + npy,
                "--input=*" + npy), err());
        assertTrue(out().endsWith("2x2xf32=[5 12][21 32]\n"), out());

        assertEquals(0, run("run-module", "--module=" + program, "--function=mul",
                "--input=2x2xf32=@" + dir.resolve("in.bin"), "--input=@" + npy), err());
        assertTrue(out().endsWith("2x2xf32=[1 2][6 8]\n"), out());
    }

    @Test
    void outputsToStdoutNpyAndBinaryFiles() throws Exception {
        Path npy = dir.resolve("out.npy");
        Path bin = dir.resolve("out.bin");
        String[] common = {"run-module", "--module=" + program, "--function=mul", "--input=2x2xf32=1 2 3 4",
            "--input=2x2xf32=2"};
        assertEquals(0, run(concat(common, "--output=-")), err());
        assertEquals("EXEC @mul\nhal.buffer_view\n2x2xf32=[2 4][6 8]\n", out());
        assertEquals(0, run(concat(common, "--output=")), err());
        assertEquals("EXEC @mul\n", out());
        assertEquals(0, run(concat(common, "--output=@" + npy)), err());
        assertEquals(0, run(concat(common, "--output=+" + npy)), err());
        assertEquals(0, run(concat(common, "--output=@" + bin)), err());
        try (Arena arena = Arena.ofConfined(); FileChannel channel = FileChannel.open(npy, StandardOpenOption.READ)) {
            for (int i = 0; i < 2; i++) {
                NpyFile.Array array = NpyFile.read(channel, "out.npy", arena);
                assertArrayEquals(new long[] {2, 2}, array.shape());
                assertEquals(ElementType.FLOAT_32, array.elementType());
                assertArrayEquals(new float[] {2, 4, 6, 8}, array.contents().toArray(ValueLayout.JAVA_FLOAT));
            }
            assertEquals(channel.size(), channel.position(), "two arrays appended, nothing else");
        }
        ByteBuffer raw = ByteBuffer.wrap(Files.readAllBytes(bin)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(16, raw.remaining());
        assertEquals(8f, raw.getFloat(12));
        assertEquals(1, run(concat(common, "--output=-", "--output=-")));
        assertTrue(err().contains("OUT_OF_RANGE") && err().contains("2 outputs specified but the provided variant "
                + "list only has 1 elements"), err());
        assertEquals(1, run(concat(common, "--output=" + npy)));
        assertTrue(err().contains("unsupported output mode specification"), err());
    }

    @Test
    void expectedOutputsPassFailAndIgnore() {
        String[] common = {"run-module", "--module=" + program, "--function=mul", "--input=2x2xf32=1 2 3 4",
            "--input=2x2xf32=0.1"};
        assertEquals(0, run(concat(common, "--expected_output=2x2xf32=0.1 0.2 0.3 0.4")), err());
        assertEquals("EXEC @mul\n[SUCCESS] all function outputs matched their expected values.\n", out());
        assertEquals(0, run(concat(common, "--expected_output=(ignored)")), err());
        assertTrue(out().contains("[SUCCESS]"), out());
        assertEquals(1, run(concat(common, "--expected_output=2x2xf32=0.1 0.2 0.31 0.4")));
        assertEquals("EXEC @mul\n[FAILED] result[0]: element at index 2 (0.3) does not match the expected (0.31); "
                + "expected that the view is equal to contents of a view of 2x2xf32\n  expected:\n"
                + "2x2xf32=[0.1 0.2][0.31 0.4]\n  actual:\n2x2xf32=[0.1 0.2][0.3 0.4]\n", out());
        assertEquals(1, run(concat(common, "--expected_output=4xf32=0.1 0.2 0.3 0.4")));
        assertTrue(out().contains("[FAILED] result[0]: metadata is 2x2xf32; expected that the view matches 4xf32; "
                + "expected that the view is equal to contents of a view of 4xf32"), out());
        assertEquals(1, run(concat(common, "--expected_output=1")));
        assertTrue(err().contains("parsing expected function outputs"), err());
        // tolerance: 0.30001 is within atol 1e-4 of 0.3; exact mode is not
        assertEquals(0, run(concat(common, "--expected_output=2x2xf32=0.1 0.2 0.30001 0.4")), out());
        assertEquals(1, run(concat(common, "--expected_output=2x2xf32=0.1 0.2 0.30001 0.4",
                "--equality_mode=exact")), out());
        assertEquals(0, run(concat(common, "--expected_output=2x2xf32=0.1 0.2 0.31 0.4",
                "--expected_f32_threshold=0.02")), out());
    }

    /**
     * A kernel that fails inside its dispatch (here: its first binding is 8 bytes, the kernel
     * reads 16) fails the run with exit code 1 and prints no result: through the program's own
     * fence wait ({@code mul}), through the tool's wait on a coarse-fences signal fence
     * ({@code mul_async}), and in {@code benchmark-module}; never a result from a failed
     * dispatch with exit code 0 (local-task: the failure arrives asynchronously, through the fence).
     */
    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "validation+local-sync", "local-task"})
    void aKernelThatFailsFailsTheRunAndPrintsNoResult(String device) throws Exception {
        if (device.equals("local-task")) { // asynchronous: the failure arrives through the fence
            registry.register(dev.ortho.hal.cpu.CpuDrivers.builder().extensions(HalPrograms.EXTENSIONS).workerCount(1)
                    .localTaskFactory());
        }
        String text = Files.readString(program);
        String failing = text.replace("  vm.call.variadic @hal.command_buffer.dispatch",
                "  %i20:21 = vm.const.i64 8\n  vm.call.variadic @hal.command_buffer.dispatch")
                .replace("(%r10, %r3, %i12:13, %i1, %i1, %i1, %i12:13, %i11, %i11, %r6, %i12:13, %i8:9,",
                        "(%r10, %r3, %i12:13, %i1, %i1, %i1, %i12:13, %i11, %i11, %r6, %i12:13, %i20:21,");
        assertTrue(!failing.equals(text) && failing.contains("%r6, %i12:13, %i20:21"), "the program was changed");
        Path broken = dir.resolve("broken.vmasm");
        Files.writeString(broken, failing);
        for (String function : new String[] {"mul", "mul_async"}) {
            String[] args = {"--module=" + broken, "--function=" + function, "--device=" + device,
                "--input=2x2xf32=1 2 3 4", "--input=2x2xf32=2"};
            assertEquals(1, run(concat(new String[] {"run-module"}, args)), function + ": " + out() + err());
            assertTrue(!out().contains("result[") && !out().contains("2x2xf32="), out());
            // the kernel's own failure, not anything before it
            assertTrue(err().contains("exceeds its buffer length"), function + " " + device + ": " + err());
            assertEquals(1, run(concat(new String[] {"run-module"}, concat(args, "--expected_output=2x2xf32=2 4 6 8"))),
                    out());
            assertTrue(!out().contains("[SUCCESS]"), out());
            assertEquals(1, run(concat(new String[] {"benchmark-module"}, concat(args, "--benchmark_min_time=1x",
                    "--benchmark_min_warmup_time=0"))), out() + err());
        }
    }

    @Test
    void inputErrorsNameTheInput() {
        String[] common = {"run-module", "--module=" + program, "--function=mul"};
        assertEquals(1, run(concat(common, "--input=2x2xf32=1 2 3", "--input=2x2xf32=1")));
        assertTrue(err().contains("parsing input `2x2xf32=1 2 3`"), err());
        assertEquals(1, run(concat(common, "--input=2x2xq32=1", "--input=2x2xf32=1")));
        assertTrue(err().startsWith("INVALID_ARGUMENT"), err());
        assertEquals(1, run(concat(common, "--input=2", "--input=2x2xf32=1")));
        assertTrue(err().contains("invalid tensor specification, requires at least a shape/type"), err());
        assertEquals(1, run(concat(common, "--input=2x2xf32=1", "--input=2x2xf32=1", "--input=2x2xf32=1")));
        assertTrue(err().contains("function expected fewer input values"), err());
        assertEquals(1, run(concat(common, "--input=@" + dir.resolve("missing.npy"), "--input=2x2xf32=1")));
        assertTrue(err().startsWith("NOT_FOUND"), err());
        assertEquals(1, run(concat(common, "--input=@" + dir.resolve("x.txt"), "--input=2x2xf32=1")));
        assertTrue(err().startsWith("UNIMPLEMENTED") && err().contains("only numpy (.npy) files"), err());
        // the kernel's shape check (hal.buffer_view.assert) fails the call
        assertEquals(1, run(concat(common, "--input=4xf32=1", "--input=4xf32=1")));
        assertTrue(err().contains("invoking function 'mul'"), err());
        assertEquals(1, run(concat(common, "--input=(null)", "--input=2x2xf32=1")));
    }

    @Test
    void statisticsListingAndTracing() {
        assertEquals(0, run("run-module", "--module=" + program, "--function=mul", "--input=2x2xf32=1",
                "--input=2x2xf32=1", "--print_statistics"), err());
        // inputs, the result and the program's temporaries are all freed by the end
        assertTrue(err().startsWith("Device: local-sync\n[[ iree_hal_allocator_t memory statistics ]]\n"
                + "  HOST_LOCAL: "), err());
        assertTrue(err().matches("(?s).*DEVICE_LOCAL: +\\d+B peak / +\\d+B allocated / +\\d+B freed / +0B live\n.*"),
                err());
        assertEquals(0, run("run-module", "--list_devices"), err());
        assertTrue(out().contains("local-sync://"), out());
        assertEquals(0, run("benchmark-module", "--dump_devices"), err());
        assertTrue(out().contains("# --device=local-sync://"), out());
        assertEquals(0, run("run-module", "--module=" + program, "--function=mul", "--input=2x2xf32=1",
                "--input=2x2xf32=3", "--trace_execution"), err());
        assertTrue(out().endsWith("2x2xf32=[3 3][3 3]\n"), out());
        assertEquals(1, run("run-module", "--module=" + program, "--function=mul", "--device=nope://",
                "--input=2x2xf32=1", "--input=2x2xf32=3"));
        assertTrue(err().startsWith("NOT_FOUND") || err().startsWith("UNAVAILABLE"), err());
    }

    @Test
    void benchmarkWithBatchSizeAndCoarseFences() {
        assertEquals(0, run("benchmark-module", "--module=" + program, "--function=mul_async",
                "--input=2x2xf32=1", "--input=2x2xf32=2", "--batch_size=4", "--benchmark_min_time=0.01s"), err());
        assertTrue(out().contains("BM_mul_async/process_time/real_time"), out());
        String row = out().lines().filter(l -> l.startsWith("BM_mul_async")).findFirst().orElseThrow();
        long iterations = Long.parseLong(row.trim().replaceAll(".* ", ""));
        assertEquals(0, iterations % 4, "iterations count whole batches: " + row);
    }

    @Test
    void shellInvokeAcceptsTheSameInputSyntax() {
        VmTools tools = tools();
        String text = tools.invoke(List.of(tools.load(program.toString())), "mul_program.mul",
                List.of("2x2xf32=[[1 2][3 4]]", "2x2xf32=1 1 1 1"));
        assertEquals("EXEC @mul\nresult[0]: hal.buffer_view\n2x2xf32=[1 2][3 4]", text);
    }

    static MemorySegment floats(Arena arena, float... values) {
        return arena.allocateFrom(ValueLayout.JAVA_FLOAT, values);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] all = new byte[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    static String[] concat(String[] a, String... b) {
        String[] all = new String[a.length + b.length];
        System.arraycopy(a, 0, all, 0, a.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
