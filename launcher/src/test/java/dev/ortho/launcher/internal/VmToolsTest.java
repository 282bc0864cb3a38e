package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The VM tools through the plain-Java command line, as {@code ortho <tool>} runs them. */
class VmToolsTest {
    static final String ADD_MODULE = """
            vm.module @calc version 3
            vm.rodata[0] = 68656C6C6F00
            vm.export @add
            vm.func @add(%i0: i32, %i1: i32) -> (i32) {
              %i2 = vm.add.i32 %i0, %i1
              vm.return %i2
            }
            vm.export @wide
            vm.func @wide(%i0:1: i64, %i2:3: f64, %i4: f32) -> (i64, f64, f32) {
              vm.return %i0:1, %i2:3, %i4
            }
            vm.export @boom
            vm.func @boom() -> () {
              %i0 = vm.const.i32 9
              vm.fail %i0, "boom"
            }
            """;

    private final List<InstructionExtension> extensions = List.of(new ExtF32Extension(), new ExtF64Extension());
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private byte[] stdin = new byte[0];

    private Cli cli() {
        Cli cli = new Cli(new DriverRegistry(), "ortho test", () -> 0);
        new VmTools(new Instance(), new DriverRegistry(), () -> extensions, () -> new ByteArrayInputStream(stdin)).subcommands()
                .forEach(cli::add);
        return cli;
    }

