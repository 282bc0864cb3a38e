package dev.ortho.launcher.internal;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleTestRunner;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
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
 * convenience, {@code .vmasm} sources assembled on the fly; {@code -} reads standard input
 * ({@link ModuleFiles}). Runs share a {@link ToolSession} (context, hal and parameter modules).
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
    private final ModuleFiles moduleFiles;

    VmTools(Instance instance, DriverRegistry drivers, Supplier<List<InstructionExtension>> extensions,
            Supplier<InputStream> stdin) {
        this.instance = instance;
        this.drivers = drivers;
        // Modules that use the hal module name its types; the registration is counted, so this
        // one (held for the tools' life) coexists with the hal module provider's own.
        HalTypes.register(instance);
        this.extensions = extensions;
        this.moduleFiles = new ModuleFiles(instance, extensions, stdin);
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
                new DumpModuleTool(extensions, moduleFiles::readArchive)::run));
        map.put("compile-module", tool("compile-module", "compile a module's functions to JVM classes into an OSGi bundle"
                + " (--output=x.jar x.vmfb|x.vmasm [--report])",
                new CompileModuleTool(instance, extensions, moduleFiles::readArchive)::run));
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
        ModuleDef module = moduleFiles.assemble(input);
        byte[] archive = BytecodeArchive.write(module);
        if (output.equals("-")) { // standard output, as IREE's tools take '-'
            out.write(archive, 0, archive.length);
            out.flush();
        } else {
            ModuleFiles.writeFile(Path.of(output), archive);
        }
        return Cli.EXIT_OK;
    }

    // ---------------------------------------------------------------- shared module loading

    /** As {@link ModuleFiles#isVmasmText}. */
    static boolean isVmasmText(MemorySegment bytes) {
        return ModuleFiles.isVmasmText(bytes);
    }

    /**
     * Loads a module file ({@code -}: standard input): VMASM text (a {@code .vmasm} name, or
     * contents that are not an archive) is assembled, anything else read as an archive.
     */
    Module load(String file) {
        return load(file, BytecodeModule.Options.DEFAULT);
    }

    /** As {@link #load(String)} with interpreter {@code options} (e.g. execution tracing). */
    Module load(String file, BytecodeModule.Options options) {
        return moduleFiles.load(file, options);
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
            // As iree-run-module: the one export that is neither internal ("__init") nor a special
            // entry point ("f$async"), which IREE's compiler emits beside every public function.
            List<String> callable = new ArrayList<>();
            for (Function f : main.exports()) {
                if (!f.name().startsWith("__") && f.name().indexOf('$') < 0) {
                    callable.add(f.name());
                }
            }
            if (callable.size() != 1) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, tool + ": no --function= specified; module '"
                        + printable(main.name()) + "' exports " + exportNames(main) + ", " + callable.size()
                        + " of them not internal (__*) nor special (*$*)");
            }
            name = callable.get(0);
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
    private static void call(ToolSession session, Function function, VmList inputs, VmList outputs,
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
        try (ToolSession session = new ToolSession(instance, drivers, modules, List.of());
                FunctionIo io = new FunctionIo(session.device(), false);
                CoarseFences fences = CoarseFences.forFunction(function, session)) {
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

    private int runModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("run-module", args, union(RUN_VALUE_FLAGS, RESULT_FLAGS), RUN_BOOL_FLAGS);
        if (deviceListing(flags, out)) {
            return Cli.EXIT_OK;
        }
        long maxElements = RunFlags.positiveInt(flags.get("output_max_element_count", "1024"), "--output_max_element_count");
        FunctionIo.Tolerance tolerance = RunFlags.tolerance(flags);
        List<Module> modules = loadModules("run-module", flags);
        Function function = selectFunction("run-module", modules.get(modules.size() - 1), flags.get("function", ""));
        int exit;
        String statistics;
        try (TraceFile trace = TraceFile.start(flags.get("trace_file", "")); // written after the session closed
                ToolSession session = new ToolSession(instance, drivers, modules, flags.all("device"),
                        flags.all("parameters"), HostMemoryFlag.parse(flags))) {
            try (FunctionIo io = new FunctionIo(session.device(), false);
                    CoarseFences fences = CoarseFences.forFunction(function, session)) {
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

    private static int processResults(ToolSession session, Function function, VmList outputs, ToolFlags flags,
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

    private int benchmarkModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("benchmark-module", args,
                union(RUN_VALUE_FLAGS, Set.of(), "benchmark_repetitions", "benchmark_min_time",
                        "benchmark_min_warmup_time", "batch_size"),
                RUN_BOOL_FLAGS);
        if (deviceListing(flags, out)) {
            return Cli.EXIT_OK;
        }
        int repetitions = RunFlags.positiveInt(flags.get("benchmark_repetitions", "1"), "--benchmark_repetitions");
        int batchSize = RunFlags.positiveInt(flags.get("batch_size", "1"), "--batch_size");
        CallTimer.MinTime minTime = RunFlags.minTime(flags.get("benchmark_min_time", "0.5s"));
        double warmUpSeconds = RunFlags.warmUpTime(flags.get("benchmark_min_warmup_time", RunFlags.DEFAULT_WARMUP));
        List<Module> modules = loadModules("benchmark-module", flags);
        Function function = selectFunction("benchmark-module", modules.get(modules.size() - 1),
                flags.get("function", ""));
        String statistics;
        try (TraceFile trace = TraceFile.start(flags.get("trace_file", "")); // written after the session closed
                ToolSession session = new ToolSession(instance, drivers, modules, flags.all("device"),
                        flags.all("parameters"), HostMemoryFlag.parse(flags))) {
            try (FunctionIo io = new FunctionIo(session.device(), false);
                    CoarseFences fences = CoarseFences.forFunction(function, session)) {
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
}
