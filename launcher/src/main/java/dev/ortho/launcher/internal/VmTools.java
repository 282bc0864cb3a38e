package dev.ortho.launcher.internal;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.base.Timeout;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.io.parameters.ParameterModule;
import dev.ortho.vm.Context;
import dev.ortho.vm.ModuleDependency;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.Function;
import dev.ortho.vm.HostMemoryLimit;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.Disassembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleTestRunner;
import dev.ortho.vm.bytecode.PrecompiledModule;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The VM module tools, with IREE's flag names and output formats: {@code as-module},
 * {@code dump-module}, {@code check-module}, {@code run-module} and {@code benchmark-module}.
 *
 * <p>Modules named on the command line are {@code .vmfb} archives (mapped, not copied) or, for
 * convenience, {@code .vmasm} sources assembled on the fly; {@code -} reads standard input.
 * Every tool reports failures as {@link StatusException}s, which {@link Cli} prints as
 * {@code CODE; message} with exit code 1.
 *
 * <p>Plain Java: built from the VM {@link Instance} and the available instruction extensions
 * ({@code extensions} is read at each run, so a live service list works). Not thread-safe; one
 * tool run at a time.
 */
final class VmTools {
    private final Instance instance;
    private final DriverRegistry drivers;
    private final Supplier<List<InstructionExtension>> extensions;
    private final Supplier<InputStream> stdin;

    VmTools(Instance instance, DriverRegistry drivers, Supplier<List<InstructionExtension>> extensions,
            Supplier<InputStream> stdin) {
        this.instance = instance;
        this.drivers = drivers;
        // Modules that use the hal module name its types; the registration is counted, so this
        // one (held for the tools' life) coexists with the hal module provider's own.
        HalTypes.register(instance);
        this.extensions = extensions;
        this.stdin = stdin;
    }

    /**
     * Drops the {@link HalTypes} registration made by the constructor (a host that outlives these
     * tools, such as the shell's framework, may then load another revision of the hal module).
     */
    void close() {
        HalTypes.unregister(instance);
    }

    /** The subcommands by name, in help order. */
    Map<String, Cli.Subcommand> subcommands() {
        Map<String, Cli.Subcommand> map = new LinkedHashMap<>();
        map.put("as-module", tool("as-module", "assemble VMASM into a .vmfb (--output=x.vmfb x.vmasm|-)", this::asModule));
        map.put("dump-module", tool("dump-module", "print a .vmfb (--output=all|metadata|disassembly|flatbuffer-json|...)",
                this::dumpModule));
        map.put("compile-module", tool("compile-module", "compile a module's functions to JVM classes into an OSGi bundle"
                + " (--output=x.jar x.vmfb|x.vmasm [--report])",
                new CompileModuleTool(instance, extensions, this::readArchive)::run));
        map.put("check-module", tool("check-module", "run every export as a test ([--module=dep.vmfb ...] x.vmfb|x.vmasm)",
                this::checkModule));
        map.put("run-module", tool("run-module", "invoke a function (--module=x.vmfb --function=f --input=\"2xf32=1 2\" "
                + "--output=... --expected_output=... --device=URI)", this::runModule));
        map.put("benchmark-module", tool("benchmark-module", "time a function (run-module inputs, --batch_size=N --benchmark_repetitions=N --benchmark_min_time=0.5s|Nx --benchmark_min_warmup_time=2s)",
                this::benchmarkModule));
        return map;
    }

    private interface Body {
        int run(List<String> args, PrintStream out, PrintStream err);
    }

    private static Cli.Subcommand tool(String name, String summary, Body body) {
        return new Cli.Subcommand() {
            @Override
            public String summary() {
                return summary;
            }

            @Override
            public int run(List<String> args, PrintStream out, PrintStream err) {
                if (args.contains("--help")) { // as IREE's tools: usage on stdout, exit 0
                    out.println("ortho " + name + ": " + summary);
                    out.println("See README.md, \"VM module tools\", for every flag.");
                    return 0;
                }
                return body.run(args, out, err);
            }
        };
    }

    // ---------------------------------------------------------------- as-module

