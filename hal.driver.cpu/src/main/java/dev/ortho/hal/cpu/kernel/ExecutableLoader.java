package dev.ortho.hal.cpu.kernel;

import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableParams;
import java.util.Set;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Prepares executables of one or more formats for the CPU devices ({@code local-sync},
 * {@code local-task}): IREE's {@code iree_hal_executable_loader_t}. The CPU driver bundle
 * registers the {@code vmvx-bytecode-fb} and {@code jvm-static} loaders; any bundle may add more
 * by registering an implementation as an OSGi service with the property
 * {@value #SERVICE_PROPERTY} listing {@link #formats()} (in plain Java, give loaders to
 * {@code dev.ortho.hal.cpu.CpuDrivers.Builder#loader}).
 *
 * <p>The devices use the loaders present when they are asked: a device's
 * {@code hal.executable.format} query answers 1 for a format if any loader lists it, its
 * executable caches' {@code canPrepareFormat} likewise, and {@code prepareExecutable} tries the
 * loaders that list the format in the order the driver learned of them (IREE: registration
 * order; in plain Java the builtin loaders, then those given to the builder): the first result
 * wins; a loader that fails with NOT_FOUND or CANCELLED passes the executable on to the next
 * loader (as in IREE: "not one of mine"), any other failure is final. A loader service that
 * goes away is used for no further preparation; executables it prepared stay valid for as long
 * as their holders keep them.
 *
 * <p>Implementations are thread-safe: several threads may load executables (even the same data)
 * at once.
 */
@ConsumerType
public interface ExecutableLoader {

    /** The service property listing the formats of a loader service, {@value} (String or String[]). */
    String SERVICE_PROPERTY = "hal.executable.format";

    /**
     * The executable formats this loader may load, e.g. {@code vmvx-bytecode-fb} (IREE's
     * {@code query_support}); the same set for the loader's whole life. Loading may still fail for
     * an executable that needs features the host lacks.
     */
    Set<String> formats();

    /**
     * Prepares {@code params}, whose format is one of {@link #formats()}. The data is borrowed for
     * the call only (copy what must outlive it). The caller owns the result (reference count 1).
     *
     * @param context the preparing device's cache and options; borrowed for the call
     * @throws StatusException NOT_FOUND or CANCELLED if this loader does not provide this
     *     particular executable (the next loader for the format is tried); INVALID_ARGUMENT for
     *     malformed data and other codes for other failures, which fail the preparation
     */
    KernelExecutable load(ExecutableParams params, LoaderContext context);

}
