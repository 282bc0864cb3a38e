package dev.ortho.vm;

import java.util.Objects;

/**
 * A module's dependency on another module by name (IREE's {@code iree_vm_module_dependency_t}).
 * A required dependency must be registered earlier in the context with at least
 * {@code minimumVersion}; an optional one may be absent (its imports must then be optional).
 *
 * @param name module name, e.g. {@code hal}
 * @param minimumVersion lowest acceptable {@link Module#version()}
 * @param required true for REQUIRED, false for OPTIONAL
 */
public record ModuleDependency(String name, int minimumVersion, boolean required) {
    /** Validates the name. */
    public ModuleDependency {
        Objects.requireNonNull(name, "name");
    }
}
