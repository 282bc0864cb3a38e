package dev.ortho.vm.spi;

import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A whiteboard service that makes a VM module available to contexts (the HAL module, the
 * {@code vmvx} microkernels, user modules). Register it with the service properties
 * {@value #NAME} (module name, String) and {@value #VERSION} (module version, Integer);
 * {@link dev.ortho.vm.ModuleRegistry} tracks these services.
 *
 * <p>Implemented by bundles; must be thread-safe. Creation may be expensive; listing providers
 * never calls it.
 */
@ConsumerType
public interface ModuleProvider {
    /** Service property: the module name. */
    String NAME = "vm.module.name";
    /** Service property: the module version. */
    String VERSION = "vm.module.version";

    /**
     * Creates (or returns a shared, immutable) module for {@code instance}; the module's
     * {@link Module#name()} and {@link Module#version()} must match the service properties.
     *
     * @throws dev.ortho.base.StatusException on failure (e.g. a required ref type is missing)
     */
    Module createModule(Instance instance);
}
