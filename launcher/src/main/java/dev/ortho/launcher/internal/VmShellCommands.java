package dev.ortho.launcher.internal;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.List;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

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
 */
@Component(service = VmShellCommands.class, immediate = true, property = {
    "osgi.command.scope=vm",
    "osgi.command.function=load",
    "osgi.command.function=invoke"})
public final class VmShellCommands {
    private final VmTools tools;
    private final List<Module> loaded = new ArrayList<>();

    /** Instruction extension services; replaced on change. */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    volatile List<InstructionExtension> extensions;

    @Activate
    public VmShellCommands(@Reference Instance instance, @Reference DriverRegistry registry) {
        this.tools = new VmTools(instance, registry, () -> extensions == null ? List.of() : List.copyOf(extensions),
                () -> System.in);
    }

    /** Forgets the loaded modules and drops the tools' hal type registration. */
    @Deactivate
    synchronized void deactivate() {
        loaded.clear();
        tools.close();
    }

    @Descriptor("load a module (.vmfb, or .vmasm assembled on the fly) for vm:invoke")
    public synchronized String load(@Descriptor("module file") String file) {
        Module module = tools.load(file);
        loaded.removeIf(m -> m.name().equals(module.name()));
        loaded.add(module);
        List<String> names = new ArrayList<>();
        for (Function f : module.exports()) {
            names.add(f.name());
        }
        return "loaded module '" + module.name() + "' version " + module.version() + ", exports " + names;
    }

    @Descriptor("invoke an exported function of a loaded module (arguments in run-module --input syntax)")
    public synchronized String invoke(@Descriptor("module.function") String function,
            @Descriptor("arguments: scalars, (null), buffer views such as 2x2xf32=1 2 3 4, @file.npy") String... args) {
        return tools.invoke(List.copyOf(loaded), function, List.of(args));
    }
}
