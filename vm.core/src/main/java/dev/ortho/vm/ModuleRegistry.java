package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.spi.ModuleProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The modules installed in the system, by name and version, from {@link ModuleProvider}s (added
 * by the DS component that tracks the services, or by hand without OSGi).
 *
 * <p>Rule on removal: a provider that goes away (its bundle stops or is uninstalled) can no longer
 * satisfy new links, which then fail with NOT_FOUND; contexts that already linked its module keep
 * the module object and its state until they are closed, so running invocations stay consistent.
 * Its bundle is responsible for failing calls cleanly (e.g. UNAVAILABLE) if it tears down
 * resources the module uses.
 *
 * <p>Thread-safe: providers may come and go while contexts link. Not meant to be subclassed
 * outside this bundle (its DS component extends it to be the service object).
 */
@org.osgi.annotation.versioning.ProviderType
public class ModuleRegistry {
    /**
     * One installed module provider.
     *
     * @param name module name
     * @param version module version
     * @param provider the provider
     * @param source where the provider comes from, for listings (e.g. the providing bundle:
     *     {@code dev.example.mod 1.0.0 [42]}); empty if unknown
     */
    public record Entry(String name, int version, ModuleProvider provider, String source) { }

    private final List<Entry> entries = new CopyOnWriteArrayList<>();

    /** Creates an empty registry. */
    public ModuleRegistry() {
    }

    /** Adds a provider of module {@code name} at {@code version} with no recorded source. */
    public void add(String name, int version, ModuleProvider provider) {
        add(name, version, provider, "");
    }

    /**
     * Adds a provider of module {@code name} at {@code version}; {@code source} describes where
     * it comes from (listed by {@link #entries()}, never interpreted).
     */
    public void add(String name, int version, ModuleProvider provider, String source) {
        entries.add(new Entry(Objects.requireNonNull(name, "name"), version,
                Objects.requireNonNull(provider, "provider"), Objects.requireNonNull(source, "source")));
    }

    /** Removes {@code provider} (no-op if absent). */
    public void remove(ModuleProvider provider) {
        entries.removeIf(e -> e.provider == provider);
    }

    /**
     * A snapshot of every installed provider, sorted by module name, then newest version first,
     * then source. Lists only: no provider is asked to create anything.
     */
    public List<Entry> entries() {
        List<Entry> out = new ArrayList<>(entries);
        out.sort(Comparator.comparing(Entry::name)
                .thenComparing(Comparator.comparingInt(Entry::version).reversed())
                .thenComparing(Entry::source));
        return out;
    }

    /** Installed modules: name to highest available version. */
    public Map<String, Integer> modules() {
        Map<String, Integer> out = new TreeMap<>();
        for (Entry e : entries) {
            out.merge(e.name, e.version, Math::max);
        }
        return out;
    }

    /**
     * Creates the highest-versioned module named {@code name} with at least
     * {@code minimumVersion}.
     *
     * @throws StatusException NOT_FOUND "no module provider for 'x'" or "… version mismatch; have
     *     N but require M"
     */
    public Module create(Instance instance, String name, int minimumVersion) {
        Entry best = null;
        for (Entry e : entries) {
            if (e.name.equals(name) && (best == null || e.version > best.version)) {
                best = e;
            }
        }
        if (best == null) {
            throw new StatusException(StatusCode.NOT_FOUND, "no module provider for '" + name + "'");
        }
        if (best.version < minimumVersion) {
            throw new StatusException(StatusCode.NOT_FOUND, "required module '" + name
                    + "' version mismatch; have " + best.version + " but require " + minimumVersion);
        }
        return best.provider.createModule(instance);
    }

    /**
     * Registers {@code modules} in {@code context}, first registering (recursively, dependencies
     * first) every required dependency the context lacks, created from this registry.
     *
     * @throws StatusException NOT_FOUND if a dependency has no provider, else as
     *     {@link Context#registerModules}
     */
    public void registerWithDependencies(Context context, Module... modules) {
        List<Module> order = new ArrayList<>();
        for (Module m : modules) {
            addWithDependencies(context, m, order, 0);
        }
        context.registerModules(order.toArray(Module[]::new));
    }

    private void addWithDependencies(Context context, Module module, List<Module> order, int depth) {
        if (depth > 64) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "module dependency chain too deep at '" + module.name() + "'");
        }
        for (ModuleDependency dep : module.dependencies()) {
            if (!dep.required() || present(context, order, dep.name())) {
                continue;
            }
            addWithDependencies(context, create(context.instance(), dep.name(), dep.minimumVersion()), order, depth + 1);
        }
        order.add(module);
    }

    private static boolean present(Context context, List<Module> order, String name) {
        for (Module m : context.modules()) {
            if (m.name().equals(name)) {
                return true;
            }
        }
        for (Module m : order) {
            if (m.name().equals(name)) {
                return true;
            }
        }
        return false;
    }
}
