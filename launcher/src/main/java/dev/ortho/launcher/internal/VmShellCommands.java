package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.List;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * Gogo commands {@code vm:load <file>} and {@code vm:invoke <module.function> <args...>}.
 *
 * <p>{@code vm:load} loads a {@code .vmfb} (or assembles a {@code .vmasm}) against the shared
 * {@link Instance} and keeps it, replacing an earlier module of the same name;
 * {@code vm:invoke} links every loaded module, in load order, into a fresh context and invokes
 * the function with arguments in {@code run-module}'s {@code --input} syntax (scalars,
 * {@code (null)}, {@code 2x2xf32=1 2 3 4}, {@code @file.npy}, …; the {@code hal} module over the
 * default device is added when a module needs it), returning {@code run-module}'s text
 * ({@code EXEC @f}, {@code result[0]: i32=5}). A thin adapter over {@link VmTools}; thread-safe (commands are
 * serialized on this object). Immediate, so the loaded modules survive between commands (a
 * delayed component would be disposed whenever the shell releases the service).
 *
 * <p>How loaded modules execute ({@code off}, {@code lazy}, {@code eager}: interpreted, or
 * compiled to JVM classes, see {@link ExecutionMode}) comes from ConfigAdmin PID
 * {@value #PID}, property {@code vm_compile} (default {@code off}, as the tools' {@code --vm_compile}),
 * or per module from {@code vm:load --vm_compile=eager m.vmfb}.
 */
@Component(service = VmShellCommands.class, immediate = true, configurationPid = VmShellCommands.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL, property = {
            "osgi.command.scope=vm",
            "osgi.command.function=load",
            "osgi.command.function=invoke"})
@Designate(ocd = VmShellCommands.Config.class)
public final class VmShellCommands {
    /** The configuration PID of the shell's VM commands. */
    public static final String PID = "dev.ortho.launcher.vm";

    /** Configuration of {@code vm:load}. */
    @ObjectClassDefinition(name = "Ortho shell VM commands", description = "vm:load and vm:invoke")
    public @interface Config {
        /** {@code vm_compile}: how {@code vm:load} runs modules, unless its --vm_compile says. */
        @AttributeDefinition(description = "How modules loaded by vm:load execute: off (interpreted), lazy"
                + " (compiled to JVM classes once hot), eager (compiled at load)",
                options = {@Option(value = "off"), @Option(value = "lazy"), @Option(value = "eager")})
        String vm__compile() default "off";
    }

    private final VmTools tools;
    private final ExecutionMode execution;
    private final List<Module> loaded = new ArrayList<>();

    /** Instruction extension services; replaced on change. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile List<InstructionExtension> extensions;

    /** @throws StatusException INVALID_ARGUMENT if the configured {@code vm_compile} is not off, lazy or eager */
    @Activate
    public VmShellCommands(@Reference Instance instance, @Reference DriverRegistry registry, Config config) {
        this.execution = VmTools.executionMode("configuration property vm_compile", config.vm__compile());
        this.tools = new VmTools(instance, registry, () -> extensions == null ? List.of() : List.copyOf(extensions),
                () -> System.in);
    }

    /** Forgets the loaded modules and drops the tools' hal type registration. */
    @Deactivate
    synchronized void deactivate() {
        loaded.clear();
        tools.close();
    }

    /**
     * {@code vm:load [--vm_compile=off|lazy|eager] file}.
     *
     * @throws StatusException INVALID_ARGUMENT for a bad mode, no file or more than one
     */
    @Descriptor("load a module (.vmfb, or .vmasm assembled on the fly) for vm:invoke")
    public synchronized String load(@Descriptor("[--vm_compile=off|lazy|eager] module file: interpret, or compile"
            + " to JVM classes (default: configuration property vm_compile)") String... args) {
        ExecutionMode mode = execution;
        String file = null;
        for (String arg : args) {
            if (arg.startsWith("--vm_compile=")) {
                mode = VmTools.executionMode("--vm_compile", arg.substring("--vm_compile=".length()));
            } else if (file == null) {
                file = arg;
            } else {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "vm:load takes one module file; got '" + file
                        + "' and '" + arg + "'");
            }
        }
        if (file == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "vm:load: no module file given");
        }
        Module module = tools.load(file, BytecodeModule.Options.DEFAULT.withExecution(mode));
        loaded.removeIf(m -> m.name().equals(module.name()));
        loaded.add(module);
        List<String> names = new ArrayList<>();
        for (Function f : module.exports()) {
            names.add(f.name());
        }
        return "loaded module '" + module.name() + "' version " + module.version() + " (vm_compile="
                + mode.name().toLowerCase(java.util.Locale.ROOT) + "), exports " + names;
    }

    @Descriptor("invoke an exported function of a loaded module (arguments in run-module --input syntax)")
    public synchronized String invoke(@Descriptor("module.function") String function,
            @Descriptor("arguments: scalars, (null), buffer views such as 2x2xf32=1 2 3 4, @file.npy") String... args) {
        return tools.invoke(List.copyOf(loaded), function, List.of(args));
    }
}
