package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.ElementType;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import dev.ortho.hal.validation.internal.ValidationWrapper;
import dev.ortho.vm.Instance;
import dev.ortho.vm.bytecode.ExecutionMode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The modules of {@code models/} (compiled by {@code iree-compile} from ONNX graphs; see
 * {@code models/README.md}) run through {@code run-module} with the flags the manifest gave
 * {@code iree-run-module}, on every kind of Ortho device, and give IREE's results: each output,
 * written with {@code --output=@file.npy} as IREE wrote its reference, has IREE's dtype and shape,
 * integer and boolean contents byte for byte, float contents within the entry's tolerance
 * ({@code |ortho - iree| <= atol + rtol * |iree|}). Where all outputs are floats, the IREE
 * command itself ({@code --expected_output=@… --expected_f32_threshold=…}) must report success.
 * Where IREE's own runtime fails on a module, Ortho must fail with the same status code, and
 * {@code dump-module} prints exactly what {@code iree-dump-module} printed for every module.
 *
 * <p>Devices: {@code local-sync} (against IREE's local-sync outputs), {@code local-task},
 * {@code validation+local-task}, {@code remote://} over TCP to an in-process server serving
 * local-task, and {@code remote://shm} to a worker JVM (against IREE's local-task outputs; the
 * shared-memory run takes the first entry of each model, the others every entry).
 *
 * <p>Execution modes (issue 16), so that every model meets IREE's results with its dispatch
 * functions interpreted and compiled, and with its program module interpreted and compiled,
 * without running any model more often: {@code local-sync://?vmvx_compile=off} with
 * {@code --vm_compile=eager} (interpreted kernels, compiled program), {@code local-task} with
 * {@code --vm_compile=off} (compiled kernels, the loader's default; interpreted program),
 * {@code validation+local-task://?vmvx_compile=lazy&queue_order=fifo} with {@code --vm_compile=lazy} (both
 * compiled once hot: kernels by the executor worker that crosses the threshold; FIFO queues, so
 * every model also runs with same-queue waits elided at submission), and the remote
 * devices (their servers' local-task compiles the kernels) with {@code --vm_compile=off}.
 */
class IreeCompiledModelsTest {
    private static final Path MODELS = Path.of("..", "models").toAbsolutePath().normalize();
    private static final Pattern STATUS = Pattern.compile("\\b([A-Z_]{4,});");

    @TempDir
    static Path dir;
    private static DeviceServer server;
    private static String tcpUri;

    static DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        // Dispatch functions run compiled to JVM bytecode (the VMVX loader's default) unless the device
        // URI says otherwise (see the class comment).
        registry.register(CpuDrivers.builder().extensions(HalPrograms.EXTENSIONS).localSyncFactory());
        registry.register(CpuDrivers.builder().extensions(HalPrograms.EXTENSIONS).localTaskFactory());
        registry.register(new RemoteDriverFactory(name -> null));
        registry.registerWrapper(new ValidationWrapper());
        return registry;
    }

    private static final DriverRegistry REGISTRY = registry();

    @BeforeAll
    static void startServer() throws IOException {
        byte[] token = ("models-" + Long.toHexString(System.nanoTime())).getBytes(StandardCharsets.UTF_8);
        Path tokenFile = dir.resolve("token.txt");
        Files.write(tokenFile, token);
        server = DeviceServer.start(() -> REGISTRY.createDevice("local-task://"),
                ServerOptions.defaults(token).withListen(new InetSocketAddress("127.0.0.1", 0), false));
        tcpUri = "remote://127.0.0.1:" + server.address().getPort() + "?token_file=" + tokenFile;
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> manifest() throws IOException {
        return (Map<String, Object>) MiniJson.parse(Files.readString(MODELS.resolve("manifest.json")));
    }

    @SuppressWarnings("unchecked")
    private static <T> T get(Map<String, Object> map, String key) {
        return (T) map.get(key);
    }

    @TestFactory
    Stream<DynamicTest> everyCompiledModuleGivesIreesResultsOnEveryDevice() throws IOException {
        Map<String, Object> manifest = manifest();
        List<Map<String, Object>> entries = get(manifest, "entries");
        List<Map<String, Object>> runFailures = get(manifest, "run_failures");
        List<DynamicTest> tests = new ArrayList<>();
        Set<String> shmModels = new HashSet<>();
        for (Map<String, Object> entry : entries) {
            if (entry.get("vmfb") == null) {
                continue; // iree-compile refused the graph: named in the manifest's compile_failures
            }
            String name = get(entry, "name");
            Map<String, Object> expected = get(entry, "expected_outputs");
            for (String device : List.of("local-sync", "local-task", "validation+local-task", "tcp", "shm")) {
                String reference = device.equals("local-sync") ? "local-sync" : "local-task";
                if (device.equals("shm") && !shmModels.add(get(entry, "model"))) {
                    continue;
                }
                String failure = ireeFailure(runFailures, name, reference);
                List<String> outputs = expected == null ? null : get(expected, reference);
                if (failure == null && outputs == null) {
                    fail(name + ": the manifest has neither outputs nor a failure for " + reference);
                }
                ExecutionMode program = switch (device) {
                    case "local-sync" -> ExecutionMode.EAGER;
                    case "validation+local-task" -> ExecutionMode.LAZY;
                    default -> ExecutionMode.OFF;
                };
                tests.add(DynamicTest.dynamicTest(name + " on " + device + " (program "
                        + program.name().toLowerCase(java.util.Locale.ROOT) + ")", () -> {
                    String uri = switch (device) {
                        case "tcp" -> tcpUri;
                        case "shm" -> "remote://shm?mode=process&workers=1&supplier=" + ModelWorkerSupplier.class.getName();
                        case "local-sync" -> "local-sync://?vmvx_compile=off";
                        case "validation+local-task" -> "validation+local-task://?vmvx_compile=lazy&queue_order=fifo";
                        default -> device;
                    };
                    if (failure != null) {
                        failsAsIreeDoes(entry, uri, program, failure);
                    } else {
                        matchesIreeOutputs(entry, uri, program, outputs);
                        if (!device.equals("shm") && !device.equals("tcp") && allFloat(outputs)) {
                            ireeExpectedOutputFlagsPass(entry, uri, program, reference);
                        }
                    }
                }));
            }
        }
        assertTrue(tests.size() >= 5 * 5, "the corpus is missing: " + tests.size() + " runs under " + MODELS);
        return tests.stream();
    }

    /**
     * Issue 16: zoo_math's transcendental ops (exp, log, tanh, sigmoid, erf, pow, sqrt) give IREE's
     * (glibc 2.36's) bits, interpreted and compiled, program and kernels. tanh used to differ in 3 of
     * 32 elements by one ulp (glibc's tanhf is not correctly rounded; Ortho's was) until Ortho took
     * glibc's algorithm (the ONNX sweep's test_tanh differed in 23 of 60).
     */
    @org.junit.jupiter.api.Test
    void zooMathGivesIreesBits() throws IOException {
        givesIreesBits("zoo_math.vmvx.default", 32, new int[7]);
    }

    /**
     * The ONNX sweep's C-library findings ({@code models/sweep.py}): zoo_libm's tanh, erf, atan,
     * softplus (exp, then log1p), sin and cos give IREE's bits, on arguments where glibc 2.36 is not
     * correctly rounded (before, 1 to 3 of the 64 elements of each output differed by an ulp).
     */
    @org.junit.jupiter.api.Test
    void zooLibmGivesIreesBits() throws IOException {
        givesIreesBits("zoo_libm.vmvx.default", 64, new int[6]);
    }

    /** Runs entry {@code name}, whose outputs are f32 of {@code count} elements, and counts differing bits. */
    private static void givesIreesBits(String name, int count, int[] expectedDiffering) throws IOException {
        Map<String, Object> entry = null;
        List<Map<String, Object>> entries = get(manifest(), "entries");
        for (Map<String, Object> e : entries) {
            if (name.equals(e.get("name"))) {
                entry = e;
            }
        }
        assertTrue(entry != null, name + " is in the manifest");
        Map<String, Object> expected = get(entry, "expected_outputs");
        List<String> references = get(expected, "local-sync");
        assertEquals(expectedDiffering.length, references.size(), name + " outputs");
        for (String kernels : List.of("off", "eager")) {
            for (ExecutionMode program : List.of(ExecutionMode.OFF, ExecutionMode.EAGER)) {
                Path outDir = Files.createTempDirectory(dir, "zoo");
                List<String> args = flags(entry, "local-sync://?vmvx_compile=" + kernels, program);
                for (int i = 0; i < references.size(); i++) {
                    args.add("--output=@" + outDir.resolve("output" + i + ".npy"));
                }
                Run r = run(args);
                assertEquals(0, r.exit(), r.out() + r.err());
                for (int i = 0; i < references.size(); i++) {
                    byte[] want = Files.readAllBytes(MODELS.resolve(references.get(i)));
                    byte[] got = Files.readAllBytes(outDir.resolve("output" + i + ".npy"));
                    assertEquals(want.length, got.length, "result[" + i + "] file size");
                    int differing = 0;
                    for (int k = want.length - 4 * count; k < want.length; k += 4) {
                        differing += java.util.Arrays.equals(want, k, k + 4, got, k, k + 4) ? 0 : 1;
                    }
                    assertEquals(expectedDiffering[i], differing, name + " result[" + i + "] elements that differ"
                            + " from IREE's, kernels " + kernels + ", program " + program);
                }
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> dumpModulePrintsWhatIreeDumpModulePrints() throws IOException {
        List<Map<String, Object>> vmfbs = get(manifest(), "vmfbs");
        List<DynamicTest> tests = new ArrayList<>();
        for (Map<String, Object> record : vmfbs) {
            String vmfb = get(record, "vmfb");
            tests.add(DynamicTest.dynamicTest("dump-module " + vmfb, () -> {
                Run r = run(List.of("dump-module", MODELS.resolve(vmfb).toString()));
                assertEquals(0, r.exit(), r.err());
                String text = get(record, "iree_dump_module");
                if (text != null) { // the whole text is committed: a failure shows the difference
                    assertEquals(Files.readString(MODELS.resolve(text)), r.out());
                }
                byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                        .digest(r.out().getBytes(StandardCharsets.UTF_8));
                assertEquals(get(record, "iree_dump_module_sha256"), java.util.HexFormat.of().formatHex(digest),
                        "sha256 of dump-module's output for " + vmfb);
            }));
        }
        assertTrue(tests.size() >= 10, "the corpus is missing: " + tests.size() + " modules under " + MODELS);
        return tests.stream();
    }

    private static String ireeFailure(List<Map<String, Object>> failures, String entry, String device) {
        for (Map<String, Object> f : failures == null ? List.<Map<String, Object>>of() : failures) {
            if (entry.equals(f.get("entry")) && device.equals(f.get("device"))) {
                Matcher m = STATUS.matcher((String) f.get("error"));
                if (!m.find()) {
                    fail("no status code in IREE's error for " + entry + ": " + f.get("error"));
                }
                return m.group(1);
            }
        }
        return null;
    }

    /** The manifest's flags (paths relative to models/) with paths made absolute. */
    private static List<String> flags(Map<String, Object> entry, String uri, ExecutionMode program) {
        List<String> flags = new ArrayList<>();
        flags.add("run-module");
        List<String> run = get(entry, "run_flags");
        for (String flag : run) {
            flags.add(absolute(flag));
        }
        if (entry.get("parameters_flag") != null) {
            flags.add(absolute(get(entry, "parameters_flag")));
        }
        flags.add("--device=" + uri);
        flags.add("--vm_compile=" + program.name().toLowerCase(java.util.Locale.ROOT));
        return flags;
    }

    private static String absolute(String flag) {
        Matcher m = Pattern.compile("^(--(?:module|input|expected_output)=@?|--parameters=(?:[A-Za-z0-9_.-]+=)?)(.+)$")
                .matcher(flag);
        if (!m.matches() || m.group(2).startsWith("/")) {
            return flag;
        }
        return m.group(1) + MODELS.resolve(m.group(2));
    }

    record Run(int exit, String out, String err) {
    }

    /** Runs an ortho tool in-process over the models' driver registry. */
    static Run run(List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Cli cli = new Cli(REGISTRY, "ortho test", () -> 0);
        new VmTools(new Instance(), REGISTRY, () -> HalPrograms.EXTENSIONS,
                () -> new ByteArrayInputStream(new byte[0])).subcommands().forEach(cli::add);
        int exit = cli.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void failsAsIreeDoes(Map<String, Object> entry, String uri, ExecutionMode program, String code) {
        Run r = run(flags(entry, uri, program));
        assertEquals(1, r.exit(), "IREE fails with " + code + "; Ortho printed:\n" + r.out() + r.err());
        assertTrue(r.err().startsWith(code + ";"), "expected " + code + " as IREE; got:\n" + r.err());
    }

    private static void matchesIreeOutputs(Map<String, Object> entry, String uri, ExecutionMode program,
            List<String> references) throws IOException {
        Path outDir = Files.createTempDirectory(dir, "out");
        List<String> args = flags(entry, uri, program);
        for (int i = 0; i < references.size(); i++) {
            args.add("--output=@" + outDir.resolve("output" + i + ".npy"));
        }
        Run r = run(args);
        assertEquals(0, r.exit(), r.out() + r.err());
        Map<String, Object> tolerance = get(entry, "tolerance");
        double atol = ((Number) tolerance.getOrDefault("atol_float32", 1e-4)).doubleValue();
        double rtol = ((Number) tolerance.getOrDefault("rtol", 1e-5)).doubleValue();
        boolean exact = Boolean.TRUE.equals(tolerance.get("exact"));
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < references.size(); i++) {
                NpyFile.Array want = read(MODELS.resolve(references.get(i)), arena);
                NpyFile.Array got = read(outDir.resolve("output" + i + ".npy"), arena);
                String what = entry.get("name") + " result[" + i + "] on " + uri;
                assertArrayEquals(want.shape(), got.shape(), what + ": shape");
                assertEquals(want.elementType(), got.elementType(), what + ": element type");
                compare(want, got, exact, atol, rtol, what);
            }
        }
    }

    private static NpyFile.Array read(Path file, Arena arena) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return NpyFile.read(channel, file.toString(), arena);
        }
    }

    private static void compare(NpyFile.Array want, NpyFile.Array got, boolean exact, double atol, double rtol,
            String what) {
        MemorySegment w = want.contents();
        MemorySegment g = got.contents();
        assertEquals(w.byteSize(), g.byteSize(), what + ": byte size");
        int type = want.elementType();
        if (exact || (type != ElementType.FLOAT_32 && type != ElementType.FLOAT_64)) {
            long mismatch = w.mismatch(g);
            assertEquals(-1, mismatch, what + ": contents differ from IREE's at byte " + mismatch);
            return;
        }
        boolean f32 = type == ElementType.FLOAT_32;
        long count = w.byteSize() / (f32 ? 4 : 8);
        for (long i = 0; i < count; i++) {
            double e = f32 ? w.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i) : w.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
            double a = f32 ? g.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i) : g.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
            boolean same = Double.compare(e, a) == 0 || (Double.isNaN(e) && Double.isNaN(a))
                    || Math.abs(a - e) <= atol + rtol * Math.abs(e);
            if (!same) {
                fail(what + ": element " + i + " is " + a + ", IREE gave " + e + " (atol " + atol + ", rtol " + rtol + ")");
            }
        }
    }

    private static boolean allFloat(List<String> references) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            for (String reference : references) {
                int type = read(MODELS.resolve(reference), arena).elementType();
                if (type != ElementType.FLOAT_32 && type != ElementType.FLOAT_64) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The exact command the manifest records for iree-run-module, expected outputs included. */
    private static void ireeExpectedOutputFlagsPass(Map<String, Object> entry, String uri, ExecutionMode program,
            String reference) {
        List<String> args = flags(entry, uri, program);
        Map<String, Object> expectedFlags = get(entry, "expected_output_flags");
        for (String flag : (List<String>) get(expectedFlags, reference)) {
            args.add(absolute(flag));
        }
        Map<String, Object> tolerance = get(entry, "tolerance");
        List<String> toleranceFlags = get(tolerance, "flags");
        args.addAll(toleranceFlags == null ? List.of() : toleranceFlags);
        Run r = run(args);
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().endsWith("[SUCCESS] all function outputs matched their expected values.\n"), r.out());
    }
}
