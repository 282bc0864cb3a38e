package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.Variant;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.Disassembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleTestRunner;
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
    private final Supplier<List<InstructionExtension>> extensions;
    private final Supplier<InputStream> stdin;

    VmTools(Instance instance, Supplier<List<InstructionExtension>> extensions, Supplier<InputStream> stdin) {
        this.instance = instance;
        this.extensions = extensions;
        this.stdin = stdin;
    }

    /** The subcommands by name, in help order. */
    Map<String, Cli.Subcommand> subcommands() {
        Map<String, Cli.Subcommand> map = new LinkedHashMap<>();
        map.put("as-module", tool("assemble VMASM into a .vmfb (--output=x.vmfb x.vmasm|-)", this::asModule));
        map.put("dump-module", tool("print a .vmfb (--output=all|metadata|disassembly|flatbuffer-json|...)",
                this::dumpModule));
        map.put("check-module", tool("run every export as a test ([--module=dep.vmfb ...] x.vmfb|x.vmasm)",
                this::checkModule));
        map.put("run-module", tool("invoke a function (--module=x.vmfb --function=f --input=5 ...)", this::runModule));
        map.put("benchmark-module", tool("time a function (run-module flags, --benchmark_repetitions=N)",
                this::benchmarkModule));
        return map;
    }

    private interface Body {
        int run(List<String> args, PrintStream out, PrintStream err);
    }

    private static Cli.Subcommand tool(String summary, Body body) {
        return new Cli.Subcommand() {
            @Override
            public String summary() {
                return summary;
            }

            @Override
            public int run(List<String> args, PrintStream out, PrintStream err) {
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
        writeFile(Path.of(output), BytecodeArchive.write(module));
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

    private static void writeFile(Path path, byte[] bytes) {
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
                Set.of("bytecode_offsets", "pretty"));
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
                            flags.isSet("bytecode_offsets"));
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

    private MemorySegment readArchive(String file) {
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

    // ---------------------------------------------------------------- shared module loading

    /** Loads a module file: {@code .vmasm} is assembled, anything else read as an archive. */
    Module load(String file) {
        ModuleDef def;
        if (file.endsWith(".vmasm")) {
            def = assemble(file);
        } else if (file.equals("-")) {
            def = BytecodeArchive.read(readStdin());
        } else {
            def = BytecodeArchive.read(Path.of(file));
        }
        return BytecodeModule.create(instance, def, extensions.get());
    }

    // ---------------------------------------------------------------- check-module

    private int checkModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("check-module", args, Set.of("module"), Set.of("expect_failure"));
        List<String> files = new ArrayList<>(flags.all("module"));
        files.addAll(flags.positional());
        if (files.isEmpty()) {
            err.println("Syntax: ortho check-module [--module=dep.vmfb ...] module.vmfb|module.vmasm");
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected a module to check");
        }
        List<Module> modules = new ArrayList<>();
        for (String file : files) {
            modules.add(load(file));
        }
        Module main = modules.remove(modules.size() - 1);
        // As IREE's check-module: internal (__init, ...) and special ($-containing) exports are not
        // tests, and every test takes no arguments and returns nothing.
        java.util.function.Predicate<Function> isTest = f -> !f.name().startsWith("__") && f.name().indexOf('$') < 0;
        for (Function f : main.exports()) {
            if (isTest.test(f) && (!f.cconv().arguments().types().isEmpty() || !f.cconv().results().types().isEmpty())) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected function with no inputs or outputs, "
                        + "but export '" + f.name() + "' has signature '" + f.cconv().text() + "'");
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

    /** A linked context and the function the flags name; closing releases the context. */
    private record Target(Context context, Function function, List<String> inputs) implements AutoCloseable {
        @Override
        public void close() {
            context.close();
        }
    }

    private Target target(String tool, ToolFlags flags) {
        List<String> files = new ArrayList<>(flags.all("module"));
        files.addAll(flags.positional());
        if (files.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, tool + ": no --module= specified");
        }
        Module[] modules = new Module[files.size()];
        for (int i = 0; i < modules.length; i++) {
            modules[i] = load(files.get(i));
        }
        Module main = modules[modules.length - 1];
        String name = flags.get("function", "");
        if (name.isEmpty()) {
            if (main.exports().size() != 1) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, tool + ": no --function= specified; module '"
                        + main.name() + "' exports " + exportNames(main));
            }
            name = main.exports().get(0).name();
        }
        Function function = main.lookupExport(name);
        if (function == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "no function `" + name + "` exported by module '"
                    + main.name() + "' (exports: " + exportNames(main) + ")");
        }
        return new Target(Context.create(instance, modules), function, flags.all("input"));
    }

    private static String exportNames(Module module) {
        List<String> names = new ArrayList<>();
        for (Function f : module.exports()) {
            names.add(f.name());
        }
        return names.toString();
    }

    private static VmList parseInputs(Function function, List<String> inputs) {
        String types = function.cconv().arguments().types();
        if (function.cconv().arguments().isVariadic()) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "variadic function `" + function.name()
                    + "` cannot be invoked from the command line");
        }
        if (inputs.size() != types.length()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function `" + function.name() + "` (cconv '"
                    + function.cconv().text() + "') takes " + types.length() + " arguments but " + inputs.size()
                    + " --input= values were given");
        }
        VmList list = VmList.ofVariants(inputs.size());
        for (int i = 0; i < inputs.size(); i++) {
            try {
                Variant value = ScalarText.parse(inputs.get(i), types.charAt(i));
                list.pushValueBits(value.valueType(), value.bits());
            } catch (StatusException e) {
                throw e.annotate("parsing input `" + inputs.get(i).strip() + "`");
            }
        }
        return list;
    }

    /**
     * Invokes {@code qualifiedName} ({@code module.function}) in a fresh context over
     * {@code modules} (registered in order) with scalar {@code inputs}; returns the
     * {@code EXEC @f} line and one {@code result[i]: …} line per result.
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
            throw new StatusException(StatusCode.NOT_FOUND, "no module '" + moduleName + "' is loaded");
        }
        Function function = module.lookupExport(qualifiedName.substring(dot + 1));
        if (function == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "no function `" + qualifiedName.substring(dot + 1)
                    + "` exported by module '" + moduleName + "' (exports: " + exportNames(module) + ")");
        }
        try (Context context = Context.create(instance, modules.toArray(Module[]::new))) {
            VmList in = parseInputs(function, inputs);
            VmList outputs = VmList.ofVariants(4);
            StringBuilder text = new StringBuilder("EXEC @").append(function.name());
            try {
                Invocation.invoke(context, function, in, outputs);
            } catch (StatusException e) {
                throw e.annotate("invoking function '" + function.name() + "'");
            }
            for (int i = 0; i < outputs.size(); i++) {
                text.append("\nresult[").append(i).append("]: ").append(ScalarText.format(outputs.getVariant(i)));
            }
            outputs.release();
            in.release();
            return text.toString();
        }
    }

    private int runModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("run-module", args, Set.of("module", "function", "input"), Set.of());
        try (Target target = target("run-module", flags)) {
            VmList inputs = parseInputs(target.function(), target.inputs());
            VmList outputs = VmList.ofVariants(4);
            out.println("EXEC @" + target.function().name());
            out.flush();
            try {
                Invocation.invoke(target.context(), target.function(), inputs, outputs);
            } catch (StatusException e) {
                throw e.annotate("invoking function '" + target.function().name() + "'");
            }
            for (int i = 0; i < outputs.size(); i++) {
                out.println("result[" + i + "]: " + ScalarText.format(outputs.getVariant(i)));
            }
            outputs.release();
            inputs.release();
            return Cli.EXIT_OK;
        }
    }

    private int benchmarkModule(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("benchmark-module", args,
                Set.of("module", "function", "input", "benchmark_repetitions", "benchmark_min_time"), Set.of());
        int repetitions = positiveInt(flags.get("benchmark_repetitions", "1"), "--benchmark_repetitions");
        double minSeconds = minTime(flags.get("benchmark_min_time", "0.5s"));
        try (Target target = target("benchmark-module", flags)) {
            VmList inputs = parseInputs(target.function(), target.inputs());
            VmList outputs = VmList.ofVariants(4);
            CallTimer timer = new CallTimer(() -> Invocation.invoke(target.context(), target.function(), inputs, outputs));
            String name = "BM_" + target.function().name() + "/process_time/real_time";
            List<CallTimer.Run> runs = new ArrayList<>();
            for (int r = 0; r < repetitions; r++) {
                runs.add(timer.measure(minSeconds));
            }
            out.print(CallTimer.report(name, runs));
            outputs.release();
            inputs.release();
            return Cli.EXIT_OK;
        }
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

    private static double minTime(String text) {
        String number = text.endsWith("s") ? text.substring(0, text.length() - 1) : text;
        try {
            double seconds = Double.parseDouble(number);
            if (seconds > 0 && seconds <= 3600) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                "--benchmark_min_time must be a duration in seconds such as 0.5s (at most 3600s), got '" + text + "'");
    }
}
