package dev.ortho.hal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Prepares executables for one device, possibly caching them: IREE's
 * {@code iree_hal_executable_cache_t}. Thread-safe.
 */
@ProviderType
public interface ExecutableCache extends Resource {

    /** Whether this device can prepare executables of {@code format}. Cheap. */
    boolean canPrepareFormat(String format);

    /**
     * Prepares an executable. The caller owns the result.
     *
     * @throws dev.ortho.base.StatusException INCOMPATIBLE if the format is not supported here,
     *     INVALID_ARGUMENT (naming what is wrong) for malformed data, NOT_FOUND if the data names
     *     something missing (e.g. a kernel library that is not installed)
     */
    Executable prepareExecutable(ExecutableParams params);
}