    private int asModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("as-module", args, Set.of("output"), Set.of());
        String output = flags.get("output", "");
        if (flags.positional().size() != 1 || output.isEmpty()) {
            err.println("Syntax: ortho as-module --output=module.vmfb module.vmasm");
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected one input file and --output");
        }
        String input = flags.positional().get(0);
        ModuleDef module = assemble(input);
        byte[] archive = BytecodeArchive.write(module);
        if (output.equals("-")) { // standard output, as IREE's tools take '-'
            out.write(archive, 0, archive.length);
            out.flush();
        } else {
            writeFile(Path.of(output), archive);
        }
        return Cli.EXIT_OK;
    }

    private ModuleDef assemble(String input) {
        Assembler assembler = new Assembler(extensions.get());
        if (input.equals("-")) {
            return assembler.assemble(new String(readStdin(), StandardCharsets.UTF_8), "<stdin>");
        }
        return assembler.assemble(Path.of(input));
    }

    private byte[] readStdin() {
        try {
            return stdin.get().readAllBytes();
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read standard input: " + e.getMessage(), e);
        }
    }

    static void writeFile(Path path, byte[] bytes) {
        try {
            Files.write(path, bytes);
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot write '" + path + "': no such directory", e);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "cannot write '" + path + "': access denied", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot write '" + path + "': " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- dump-module

    private int dumpModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("dump-module", args, Set.of("output", "function"),
                Set.of("bytecode_offsets", "pretty", "ortho_directives"));
        if (flags.positional().size() != 1) {
            err.println("Syntax: ortho dump-module [--output=...] module.vmfb");
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected one module file");
        }
        MemorySegment archive = readArchive(flags.positional().get(0));
        String mode = flags.get("output", "all");
        switch (mode) {
            case "flatbuffer-binary" -> {
                MemorySegment flatBuffer = BytecodeArchive.flatBuffer(archive);
                out.write(flatBuffer.toArray(ValueLayout.JAVA_BYTE), 0, (int) flatBuffer.byteSize());
                out.flush();
                return Cli.EXIT_OK;
            }
            case "all", "metadata", "disassembly" -> {
                ModuleDef module = BytecodeArchive.read(archive);
                StringBuilder text = new StringBuilder();
                if (!mode.equals("disassembly")) {
                    text.append(ModuleMetadata.format(module, archive));
                }
                if (mode.equals("all")) {
                    text.append('\n');
                }
                if (!mode.equals("metadata")) {
                    String disassembly = new Disassembler(extensions.get()).disassemble(module,
                            flags.isSet("bytecode_offsets"), flags.isSet("ortho_directives"));
                    String filter = flags.get("function", "");
                    text.append(filter.isEmpty() ? disassembly : filterFunctions(disassembly, module, filter));
                }
                out.print(text);
                out.flush();
                return Cli.EXIT_OK;
            }
            case "flatbuffer-json" -> {
                out.print(ModuleJson.format(BytecodeArchive.read(archive), archive, flags.isSet("pretty")));
                out.flush();
                return Cli.EXIT_OK;
            }
            default -> throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "unrecognized --output= flag value '" + mode + "'");
        }
    }

    /**
     * Keeps the module header and the functions matching {@code filter} (an internal ordinal, or
     * the name IREE's dump gives the function: its first export name, else its debug name, else
     * {@code fnN}), with IREE's blank-line spacing between top-level blocks.
     */
    static String filterFunctions(String disassembly, ModuleDef module, String filter) {
        List<String> lines = disassembly.lines().toList();
        List<List<String>> blocks = new ArrayList<>();
        int headerEnd = -1;
        List<String> current = null;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            boolean start = line.startsWith("vm.export ") || line.startsWith("vm.func ")
                    || line.startsWith("[") && line.contains("] vm.func ");
            if (current == null && start && (i == 0 || lines.get(i - 1).isEmpty())) {
                if (headerEnd < 0) {
                    headerEnd = i;
                }
                current = new ArrayList<>();
            }
            if (current != null) {
                current.add(line);
                if (line.equals("}")) {
                    blocks.add(current);
                    current = null;
                }
            }
        }
        if (blocks.size() != module.functions().size() || current != null) {
            throw new StatusException(StatusCode.INTERNAL, "cannot split the disassembly into "
                    + module.functions().size() + " functions (found " + blocks.size() + ")");
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < (headerEnd < 0 ? lines.size() : headerEnd); i++) {
            out.append(lines.get(i)).append('\n');
        }
        Long ordinal = null;
        if (filter.chars().allMatch(Character::isDigit) && filter.length() <= 10) {
            ordinal = Long.parseLong(filter);
        }
        for (int f = 0; f < blocks.size(); f++) {
            boolean match = ordinal != null ? ordinal == f : functionName(module, f).equals(filter);
            if (!match) {
                continue;
            }
            if (out.length() > 0 && !(out.length() >= 2 && out.charAt(out.length() - 2) == '\n')) {
                out.append('\n');
            }
            for (String line : blocks.get(f)) {
                out.append(line).append('\n');
            }
        }
        return out.toString();
    }

    private static String functionName(ModuleDef module, int ordinal) {
        for (ModuleDef.ExportDef export : module.exports()) {
            if (export.internalOrdinal() == ordinal) {
                return export.localName();
            }
        }
        if (module.debug() != null && ordinal < module.debug().functions().size()) {
            String name = module.debug().functions().get(ordinal).localName();
            if (name != null && !name.isEmpty()) {
                return name;
            }
        }
        return "fn" + ordinal;
    }

    /**
     * The archive bytes of module file {@code file} ({@code -}: standard input). VMASM text (a
     * {@code .vmasm} name, or contents that are not an archive) is assembled into one first.
     */
    MemorySegment readArchive(String file) {
        if (file.endsWith(".vmasm")) {
            return MemorySegment.ofArray(BytecodeArchive.write(assemble(file)));
        }
        MemorySegment bytes = readBytes(file);
        if (isVmasmText(bytes)) {
            return MemorySegment.ofArray(BytecodeArchive.write(assembleText(bytes, file)));
        }
        return bytes;
    }

    private MemorySegment readBytes(String file) {
        if (file.equals("-")) {
            return MemorySegment.ofArray(readStdin());
        }
        try (FileChannel channel = FileChannel.open(Path.of(file), StandardOpenOption.READ)) {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), Arena.ofAuto());
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "module file '" + file + "' does not exist", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read '" + file + "': " + e.getMessage(), e);
        }
    }

    private ModuleDef assembleText(MemorySegment bytes, String file) {
        String text = new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        return new Assembler(extensions.get()).assemble(text, file.equals("-") ? "<stdin>" : file);
    }

    /**
     * True if {@code bytes} are not an IREE bytecode archive (no ZIP local header {@code PK\3\4},
     * no {@code IREE} FlatBuffer identifier after the 4-byte size prefix) and look like text (no
     * NUL in the first 4 KiB; a size prefix below 16 MiB always has one): then they are VMASM.
     */
    static boolean isVmasmText(MemorySegment bytes) {
        long size = bytes.byteSize();
        if (size >= 4 && bytes.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0)
                == 0x04034b50) {
            return false;
        }
        if (size >= 12 && bytes.get(ValueLayout.JAVA_BYTE, 8) == 'I' && bytes.get(ValueLayout.JAVA_BYTE, 9) == 'R'
                && bytes.get(ValueLayout.JAVA_BYTE, 10) == 'E' && bytes.get(ValueLayout.JAVA_BYTE, 11) == 'E') {
            return false;
        }
        for (long i = 0, end = Math.min(size, 4096); i < end; i++) {
            if (bytes.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return false;
            }
        }
        return size > 0;
    }

    // ---------------------------------------------------------------- shared module loading

    /**
     * Loads a module file ({@code -}: standard input): VMASM text (a {@code .vmasm} name, or
     * contents that are not an archive) is assembled, anything else read as an archive.
     */
    Module load(String file) {
        return load(file, BytecodeModule.Options.DEFAULT);
    }

    /** As {@link #load(String)} with interpreter {@code options} (e.g. execution tracing). */
    Module load(String file, BytecodeModule.Options options) {
        ModuleDef def;
        if (file.endsWith(".jar")) { // a compile-module bundle runs its stored classes (tracing interprets)
            try {
                return PrecompiledModule.fromBundle(readBytes(file).toArray(ValueLayout.JAVA_BYTE))
                        .load(instance, extensions.get(), options.withExecution(ExecutionMode.EAGER));
            } catch (StatusException e) {
                throw e.annotate("while loading '" + file + "'");
            }
        }
        if (file.endsWith(".vmasm")) {
            def = assemble(file);
        } else {
            MemorySegment bytes = readBytes(file);
            if (isVmasmText(bytes)) {
                def = assembleText(bytes, file);
            } else {
                try {
                    def = BytecodeArchive.read(bytes);
                } catch (StatusException e) {
                    throw e.annotate("while loading '" + (file.equals("-") ? "<stdin>" : file) + "'");
                }
            }
        }
        return BytecodeModule.create(instance, def, extensions.get(), options);
    }

    // ---------------------------------------------------------------- check-module

    private int checkModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("check-module", args, Set.of("module", "vm_compile"),
                Set.of("expect_failure"));
        BytecodeModule.Options checkOptions = BytecodeModule.Options.DEFAULT.withExecution(executionMode(flags));
        List<String> files = new ArrayList<>(flags.all("module"));
        files.addAll(flags.positional());
        if (files.isEmpty()) {
            err.println("Syntax: ortho check-module [--module=dep.vmfb ...] module.vmfb|module.vmasm");
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected a module to check");
        }
        List<Module> modules = new ArrayList<>();
        for (String file : files) {
            modules.add(load(file, checkOptions));
        }
        Module main = modules.remove(modules.size() - 1);
        // As IREE's check-module: internal (__init, ...) and special ($-containing) exports are not
        // tests, and every test takes no arguments and returns nothing.
        java.util.function.Predicate<Function> isTest = f -> !f.name().startsWith("__") && f.name().indexOf('$') < 0;
        for (Function f : main.exports()) {
            if (isTest.test(f) && (!f.cconv().arguments().types().isEmpty() || !f.cconv().results().types().isEmpty())) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected function with no inputs or outputs, "
                        + "but export '" + printable(f.name()) + "' has signature '"
                        + printable(f.cconv().text()) + "'");
            }
        }
        ModuleTestRunner.Report report = ModuleTestRunner.run(instance, modules, main, isTest);
        for (ModuleTestRunner.Outcome outcome : report.outcomes()) {
            String test = report.module() + "." + outcome.name();
            out.println("[ RUN      ] " + test);
            if (outcome.passed()) {
                out.println("[       OK ] " + test);
            } else {
                out.println(outcome.status() == null ? "expected a failure but the call returned OK" : outcome.status());
                out.println("[  FAILED  ] " + test);
            }
        }
        out.println(report.summary());
        boolean failed = report.failed() > 0;
        if (flags.isSet("expect_failure")) {
            out.println(failed ? "Test failed as expected" : "Test passed but expected failure");
            return failed ? Cli.EXIT_OK : Cli.EXIT_FAILURE;
        }
        return failed ? Cli.EXIT_FAILURE : Cli.EXIT_OK;
    }
    // ---------------------------------------------------------------- run-module / benchmark-module

    private static final Set<String> RUN_VALUE_FLAGS = Set.of("module", "function", "input", "device", "parameters",
            HostMemoryFlag.NAME, "vm_compile", "trace_file");
    private static final Set<String> RUN_BOOL_FLAGS = Set.of("trace_execution", "print_statistics", "list_devices",
            "dump_devices");
    private static final Set<String> RESULT_FLAGS = Set.of("output", "expected_output", "output_max_element_count",
            "expected_f16_threshold", "expected_f32_threshold", "expected_f64_threshold", "expected_bf16_threshold",
            "expected_rtol", "equality_mode");

    private static Set<String> union(Set<String> a, Set<String> b, String... more) {
        Set<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        all.addAll(List.of(more));
        return all;
    }

    /**
     * The device a run uses when no {@code --device=} is given: {@code local-task} if that driver
     * is registered, else {@code local-sync}.
     */
    String defaultDevice() {
        for (DriverInfo info : drivers.enumerate()) {
            if (info.name().equals("local-task")) {
                return "local-task";
            }
        }
        return "local-sync";
    }

    /** Whether any of {@code modules} depends on (or imports from) the {@code hal} module. */
    static boolean needsHal(List<Module> modules) {
        for (Module module : modules) {
            for (ModuleDependency dependency : module.dependencies()) {
                if (dependency.name().equals(HalModule.NAME)) {
                    return true;
                }
            }
            for (Function f : module.imports()) {
                if (f.name().startsWith(HalModule.NAME + ".")) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether any of {@code modules} depends on (or imports from) the {@code io_parameters} module. */
    static boolean needsParameters(List<Module> modules) {
        for (Module module : modules) {
            for (ModuleDependency dependency : module.dependencies()) {
                if (dependency.name().equals(ParameterModule.NAME)) {
                    return true;
                }
            }
            for (Function f : module.imports()) {
                if (f.name().startsWith(ParameterModule.NAME + ".")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A context over {@code modules} (registered in order), preceded by the {@code hal} module
     * over the devices {@code deviceUris} (or the {@link #defaultDevice()}) when any module
     * needs it, and by the {@code io_parameters} module over the {@code parameterSpecs}
     * ({@code --parameters=[scope=]file.irpa}, opened only then, as IREE's tools) when any module
     * needs that; closing releases the context, then the parameter files and the devices.
     */
    final class Session implements AutoCloseable {
        final List<Device> devices = new ArrayList<>();
        final List<String> deviceNames = new ArrayList<>();
        final Context context;
        private ParameterIndex parameters;
        private boolean contextClosed;
        /** Whether HalModule.create registered the hal types once more (dropped on close). */
        private boolean halTypesRegistered;

        Session(List<Module> modules, List<String> deviceUris) {
            this(modules, deviceUris, List.of(), HostMemoryLimit.UNLIMITED);
        }

        /**
         * As {@link #Session(List, List)}, with the {@code --parameters} archives
         * ({@code [scope=]path}) and the programs' lists and buffers charged to {@code hostMemoryLimit}.
         */
        Session(List<Module> modules, List<String> deviceUris, List<String> parameterSpecs,
                HostMemoryLimit hostMemoryLimit) {
            List<Module> all = new ArrayList<>();
            try {
                if (needsHal(modules)) {
                    for (String uri : deviceUris.isEmpty() ? List.of(defaultDevice()) : deviceUris) {
                        devices.add(drivers.createDevice(uri));
                        deviceNames.add(uri);
                    }
                    all.add(HalModule.create(instance, devices));
                    halTypesRegistered = true;
                }
                if (needsParameters(modules)) {
                    parameters = ParameterIndex.open(parameterSpecs);
                    all.add(ParameterModule.create(instance, parameters));
                }
                all.addAll(modules);
                context = Context.create(instance, hostMemoryLimit, all.toArray(Module[]::new));
            } catch (RuntimeException e) {
                closeParameters();
                closeDevices();
                throw e;
            }
        }

        private void closeParameters() {
            if (parameters != null) {
                parameters.close();
                parameters = null;
            }
        }

        /** The first device (IREE's tools allocate inputs there), or null without the hal module. */
        Device device() {
            return devices.isEmpty() ? null : devices.get(0);
        }

        /** The allocator statistics of every device, as IREE's {@code --print_statistics}. */
        String statistics() {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < devices.size(); i++) {
                AllocatorStatistics stats = devices.get(i).allocator().statistics();
                text.append("Device: ").append(deviceNames.get(i)).append('\n')
                        .append("[[ iree_hal_allocator_t memory statistics ]]\n")
                        .append(String.format("  HOST_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live%n",
                                0L, 0L, 0L, 0L))
                        .append(String.format("DEVICE_LOCAL: %12dB peak / %12dB allocated / %12dB freed / %12dB live%n",
                                stats.bytesPeak(), stats.bytesAllocated(), stats.bytesFreed(), stats.bytesLive()))
                        .append('\n');
            }
            return text.toString();
        }

        /** Releases the context (idempotent); the devices stay open for {@link #statistics()}. */
        void closeContext() {
            if (!contextClosed) {
                contextClosed = true;
                context.close();
            }
        }

        @Override
        public void close() {
            try {
                closeContext();
            } finally {
                closeParameters();
                closeDevices();
            }
        }

        void closeDevices() {
            for (Device device : devices) {
                device.close();
            }
            devices.clear();
            if (halTypesRegistered) {
                halTypesRegistered = false;
                HalTypes.unregister(instance);
            }
        }
    }

    /**
     * The {@code iree.abi.model=coarse-fences} convention: the caller appends a wait fence (here
     * already reached) and a signal fence to the arguments and waits on the signal fence after
     * the call, as IREE's tools do. One semaphore per run, its value advanced per call.
     */
    static final class CoarseFences implements AutoCloseable {
        private final Semaphore semaphore;
        private Fence signal;
        private long value;

        CoarseFences(Device device) {
            this.semaphore = device.createSemaphore(0);
        }

        /** Appends a fresh (wait, signal) pair to {@code arguments}. */
        void append(VmList arguments) {
            Fence wait = new Fence();
            try {
                arguments.pushRefMove(HalRefs.wrap(wait));
            } finally {
                wait.release();
            }
            arguments.pushRefMove(nextSignal());
        }

        /** Replaces the last two arguments with a fresh pair (for repeated calls). */
        void renew(VmList arguments) {
            arguments.resize(arguments.size() - 2);
            append(arguments);
        }

        private RefObject nextSignal() {
            if (signal != null) {
                signal.release();
            }
            signal = Fence.at(semaphore, ++value);
            return HalRefs.wrap(signal);
        }

        /** Waits until the call has signalled its fence (or failed it). */
        void await() {
            try {
                signal.await(Timeout.infinite());
            } catch (StatusException e) {
                throw e.annotate("waiting on finish fence");
            }
        }

        @Override
        public void close() {
            if (signal != null) {
                signal.release();
            }
            semaphore.close();
        }
    }

    private static boolean isCoarseFences(Function function) {
        return "coarse-fences".equals(function.attr("iree.abi.model"));
    }

    /** Parses {@code specs} as the arguments of {@code function} (fences appended for coarse-fences). */
    static VmList parseInputs(Function function, List<String> specs, FunctionIo io, CoarseFences fences) {
        if (function.cconv().arguments().isVariadic()) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "variadic function `" + function.name()
                    + "` cannot be invoked from the command line");
        }
        String types = function.cconv().arguments().types();
        if (fences != null) {
            if (!types.endsWith("rr")) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "function `" + function.name()
                        + "` declares iree.abi.model=coarse-fences but its arguments (cconv '"
                        + function.cconv().text() + "') do not end in two fences");
            }
            types = types.substring(0, types.length() - 2);
        }
        VmList list = io.parse(types, specs);
        if (list.size() != types.length()) {
            int given = list.size();
            list.release();
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function `" + function.name() + "` (cconv '"
                    + function.cconv().text() + "') takes " + types.length() + " arguments but " + given
                    + " --input= values were given");
        }
        if (fences != null) {
            fences.append(list);
        }
        return list;
    }

    /** {@code --vm_compile=off|lazy|eager} (default off): interpret, or compile functions to JVM classes. */
    private static ExecutionMode executionMode(ToolFlags flags) {
        return executionMode("--vm_compile", flags.get("vm_compile", "off"));
    }

    /** The mode {@code text} names; INVALID_ARGUMENT naming {@code what} (a flag, a property) and the value otherwise. */
    static ExecutionMode executionMode(String what, String text) {
        ExecutionMode mode = ExecutionMode.parse(text.strip());
        if (mode == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    what + " must be one of [`off`, `lazy`, `eager`], got '" + printable(text) + "'");
        }
        return mode;
    }

    private List<Module> loadModules(String tool, ToolFlags flags) {
        List<String> files = new ArrayList<>(flags.all("module"));
        files.addAll(flags.positional());
        if (files.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, tool + ": no --module= specified");
        }
        BytecodeModule.Options options = new BytecodeModule.Options(flags.isSet("trace_execution"), false,
                executionMode(flags));
        List<Module> modules = new ArrayList<>();
        for (String file : files) {
            modules.add(load(file, options));
        }
        return modules;
    }

    private static Function selectFunction(String tool, Module main, String name) {
        if (name.isEmpty()) {
            if (main.exports().size() != 1) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, tool + ": no --function= specified; module '"
                        + printable(main.name()) + "' exports " + exportNames(main));
            }
            name = main.exports().get(0).name();
        }
        Function function = main.lookupExport(name);
        if (function == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "no function `" + printable(name) + "` exported by module '"
                    + printable(main.name()) + "' (exports: " + exportNames(main) + ")");
        }
        return function;
    }

    private static String exportNames(Module module) {
        List<String> names = new ArrayList<>();
        for (Function f : module.exports()) {
            names.add(f.name());
        }
        return printable(names.toString());
    }

    /** Handles {@code --list_devices} / {@code --dump_devices}; true if one was given (and printed). */
    private boolean deviceListing(ToolFlags flags, PrintStream out) {
        if (flags.isSet("list_devices")) {
            out.print(DriverListing.devices(drivers, null));
            return true;
        }
        if (flags.isSet("dump_devices")) {
            out.print(DeviceDump.dumpDevices(drivers, null));
            return true;
        }
        return false;
    }

    /** Calls {@code function}, waiting on the coarse-fences signal fence if any. */
    private static void call(Session session, Function function, VmList inputs, VmList outputs,
            CoarseFences fences) {
        try {
            Invocation.invoke(session.context, function, inputs, outputs);
        } catch (StatusException e) {
            throw e.annotate("invoking function '" + function.name() + "'");
        }
        if (fences != null) {
            fences.await();
        }
    }

    /**
     * Invokes {@code qualifiedName} ({@code module.function}) in a fresh context over
     * {@code modules} (registered in order; the {@code hal} module over the default device is
     * added when they need it) with {@code inputs} in {@code run-module}'s syntax; returns the
     * {@code EXEC @f} line and the {@code result[i]: …} lines.
     *
     * @throws StatusException NOT_FOUND for an unknown module or function, INVALID_ARGUMENT for
     *     bad inputs, or the callee's failure
     */
    String invoke(List<Module> modules, String qualifiedName, List<String> inputs) {
        int dot = qualifiedName.indexOf('.');
        if (dot <= 0 || dot == qualifiedName.length() - 1) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "expected module.function, got '" + qualifiedName + "'");
        }
        String moduleName = qualifiedName.substring(0, dot);
        Module module = null;
        for (Module m : modules) {
            if (m.name().equals(moduleName)) {
                module = m;
            }
        }
        if (module == null) {
            throw new StatusException(StatusCode.NOT_FOUND,
                    "no module '" + printable(moduleName) + "' is loaded");
        }
        Function function = module.lookupExport(qualifiedName.substring(dot + 1));
        if (function == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "no function `"
                    + printable(qualifiedName.substring(dot + 1)) + "` exported by module '"
                    + printable(moduleName) + "' (exports: " + exportNames(module) + ")");
        }
        try (Session session = new Session(modules, List.of());
                FunctionIo io = new FunctionIo(session.device(), false);
                CoarseFences fences = isCoarseFences(function) ? new CoarseFences(requireDevice(session)) : null) {
            VmList in = parseInputs(function, inputs, io, fences);
            VmList outputs = VmList.ofVariants(4);
            try {
                call(session, function, in, outputs, fences);
                StringBuilder text = new StringBuilder("EXEC @").append(function.name());
                for (int i = 0; i < outputs.size(); i++) {
                    text.append("\nresult[").append(i).append("]: ")
                            .append(FunctionIo.format(outputs.getVariant(i), FunctionIo.DEFAULT_MAX_ELEMENTS));
                }
                return text.toString();
            } finally {
                outputs.release();
                in.release();
            }
        }
    }

    private static Device requireDevice(Session session) {
        if (session.device() == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "coarse-fences functions need a HAL device, but no module depends on the 'hal' module");
        }
        return session.device();
    }

    private int runModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("run-module", args, union(RUN_VALUE_FLAGS, RESULT_FLAGS), RUN_BOOL_FLAGS);
        if (deviceListing(flags, out)) {
            return Cli.EXIT_OK;
        }
        long maxElements = positiveInt(flags.get("output_max_element_count", "1024"), "--output_max_element_count");
        FunctionIo.Tolerance tolerance = tolerance(flags);
        List<Module> modules = loadModules("run-module", flags);
        Function function = selectFunction("run-module", modules.get(modules.size() - 1), flags.get("function", ""));
        int exit;
        String statistics;
        try (TraceFile trace = TraceFile.start(flags.get("trace_file", "")); // written after the session closed
                Session session = new Session(modules, flags.all("device"), flags.all("parameters"),
                HostMemoryFlag.parse(flags))) {
            try (FunctionIo io = new FunctionIo(session.device(), false);
                    CoarseFences fences = isCoarseFences(function) ? new CoarseFences(requireDevice(session)) : null) {
                VmList inputs = parseInputs(function, flags.all("input"), io, fences);
                VmList outputs = VmList.ofVariants(4);
                try {
                    out.println("EXEC @" + function.name());
                    out.flush();
                    call(session, function, inputs, outputs, fences);
                    exit = processResults(session, function, outputs, flags, maxElements, tolerance, out);
                } finally {
                    outputs.release();
                    inputs.release();
                }
            }
            session.closeContext();
            statistics = flags.isSet("print_statistics") ? session.statistics() : "";
        }
        err.print(statistics);
        err.flush();
        return exit;
    }

    private static int processResults(Session session, Function function, VmList outputs, ToolFlags flags,
            long maxElements, FunctionIo.Tolerance tolerance, PrintStream out) {
        List<String> expected = flags.all("expected_output");
        if (expected.isEmpty()) {
            try {
                if (flags.all("output").isEmpty()) {
                    FunctionIo.print(outputs, maxElements, out);
                } else {
                    FunctionIo.write(outputs, flags.all("output"), maxElements, out);
                }
            } catch (StatusException e) {
                throw e.annotate("processing function outputs");
            }
            out.flush();
            return Cli.EXIT_OK;
        }
        try (FunctionIo io = new FunctionIo(session.device(), true)) {
            VmList expectedList;
            try {
                expectedList = io.parse(function.cconv().results().types(), expected);
            } catch (StatusException e) {
                throw e.annotate("parsing expected function outputs");
            }
            try {
                StringBuilder report = new StringBuilder();
                boolean matched = FunctionIo.compare(expectedList, outputs, tolerance, report);
                out.print(report);
                if (matched) {
                    out.println("[SUCCESS] all function outputs matched their expected values.");
                }
                out.flush();
                return matched ? Cli.EXIT_OK : Cli.EXIT_FAILURE;
            } finally {
                expectedList.release();
            }
        }
    }

    private static FunctionIo.Tolerance tolerance(ToolFlags flags) {
        String mode = flags.get("equality_mode", "approximate");
        if (!mode.equals("approximate") && !mode.equals("exact")) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "--equality_mode must be one of [`approximate`, `exact`], got '" + mode + "'");
        }
        FunctionIo.Tolerance d = FunctionIo.Tolerance.DEFAULT;
        return new FunctionIo.Tolerance(mode.equals("exact"),
                threshold(flags, "expected_f16_threshold", d.f16()),
                threshold(flags, "expected_f32_threshold", d.f32()),
                threshold(flags, "expected_f64_threshold", d.f64()),
                threshold(flags, "expected_bf16_threshold", d.bf16()),
                threshold(flags, "expected_rtol", d.rtol()));
    }

    private static double threshold(ToolFlags flags, String name, double defaultValue) {
        String text = flags.get(name, null);
        if (text == null) {
            return defaultValue;
        }
        try {
            double value = Double.parseDouble(text);
            if (value >= 0 && Double.isFinite(value)) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "--" + name
                + " must be a finite non-negative number, got '" + text + "'");
    }

    private int benchmarkModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("benchmark-module", args,
                union(RUN_VALUE_FLAGS, Set.of(), "benchmark_repetitions", "benchmark_min_time",
                        "benchmark_min_warmup_time", "batch_size"),
                RUN_BOOL_FLAGS);
        if (deviceListing(flags, out)) {
            return Cli.EXIT_OK;
        }
        int repetitions = positiveInt(flags.get("benchmark_repetitions", "1"), "--benchmark_repetitions");
        int batchSize = positiveInt(flags.get("batch_size", "1"), "--batch_size");
        CallTimer.MinTime minTime = minTime(flags.get("benchmark_min_time", "0.5s"));
        double warmUpSeconds = warmUpTime(flags.get("benchmark_min_warmup_time", DEFAULT_WARMUP));
        List<Module> modules = loadModules("benchmark-module", flags);
        Function function = selectFunction("benchmark-module", modules.get(modules.size() - 1),
                flags.get("function", ""));
        String statistics;
        try (TraceFile trace = TraceFile.start(flags.get("trace_file", "")); // written after the session closed
                Session session = new Session(modules, flags.all("device"), flags.all("parameters"),
                HostMemoryFlag.parse(flags))) {
            try (FunctionIo io = new FunctionIo(session.device(), false);
                    CoarseFences fences = isCoarseFences(function) ? new CoarseFences(requireDevice(session)) : null) {
                VmList inputs = parseInputs(function, flags.all("input"), io, fences);
                VmList outputs = VmList.ofVariants(4);
                try {
                    CallTimer timer = new CallTimer(() -> {
                        outputs.clear();
                        if (fences != null) {
                            fences.renew(inputs);
                        }
                        call(session, function, inputs, outputs, fences);
                    }, batchSize);
                    String name = "BM_" + function.name() + "/process_time/real_time";
                    List<CallTimer.Run> runs = new ArrayList<>();
                    timer.warmUp(warmUpSeconds);
                    for (int r = 0; r < repetitions; r++) {
                        runs.add(timer.measure(minTime));
                    }
                    out.print(CallTimer.report(name, runs));
                } finally {
                    outputs.release();
                    inputs.release();
                }
            }
            session.closeContext();
            statistics = flags.isSet("print_statistics") ? session.statistics() : "";
        }
        err.print(statistics);
        return Cli.EXIT_OK;
    }

    private static int positiveInt(String text, String flag) {
        try {
            int value = Integer.parseInt(text);
            if (value > 0) {
                return value;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, flag + " must be a positive integer, got '" + text + "'");
    }

    /**
     * Ortho's default {@code --benchmark_min_warmup_time} (Google Benchmark's and so IREE's is 0):
     * the first calls of a function run in the JVM's interpreter while the JIT compiles the VM
     * and the kernels, so unwarmed the first run can be one cold call that outlasts the whole
     * minimum time. {@code --benchmark_min_warmup_time=0} measures from the first call.
     */
    static final String DEFAULT_WARMUP = "2s";

    /** Google Benchmark's {@code --benchmark_min_time}: {@code <float>s}, {@code <float>} or {@code <integer>x}. */
    private static CallTimer.MinTime minTime(String text) {
        if (text.endsWith("x")) {
            try {
                long iterations = Long.parseLong(text.substring(0, text.length() - 1));
                if (iterations > 0 && iterations <= 1_000_000_000L) {
                    return CallTimer.MinTime.ofIterations(iterations);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        } else {
            String number = text.endsWith("s") ? text.substring(0, text.length() - 1) : text;
            try {
                double seconds = Double.parseDouble(number);
                if (seconds > 0 && seconds <= 3600) {
                    return CallTimer.MinTime.ofSeconds(seconds);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "--benchmark_min_time must be a duration in seconds"
                + " such as 0.5s (at most 3600s) or an iteration count such as 10x (at most 1000000000x), got '"
                + text + "'");
    }

    /** {@code --benchmark_min_warmup_time}: seconds, with or without a trailing {@code s}; 0 turns warm-up off. */
    private static double warmUpTime(String text) {
        String number = text.endsWith("s") ? text.substring(0, text.length() - 1) : text;
        try {
            double seconds = Double.parseDouble(number);
            if (seconds >= 0 && seconds <= 3600) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                "--benchmark_min_warmup_time must be a duration in seconds such as 2s or 0 (at most 3600s), got '"
                        + text + "'");
    }
}