    private int run(String... args) {
        outBytes.reset();
        errBytes.reset();
        return cli().run(args, out, err);
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    private static Path source(Path dir) throws IOException {
        Path source = dir.resolve("calc.vmasm");
        Files.writeString(source, ADD_MODULE);
        return source;
    }

    private Path assembled(Path dir) throws IOException {
        Path source = source(dir);
        Path vmfb = dir.resolve("calc.vmfb");
        assertEquals(0, run("as-module", "--output=" + vmfb, source.toString()), err());
        return vmfb;
    }

    @Test
    void everyToolAnswersHelpWithItsUsageAndExitZero() {
        for (String tool : List.of("as-module", "dump-module", "check-module", "run-module", "benchmark-module",
                "compile-module")) {
            outBytes.reset();
            assertEquals(0, run(tool, "--help"), err());
            assertTrue(out().startsWith("ortho " + tool + ": "), out());
        }
    }

    @Test
    void asModuleWritesTheAssemblersArchiveFromAFileOrStdin(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        byte[] expected = BytecodeArchive.write(new Assembler(extensions).assemble(ADD_MODULE, "calc.vmasm"));
        assertArrayEquals(expected, Files.readAllBytes(vmfb));
        stdin = ADD_MODULE.getBytes(StandardCharsets.UTF_8);
        Path fromStdin = dir.resolve("stdin.vmfb");
        assertEquals(0, run("as-module", "--output=" + fromStdin, "-"), err());
        assertArrayEquals(expected, Files.readAllBytes(fromStdin));
        assertEquals("", out());
    }

    /** Issue 15: {@code --output=-} wrote a file named {@code -} instead of standard output. */
    @Test
    void asModuleOutputDashWritesTheArchiveToStandardOutput(@TempDir Path dir) throws IOException {
        byte[] expected = BytecodeArchive.write(new Assembler(extensions).assemble(ADD_MODULE, "calc.vmasm"));
        assertEquals(0, run("as-module", "--output=-", source(dir).toString()), err());
        assertArrayEquals(expected, outBytes.toByteArray());
        assertTrue(!Files.exists(Path.of("-")), "a file named '-' was written");
    }

    /** Issue 15: VMASM text on standard input ({@code --module=-}) was parsed as a FlatBuffer. */
    @Test
    void vmasmTextOnStdinOrUnderAnyNameIsAssembledAndArchivesAreNot(@TempDir Path dir) throws IOException {
        stdin = ADD_MODULE.getBytes(StandardCharsets.UTF_8);
        assertEquals(0, run("run-module", "--module=-", "--function=add", "--input=2", "--input=3"), err());
        assertEquals("EXEC @add\nresult[0]: i32=5\n", out());
        stdin = Files.readAllBytes(assembled(dir));
        assertEquals(0, run("run-module", "--module=-", "--function=add", "--input=2", "--input=3"), err());
        assertEquals("EXEC @add\nresult[0]: i32=5\n", out());
        Path text = Files.writeString(dir.resolve("calc.txt"), ADD_MODULE);
        assertEquals(0, run("dump-module", "--output=disassembly", text.toString()), err());
        assertTrue(out().contains("vm.add.i32"), out());
        stdin = ADD_MODULE.getBytes(StandardCharsets.UTF_8);
        assertEquals(0, run("dump-module", "--output=metadata", "-"), err());
        assertTrue(out().contains("calc"), out());
        stdin = "vm.module @m version 1\nvm.bogus\n".getBytes(StandardCharsets.UTF_8);
        assertEquals(1, run("run-module", "--module=-", "--function=f"));
        assertTrue(err().startsWith("INVALID_ARGUMENT; <stdin>:2:"), err());
    }

    @Test
    void archiveSniffingSeesZipHeadersIdentifiersAndBinaryBytes() {
        java.util.function.Function<byte[], Boolean> text = b -> VmTools.isVmasmText(java.lang.foreign.MemorySegment.ofArray(b));
        assertTrue(text.apply("vm.module @m version 1\n".getBytes(StandardCharsets.UTF_8)));
        assertTrue(!text.apply(new byte[] {'P', 'K', 3, 4, 'v', 'm', '.', 'm', 'o', 'd', 'u', 'l', 'e'}));
        assertTrue(!text.apply("12345678IREEvm.module".getBytes(StandardCharsets.ISO_8859_1)));
        assertTrue(!text.apply(new byte[] {'v', 'm', 0, 'x'}));
        assertTrue(!text.apply(new byte[0]));
    }

    /** Issue 16: --vm_compile runs the same module compiled, with the interpreter's results and errors. */
    @Test
    void vmCompileFlagRunsCompiledWithTheSameResultsAndErrors(@TempDir Path dir) throws IOException {
        Path source = source(dir);
        for (String mode : List.of("off", "lazy", "eager", "EAGER")) {
            assertEquals(0, run("run-module", "--module=" + source, "--function=add", "--input=2", "--input=3",
                    "--vm_compile=" + mode), err());
            assertEquals("EXEC @add\nresult[0]: i32=5\n", out());
            assertEquals(1, run("run-module", "--module=" + source, "--function=boom", "--vm_compile=" + mode));
            assertTrue(err().startsWith("FAILED_PRECONDITION; boom"), err());
            assertTrue(err().contains("calc.boom"), err());
            assertEquals(0, run("benchmark-module", "--module=" + source, "--function=add", "--input=2",
                    "--input=3", "--vm_compile=" + mode), err());
        }
        assertEquals(1, run("run-module", "--module=" + source, "--function=add", "--input=2", "--input=3",
                "--vm_compile=fast"));
        assertTrue(err().startsWith("INVALID_ARGUMENT; --vm_compile must be one of [`off`, `lazy`, `eager`], got 'fast'"),
                err());
    }

    /** Issue 15: a VM list could grow until the JVM heap was gone. */
    @Test
    void vmHostMemoryLimitBoundsWhatAProgramAllocates(@TempDir Path dir) throws IOException {
        Path grow = Files.writeString(dir.resolve("grow.vmasm"), """
                vm.module @grow version 0
                vm.type i32
                vm.export @grow
                vm.func @grow(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 0
                  %r0 = vm.list.alloc %i1 : !vm.list<i32>
                  %i2 = vm.const.i32 4096
                  vm.br ^bb1()
                ^bb1:
                  %i1 = vm.add.i32 %i1, %i2
                  vm.list.resize %r0, %i1
                  %i3 = vm.cmp.lt.i32.s %i1, %i0
                  vm.cond_br %i3, ^bb1(), ^bb2()
                ^bb2:
                  %i4 = vm.list.size %r0
                  vm.discard.refs %r0
                  vm.return %i4
                }
                """);
        assertEquals(1, run("run-module", "--module=" + grow, "--function=grow", "--input=2147483647",
                "--vm_host_memory_limit=1m"));
        assertTrue(err().startsWith("RESOURCE_EXHAUSTED; host memory limit of 1048576 bytes exceeded: growing"
                + " vm.list<i32>"), err());
        assertEquals(0, run("run-module", "--module=" + grow, "--function=grow", "--input=65536",
                "--vm_host_memory_limit=1m"), err());
        assertEquals("EXEC @grow\nresult[0]: i32=65536\n", out());
        assertEquals(1, run("benchmark-module", "--module=" + grow, "--function=grow", "--input=1000000",
                "--vm_host_memory_limit=4096"));
        assertTrue(err().startsWith("RESOURCE_EXHAUSTED; host memory limit of 4096 bytes exceeded"), err());
        assertEquals(1, run("run-module", "--module=" + grow, "--function=grow", "--input=1",
                "--vm_host_memory_limit=lots"));
        assertTrue(err().startsWith("INVALID_ARGUMENT; --vm_host_memory_limit must be a byte count"), err());
        assertEquals(2L << 30, HostMemoryFlag.bytes("2g"));
        assertEquals(512L << 10, HostMemoryFlag.bytes("512K"));
        assertEquals(7L, HostMemoryFlag.bytes("7"));
    }

    @Test
    void asModuleReportsSyntaxAndParseErrors(@TempDir Path dir) throws IOException {
        assertEquals(1, run("as-module", "x.vmasm"));
        assertTrue(err().contains("Syntax: ortho as-module --output=module.vmfb module.vmasm"), err());
        assertTrue(err().contains("INVALID_ARGUMENT; expected one input file and --output"), err());
        Path bad = dir.resolve("bad.vmasm");
        Files.writeString(bad, "vm.module @m version 1\nvm.func @f() -> () {\n  vm.bogus\n}\n");
        assertEquals(1, run("as-module", "--output=" + dir.resolve("o.vmfb"), bad.toString()));
        assertTrue(err().startsWith("INVALID_ARGUMENT; bad.vmasm:3:"), err());
        assertEquals(1, run("as-module", "--output=" + dir.resolve("no/such/dir.vmfb"), source(dir).toString()));
        assertTrue(err().startsWith("NOT_FOUND; cannot write"), err());
        assertEquals(1, run("as-module", "--outptu=x", bad.toString()));
        assertTrue(err().contains("unknown flag '--outptu'"), err());
    }

    @Test
    void dumpModuleDisassemblyReassemblesToTheSameArchive(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        assertEquals(0, run("dump-module", "--output=disassembly", vmfb.toString()), err());
        Path again = dir.resolve("again.vmasm");
        Files.writeString(again, out());
        Path vmfb2 = dir.resolve("again.vmfb");
        assertEquals(0, run("as-module", "--output=" + vmfb2, again.toString()), err());
        assertArrayEquals(Files.readAllBytes(vmfb), Files.readAllBytes(vmfb2));
    }

    @Test
    void dumpModuleFunctionFilterKeepsTheHeaderAndMatchingFunctions(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        assertEquals(0, run("dump-module", "--output=disassembly", vmfb.toString()));
        String all = out();
        String header = all.substring(0, all.indexOf("vm.export @add"));
        String add = all.substring(all.indexOf("vm.export @add"), all.indexOf("vm.export @wide"));
        String boom = all.substring(all.indexOf("vm.export @boom"));
        assertEquals(0, run("dump-module", "--output=disassembly", "--function=boom", vmfb.toString()));
        assertEquals(header + boom, out());
        assertEquals(0, run("dump-module", "--output=disassembly", "--function=0", vmfb.toString()));
        assertEquals(header + add.stripTrailing() + "\n", out());
        assertEquals(0, run("dump-module", "--output=disassembly", "--function=missing", vmfb.toString()));
        assertEquals(header, out());
    }

    @Test
    void dumpModuleFlatBufferJsonMatchesIreeDumpModule(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        // Expected text printed by iree-dump-module --output=flatbuffer-json for the same archive.
        String expected = "{\"name\":\"calc\",\"version\":3,\"exported_functions\":[{\"local_name\":\"add\"},{\"local_name\":\"wide\""
                + ",\"internal_ordinal\":1},{\"local_name\":\"boom\",\"internal_ordinal\":2}],\"function_signatures\":["
                + "{\"calling_convention\":\"0ii_i\"},{\"calling_convention\":\"0IFf_IFf\"},{\"calling_convention\":\"0v"
                + "_v\"}],\"rodata_segments\":[{\"embedded_data\":[104,101,108,108,111,0]}],\"function_descriptors\""
                + ":[{\"bytecode_offset\":0,\"bytecode_length\":14,\"requirements\":0,\"reserved\":0,\"block_count\":1,"
                + "\"i32_register_count\":3,\"ref_register_count\":0},{\"bytecode_offset\":16,\"bytecode_length\":10,"
                + "\"requirements\":0,\"reserved\":0,\"block_count\":1,\"i32_register_count\":5,\"ref_register_count\":"
                + "0},{\"bytecode_offset\":32,\"bytecode_length\":17,\"requirements\":0,\"reserved\":0,\"block_count\":"
                + "1,\"i32_register_count\":1,\"ref_register_count\":0}],\"bytecode_version\":1114112,\"bytecode_dat"
                + "a\":[121,34,0,0,1,0,2,0,90,0,1,0,2,0,0,0,121,90,3,0,0,0,2,0,4,0,0,0,0,0,0,0,121,13,9,0,0,0,"
                + "0,0,91,0,0,4,0,98,111,111,109,0,0,0,0,0,0,0]}";
        assertEquals(0, run("dump-module", "--output=flatbuffer-json", vmfb.toString()), err());
        assertEquals(expected, out());
        assertEquals(0, run("dump-module", "--output=flatbuffer-json", "--pretty", vmfb.toString()), err());
        assertTrue(out().startsWith("{\n  \"name\": \"calc\",\n  \"version\": 3,\n  \"exported_functions\": [{\n"
                + "      \"local_name\": \"add\"\n    },{\n"), out());
        assertTrue(out().contains("  \"rodata_segments\": [{\n      \"embedded_data\": [\n        104,\n"), out());
        assertTrue(out().endsWith("\n  ]\n}\n"), out());
    }

    @Test
    void dumpModuleMetadataFollowsIreeLayout(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        long flatBufferSize = Files.size(vmfb) - 4;
        assertEquals(0, run("dump-module", "--output=metadata", vmfb.toString()), err());
        String rule = "//===" + "-".repeat(110) + "===//\n";
        String expected = rule + "// @calc : version 3\n" + rule + "\n"
                + "Exported Functions:\n"
                + "  [  0] add(i32, i32) -> (i32)\n"
                + "  [  1] wide(i64, f64, f32) -> (i64, f64, f32)\n"
                + "  [  2] boom() -> ()\n"
                + "\n"
                + rule + "// Sections\n" + rule + "\n"
                + "FlatBuffer: " + flatBufferSize + " bytes\n";
        assertTrue(out().startsWith(expected), out());
        assertTrue(out().contains("  .rodata[  0] embedded        6 bytes `hello`\n"), out());
        assertTrue(out().contains(rule + "// Bytecode : version 3\n" + rule + "\n"
                + "  # | Offset   |   Length | Blocks | i32 # | ref # | Requirements | Aliases\n"
                + "----+----------+----------+--------+-------+-------+--------------+-"
                + "-".repeat(52) + "\n"
                + "  0 | 00000000 |"), out());
        assertTrue(out().contains("|     5 |     0 |              | wide\n"), out());
        assertTrue(out().contains("|              | boom\n"), out());
    }

    @Test
    void dumpModuleAllPrintsMetadataThenDisassembly(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        assertEquals(0, run("dump-module", "--output=metadata", vmfb.toString()));
        String metadata = out();
        assertEquals(0, run("dump-module", "--output=disassembly", vmfb.toString()));
        String disassembly = out();
        assertEquals(0, run("dump-module", vmfb.toString()));
        assertEquals(metadata + "\n" + disassembly, out());
        assertEquals(1, run("dump-module", "--output=yaml", vmfb.toString()));
        assertTrue(err().contains("INVALID_ARGUMENT; unrecognized --output= flag value 'yaml'"), err());
        assertEquals(0, run("dump-module", "--output=flatbuffer-binary", vmfb.toString()));
        assertEquals(Files.size(vmfb) - 4, outBytes.size());
    }

    @Test
    void runModulePrintsExecAndScalarResultsAsIree(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        assertEquals(0, run("run-module", "--module=" + vmfb, "--function=add", "--input=2", "--input=0x10"), err());
        assertEquals("EXEC @add\nresult[0]: i32=18\n", out());
        assertEquals(0, run("run-module", "--module=" + vmfb, "--function=wide", "--input=-5000000000",
                "--input=1e300", "--input=-3.14"), err());
        assertEquals("EXEC @wide\nresult[0]: i64=-5000000000\nresult[1]: f64=1e+300\nresult[2]: f32=-3.14\n", out());
        assertEquals(1, run("run-module", "--module=" + vmfb, "--function=add", "--input=x", "--input=1"));
        assertTrue(err().contains("INVALID_ARGUMENT; parsing value `x` as i32"), err());
        assertEquals(1, run("run-module", "--module=" + vmfb, "--function=add", "--input=1"));
        assertTrue(err().contains("takes 2 arguments but 1 --input= values were given"), err());
        assertEquals(1, run("run-module", "--module=" + vmfb, "--function=nope"));
        assertTrue(err().contains("NOT_FOUND; no function `nope`"), err());
        assertEquals(1, run("run-module", "--module=" + vmfb, "--function=boom"));
        assertTrue(out().startsWith("EXEC @boom\n"), out());
        assertTrue(err().startsWith("FAILED_PRECONDITION; boom"), err());
    }

    /** Found by the ONNX sweep: every module iree-compile writes exports f, f$async and __init. */
    @Test
    void runModuleWithoutFunctionPicksTheOneExportThatIsNeitherInternalNorSpecialAsIree(@TempDir Path dir)
            throws IOException {
        Path source = Files.writeString(dir.resolve("abi.vmasm"), """
                vm.module @abi version 1
                vm.export @main
                vm.func @main(%i0: i32) -> (i32) {
                  %i1 = vm.add.i32 %i0, %i0
                  vm.return %i1
                }
                vm.export @main$async = @main
                vm.export @__init = @init
                vm.func @init() -> () {
                  vm.return
                }
                """);
        assertEquals(0, run("run-module", "--module=" + source, "--input=21"), err());
        assertEquals("EXEC @main\nresult[0]: i32=42\n", out());
        Path two = Files.writeString(dir.resolve("two.vmasm"), """
                vm.module @two version 1
                vm.export @a
                vm.func @a() -> () {
                  vm.return
                }
                vm.export @b = @a
                vm.export @__init = @a
                """);
        assertEquals(1, run("run-module", "--module=" + two));
        assertTrue(err().startsWith("INVALID_ARGUMENT; run-module: no --function= specified; module 'two' exports"
                + " [a, b, __init], 2 of them not internal (__*) nor special (*$*)"), err());
    }

    @Test
    void benchmarkModulePrintsAGoogleBenchmarkTable(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        assertEquals(0, run("benchmark-module", "--module=" + vmfb, "--function=add", "--input=1", "--input=2",
                "--benchmark_min_time=0.01s", "--benchmark_repetitions=3"), err());
        String text = out();
        assertTrue(text.contains("Benchmark"), text);
        assertTrue(text.matches("(?s).*\\nBM_add/process_time/real_time +[0-9.]+ ns +[0-9.]+ ns +[1-9][0-9]*\\n.*"), text);
        assertTrue(text.contains("BM_add/process_time/real_time_mean "), text);
        assertTrue(text.contains("BM_add/process_time/real_time_stddev "), text);
        assertEquals(1, run("benchmark-module", "--module=" + vmfb, "--function=add", "--benchmark_repetitions=0"));
        assertTrue(err().contains("--benchmark_repetitions must be a positive integer, got '0'"), err());
    }

    @Test
    void benchmarkModuleTakesGoogleBenchmarksIterationCountAndWarmUpFlags(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        assertEquals(0, run("benchmark-module", "--module=" + vmfb, "--function=add", "--input=1", "--input=2",
                "--benchmark_min_time=3x", "--benchmark_min_warmup_time=0", "--benchmark_repetitions=2"), err());
        String text = out();
        assertTrue(text.matches("(?s).*\\nBM_add/process_time/real_time +[0-9.]+ ns +[0-9.]+ ns +3\\n"
                + "BM_add/process_time/real_time +[0-9.]+ ns +[0-9.]+ ns +3\\n.*"), text);
        assertEquals(0, run("benchmark-module", "--module=" + vmfb, "--function=add", "--input=1", "--input=2",
                "--benchmark_min_time=1x", "--benchmark_min_warmup_time=0.01s"), err());
        assertTrue(out().matches("(?s).*\\nBM_add/process_time/real_time +[0-9.]+ ns +[0-9.]+ ns +1\\n.*"), out());
        assertEquals(1, run("benchmark-module", "--module=" + vmfb, "--function=add", "--benchmark_min_time=0x"));
        assertTrue(err().contains("--benchmark_min_time must be a duration in seconds such as 0.5s (at most 3600s)"
                + " or an iteration count such as 10x (at most 1000000000x), got '0x'"), err());
        assertEquals(1, run("benchmark-module", "--module=" + vmfb, "--function=add", "--benchmark_min_warmup_time=-1"));
        assertTrue(err().contains("INVALID_ARGUMENT; --benchmark_min_warmup_time must be a duration in seconds such as"
                + " 2s or 0 (at most 3600s), got '-1'"), err());
    }

    @Test
    void dumpModuleAnswersCorruptArchivesWithAStatus(@TempDir Path dir) throws IOException {
        byte[] base = Files.readAllBytes(assembled(dir));
        java.util.Random random = new java.util.Random(7);
        Path file = dir.resolve("mutant.vmfb");
        for (int round = 0; round < 600; round++) {
            byte[] bytes = base.clone();
            for (int m = 0; m < 1 + random.nextInt(3); m++) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            }
            if (random.nextInt(8) == 0) {
                bytes = java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
            }
            Files.write(file, bytes);
            for (String mode : List.of("all", "flatbuffer-json", "flatbuffer-binary")) {
                int code = run("dump-module", "--output=" + mode, file.toString());
                assertTrue(code == 0 || code == 1 && !err().isEmpty(), "round " + round + " " + mode + ": " + err());
            }
            int code = run("run-module", "--module=" + file, "--function=add", "--input=1", "--input=2");
            assertTrue(code == 0 || code == 1, "round " + round);
        }
    }

