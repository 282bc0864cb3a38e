package dev.ortho.hal.cpu.kernel;

import java.util.List;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * A named set of {@link KernelFunction}s that {@code jvm-static} executables refer to by name
 * (see {@link JvmStaticFormat}). Kernel bundles register implementations as OSGi services with
 * the property {@value #SERVICE_PROPERTY} set to {@link #name()}; CPU devices track them and
 * resolve executables against the libraries present when the executable is prepared. In plain
 * Java, pass libraries to {@code dev.ortho.hal.cpu.CpuDrivers.Builder#kernelLibrary}.
 *
 * <p>Implementations are immutable and thread-safe: {@link #name()} and {@link #functions()}
 * return the same values for the library's whole life.
 */
@ConsumerType
public interface KernelLibrary {

    /** The service property naming the library, {@value}. */
    String SERVICE_PROPERTY = "hal.executable.library";

    /** The library name used in {@code jvm-static} executables, e.g. {@code builtin}. */
    String name();

    /** The library's functions in ordinal order; names are unique. */
    List<KernelFunction> functions();
}
