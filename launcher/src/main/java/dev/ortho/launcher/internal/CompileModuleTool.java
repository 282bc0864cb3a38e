package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Instance;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.PrecompiledModule;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * {@code ortho compile-module --output=m.jar m.vmfb}: compiles a module's functions to JVM
 * classes ahead of time and writes them with the module into one OSGi bundle
 * ({@link PrecompiledModule}); installing the bundle makes the module a module provider with
 * nothing left to translate. {@code --bundle_symbolic_name=} and {@code --bundle_version=}
 * override the derived bundle identity; {@code --report} prints which functions compiled.
 *
 * <p>Plain Java; not thread-safe (one run at a time, as every tool).
 */
final class CompileModuleTool {
    private final Instance instance;
    private final Supplier<List<InstructionExtension>> extensions;
    private final Function<String, MemorySegment> archives;

    /** @param archives reads a module file as the other tools do ({@code .vmasm} assembled, {@code -} stdin) */
    CompileModuleTool(Instance instance, Supplier<List<InstructionExtension>> extensions,
                      Function<String, MemorySegment> archives) {
        this.instance = instance;
        this.extensions = extensions;
        this.archives = archives;
    }

    int run(List<String> args, PrintStream out, PrintStream err) {
        ToolFlags flags = ToolFlags.parse("compile-module", args,
                Set.of("output", "bundle_symbolic_name", "bundle_version"), Set.of("report"));
        String output = flags.get("output", "");
        if (flags.positional().size() != 1 || output.isEmpty()) {
            err.println("Syntax: ortho compile-module --output=module.jar module.vmfb|module.vmasm");
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "compile-module: expected one input file and --output"
                    + (flags.positional().size() > 1 ? ", got " + flags.positional().size() + " input files" : ""));
        }
        String input = flags.positional().get(0);
        byte[] archive = archives.apply(input).toArray(ValueLayout.JAVA_BYTE);
        long start = System.nanoTime();
        PrecompiledModule module;
        try {
            module = PrecompiledModule.compile(instance, archive, extensions.get());
        } catch (StatusException e) {
            throw e.annotate("while compiling '" + (input.equals("-") ? "<stdin>" : input) + "'");
        }
        byte[] jar = module.toBundle(flags.get("bundle_symbolic_name", module.symbolicName()),
                flags.get("bundle_version", module.bundleVersion()));
        long nanos = System.nanoTime() - start;
        if (output.equals("-")) {
            out.write(jar, 0, jar.length);
            out.flush();
        } else {
            ModuleFiles.writeFile(Path.of(output), jar);
        }
        if (flags.isSet("report")) {
            PrintStream to = output.equals("-") ? err : out;
            List<String> report = module.compilationReport();
            long compiled = report.stream().filter(r -> r == null).count();
            to.printf("module '%s' version %d: %d of %d functions compiled, %d class bytes, bundle %s %d bytes,"
                            + " %.1f ms%n", module.moduleName(), module.moduleVersion(), compiled, report.size(),
                    module.classSize(), output, jar.length, nanos / 1e6);
            BytecodeModule.CompilationStatistics stats = module.compilationStatistics();
            to.printf("  translation %.1f ms%n", stats.compileNanos() / 1e6);
            for (int i = 0; i < stats.functions().size(); i++) {
                BytecodeModule.CompiledFunction fn = stats.functions().get(i);
                if (fn.interpretedBecause() != null) {
                    to.printf("  function %d %s interpreted: %s%n", i, fn.name(), fn.interpretedBecause());
                } else {
                    to.printf("  function %d %s: %d JVM method%s, %d bytes of bytecode, %.2f ms%n", i, fn.name(),
                            fn.jvmMethods(), fn.jvmMethods() == 1 ? "" : "s (split)", fn.bytecodeBytes(),
                            fn.compileNanos() / 1e6);
                }
            }
        }
        return Cli.EXIT_OK;
    }
}
