package dev.ortho.vm.internal.osgi;

import dev.ortho.vm.Instance;
import dev.ortho.vm.ModuleRegistry;
import dev.ortho.vm.RefType;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Gogo commands in scope {@code vm}; each returns its text and the shell prints it.
 *
 * <ul>
 *   <li>{@code vm:modules}: every installed {@link dev.ortho.vm.spi.ModuleProvider} the
 *       {@link ModuleRegistry} service tracks, one {@code name version bundle} row each, by name
 *       then newest version first. Listing never creates a module.
 *   <li>{@code vm:types}: the ref types registered with each {@link Instance} service (vm.core
 *       publishes one shared instance; other bundles may publish more), one block per instance
 *       headed by its {@code service.id}, one {@code name javaClass} row per type.
 * </ul>
 *
 * <p>A thin DS service: plain reads of the registry and instances. Thread-safe.
 */
@Component(service = VmCommands.class, property = {
    "osgi.command.scope=vm",
    "osgi.command.function=modules",
    "osgi.command.function=types"})
public final class VmCommands {
    private final ModuleRegistry registry;
    private final Map<Long, Instance> instances = new ConcurrentSkipListMap<>();

    @Activate
    public VmCommands(@Reference ModuleRegistry registry) {
        this.registry = registry;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addInstance(Instance instance, Map<String, Object> properties) {
        instances.put(serviceId(properties), instance);
    }

    void removeInstance(Instance instance, Map<String, Object> properties) {
        instances.remove(serviceId(properties), instance);
    }

    private static long serviceId(Map<String, Object> properties) {
        return properties.get("service.id") instanceof Long id ? id : -1L;
    }

    /** Lists installed module providers: name, version and providing bundle. */
    public String modules() {
        List<ModuleRegistry.Entry> entries = registry.entries();
        if (entries.isEmpty()) {
            return "no VM module providers are installed";
        }
        int width = "module".length();
        for (ModuleRegistry.Entry e : entries) {
            width = Math.max(width, e.name().length());
        }
        String row = "%-" + width + "s  %7s  %s";
        StringBuilder text = new StringBuilder(String.format(row, "module", "version", "bundle").stripTrailing());
        for (ModuleRegistry.Entry e : entries) {
            text.append('\n').append(String.format(row, e.name(), e.version(),
                    e.source().isEmpty() ? "-" : e.source()));
        }
        return text.toString();
    }

    /** Lists the ref types registered with each instance service. */
    public String types() {
        if (instances.isEmpty()) {
            return "no VM instance is registered";
        }
        StringBuilder text = new StringBuilder();
        for (Map.Entry<Long, Instance> e : instances.entrySet()) {
            List<RefType> types = e.getValue().types();
            if (!text.isEmpty()) {
                text.append('\n');
            }
            text.append("instance ").append(e.getKey()).append(": ").append(types.size())
                    .append(types.size() == 1 ? " type" : " types");
            int width = 0;
            for (RefType t : types) {
                width = Math.max(width, t.name().length());
            }
            for (RefType t : types) {
                text.append('\n').append(String.format("  %-" + width + "s  %s", t.name(), t.javaClass().getName()));
            }
        }
        return text.toString();
    }
}