    static Path conformanceDirectory() {
        String property = System.getProperty("ortho.conformance.vm");
        if (property != null && Files.isDirectory(Paths.get(property))) {
            return Paths.get(property);
        }
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared/conformance/vm");
            if (Files.isDirectory(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    @Test
    void checkModulePassesEveryConformanceFile() throws IOException {
        Path dir = conformanceDirectory();
        assumeTrue(dir != null, "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> p.toString().endsWith(".vmasm")).sorted().toList();
        }
        assertEquals(30, files.size());
        List<String> failures = new ArrayList<>();
        int tests = 0;
        for (Path file : files) {
            int code = run("check-module", file.toString());
            String text = out();
            tests += text.lines().filter(l -> l.startsWith("[ RUN      ]")).count();
            if (code != 0 || !text.matches("(?s).*\\n[0-9]+ passed, 0 failed\\n")) {
                failures.add(file.getFileName() + " (exit " + code + "):\n" + text + err());
            }
        }
        assertEquals(List.of(), failures);
        // 304 exports, less the four __init functions check-module does not run as tests.
        assertEquals(300, tests);
    }

    @Test
    void checkModuleFailsWithAnExitCodeAndSummary(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.vmasm");
        Files.writeString(file, """
                vm.module @t version 1
                vm.export @ok
                vm.func @ok() -> () {
                  vm.return
                }
                vm.export @fail_expected
                vm.func @fail_expected() -> () {
                  %i0 = vm.const.i32 9
                  vm.fail %i0, "expected"
                }
                vm.export @broken
                vm.func @broken() -> () {
                  %i0 = vm.const.i32 9
                  vm.fail %i0, "check failed"
                }
                """);
        assertEquals(1, run("check-module", file.toString()));
        assertTrue(out().contains("[ RUN      ] t.ok\n[       OK ] t.ok\n"), out());
        assertTrue(out().contains("[       OK ] t.fail_expected\n"), out());
        assertTrue(out().contains("FAILED_PRECONDITION; check failed"), out());
        assertTrue(out().contains("[  FAILED  ] t.broken\n"), out());
        assertTrue(out().endsWith("2 passed, 1 failed\n"), out());
        assertEquals(0, run("check-module", "--expect_failure", file.toString()));
        assertTrue(out().endsWith("Test failed as expected\n"), out());
    }

    @Test
    void dependencyModulesAreLinkedBeforeTheModuleUnderTest(@TempDir Path dir) throws IOException {
        Path lib = assembled(dir);
        Path test = dir.resolve("uses_calc.vmasm");
        Files.writeString(test, """
                vm.module @uses_calc version 1
                vm.import @calc.add cconv "0ii_i"
                vm.export @test_add
                vm.func @test_add() -> () {
                  %i0 = vm.const.i32 40
                  %i1 = vm.const.i32 2
                  %i2 = vm.call @calc.add(%i0, %i1)
                  %i3 = vm.const.i32 42
                  %i4 = vm.cmp.eq.i32 %i2, %i3
                  vm.cond_br %i4, ^bb1(), ^bb2()
                ^bb1:
                  vm.return
                ^bb2:
                  %i5 = vm.const.i32 9
                  vm.fail %i5, "40 + 2 != 42"
                }
                """);
        assertEquals(0, run("check-module", "--module=" + lib, test.toString()), out() + err());
        assertTrue(out().endsWith("[       OK ] uses_calc.test_add\n1 passed, 0 failed\n"), out());
        assertEquals(1, run("check-module", test.toString()));
        assertTrue(err().startsWith("NOT_FOUND"), err());
        assertEquals(0, run("run-module", "--module=" + lib, "--module=" + test, "--function=test_add"), err());
        assertEquals("EXEC @test_add\n", out());
    }

    @Test
    void checkModuleRejectsExportsWithArgumentsOrResults(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        assertEquals(1, run("check-module", vmfb.toString()));
        assertTrue(err().startsWith("INVALID_ARGUMENT; expected function with no inputs or outputs, but export 'add'"
                + " has signature '0ii_i'"), err());
    }

    @Test
    void gogoLoadAndInvoke(@TempDir Path dir) throws IOException {
        Path vmfb = assembled(dir);
        VmTools tools = new VmTools(new Instance(), new DriverRegistry(), () -> extensions, () -> new ByteArrayInputStream(new byte[0]));
        assertEquals("EXEC @add\nresult[0]: i32=7",
                tools.invoke(List.of(tools.load(vmfb.toString())), "calc.add", List.of("3", "4")));
    }

    /** Issue 16 item 4: compile-module writes a bundle that loads with its stored classes; run-module runs it. */
    @Test
    void compileModuleWritesABundleThatRunsCompiledWithTheInterpretersResults(@TempDir Path dir) throws IOException {
        Path jar = dir.resolve("calc.jar");
        assertEquals(0, run("compile-module", "--output=" + jar, assembled(dir).toString()), err());
        assertEquals("", out());
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(jar.toFile())) {
            assertEquals("ortho.module.calc", file.getManifest().getMainAttributes().getValue("Bundle-SymbolicName"));
            assertEquals("3.0.0", file.getManifest().getMainAttributes().getValue("Bundle-Version"));
        }
        assertEquals(0, run("run-module", "--module=" + jar, "--function=add", "--input=2", "--input=3"), err());
        assertEquals("EXEC @add\nresult[0]: i32=5\n", out());
        assertEquals(1, run("run-module", "--module=" + jar, "--function=boom"));
        assertTrue(err().startsWith("FAILED_PRECONDITION; boom"), err());
        assertTrue(err().contains("calc.boom"), err());

        Path named = dir.resolve("named.jar");
        assertEquals(0, run("compile-module", "--output=" + named, "--bundle_symbolic_name=com.example.calc",
                "--bundle_version=3.1.0.build7", "--report", source(dir).toString()), err());
        assertTrue(out().startsWith("module 'calc' version 3: 3 of 3 functions compiled, "), out());
        assertTrue(java.util.regex.Pattern.compile("(?m)^  function 0 add: 1 JVM method, [1-9]\\d* bytes of bytecode,"
                + " \\d+\\.\\d\\d ms$").matcher(out()).find(), out());
        try (java.util.jar.JarFile file = new java.util.jar.JarFile(named.toFile())) {
            assertEquals("com.example.calc", file.getManifest().getMainAttributes().getValue("Bundle-SymbolicName"));
            assertEquals("3.1.0.build7", file.getManifest().getMainAttributes().getValue("Bundle-Version"));
        }
        stdin = ADD_MODULE.getBytes(StandardCharsets.UTF_8);
        assertEquals(0, run("compile-module", "--output=-", "-"), err());
        assertArrayEquals(Files.readAllBytes(jar), outBytes.toByteArray(), "stdin to stdout: the same bundle");
    }

    @Test
    void compileModuleNamesWhatIsWrongWithItsArguments(@TempDir Path dir) throws IOException {
        Path source = source(dir);
        Path jar = dir.resolve("m.jar");
        assertEquals(1, run("compile-module", source.toString()));
        assertTrue(err().contains("INVALID_ARGUMENT; compile-module: expected one input file and --output"), err());
        assertEquals(1, run("compile-module", "--output=" + jar));
        assertTrue(err().contains("INVALID_ARGUMENT; compile-module: expected one input file and --output"), err());
        assertEquals(1, run("compile-module", "--output=" + jar, source.toString(), source.toString()));
        assertTrue(err().contains("got 2 input files"), err());
        assertEquals(1, run("compile-module", "--output=" + jar, "--vm_compile=eager", source.toString()));
        assertTrue(err().startsWith("INVALID_ARGUMENT; compile-module: unknown flag '--vm_compile'"), err());
        assertEquals(1, run("compile-module", "--output=" + jar, dir.resolve("missing.vmfb").toString()));
        assertTrue(err().startsWith("NOT_FOUND; module file '"), err());
        assertEquals(1, run("compile-module", "--output=" + jar, "--bundle_version=1.x", source.toString()));
        assertTrue(err().startsWith("INVALID_ARGUMENT; bundle version '1.x' is not major[.minor[.micro[.qualifier]]]"),
                err());
        assertEquals(1, run("compile-module", "--output=" + jar, "--bundle_symbolic_name=a..b", source.toString()));
        assertTrue(err().startsWith("INVALID_ARGUMENT; bundle symbolic name 'a..b'"), err());
        assertEquals(1, run("compile-module", "--output=" + dir.resolve("no/such/dir/m.jar"), source.toString()));
        assertTrue(err().startsWith("NOT_FOUND; cannot write '"), err());
        Path garbage = dir.resolve("garbage.vmfb");
        Files.write(garbage, new byte[] {8, 0, 0, 0, 'I', 'R', 'E', 'E', 0, 0, 0, 0});
        assertEquals(1, run("compile-module", "--output=" + jar, garbage.toString()));
        assertTrue(err().startsWith("INVALID_ARGUMENT; "), err());
        assertTrue(err().contains("while compiling '" + garbage + "'"), err());
        assertTrue(!Files.exists(jar), "nothing written on failure");
    }
}
