package dev.ortho.runtime;

import dev.ortho.hal.DriverRegistry;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The entry point of the embedding API: loads IREE modules ({@code .vmfb} archives or VMASM
 * text) as {@link Program}s on devices picked by URI. It owns one VM instance (type registry)
 * that its programs share.
 *
 * <p>Without a framework, {@link #create()} builds everything: the {@code local-sync} and
 * {@code local-task} drivers and the ExtF32/ExtF64 instruction extensions. Inside OSGi the
 * runtime bundle registers an {@code OrthoRuntime} service over the {@link DriverRegistry}
 * service (every installed driver) and the instruction extension services; get it like any
 * service and do not close it.
 *
 * <p>Ownership: the caller owns a runtime from {@link #create} and closes it; closing it closes
 * every program it loaded that is still open, then releases its drivers' devices. Each
 * {@link Program} is owned by the caller of {@code load}. Thread-safe: any number of threads may
 * load and run programs at once.
 */
@ProviderType
public interface OrthoRuntime extends AutoCloseable {

    /**
     * A runtime with its own {@code local-sync} and {@code local-task} drivers and the builtin
     * instruction extensions, for plain Java (no framework). Starts no thread until a
     * {@code local-task} device is created.
     */
    static OrthoRuntime create() {
        return PlainDrivers.runtime();
    }

    /**
     * A runtime over {@code drivers} (for example one with the remote driver or the validation
     * wrapper registered); {@code extensions} is read whenever a module is loaded. The caller
     * keeps ownership of the registry and its factories.
     */
    static OrthoRuntime create(DriverRegistry drivers,
            Supplier<? extends List<? extends InstructionExtension>> extensions) {
        return new DefaultRuntime(drivers, extensions, List.of());
    }

    /** The names of the registered drivers ({@code local-sync}, {@code local-task}, …). */
    List<String> drivers();

    /**
     * Loads the module file {@code module}: a {@code .vmfb} archive (mapped, not copied) or VMASM
     * source (a {@code .vmasm} name, or text that is not an archive), links it after the
     * {@code hal} module on {@code options}' devices and the {@code io_parameters} module over its
     * archives when it needs them, and runs its initializers. The caller owns the program.
     *
     * @throws StatusException NOT_FOUND if the file, a driver or a parameter archive is missing;
     *     INVALID_ARGUMENT (and the other codes of the bytecode verifier and assembler) for a bad
     *     module, naming the file; FAILED_PRECONDITION once the runtime is closed; what the
     *     module's initializer throws
     */
    Program load(Path module, ProgramOptions options);

    /** As {@link #load(Path, ProgramOptions)} with {@link ProgramOptions#defaults()}. */
    default Program load(Path module) {
        return load(module, ProgramOptions.defaults());
    }

    /** As {@link #load(Path, ProgramOptions)} for a module's bytes (copied; archive or VMASM text). */
    Program load(byte[] module, ProgramOptions options);

    /**
     * As {@link #load(Path, ProgramOptions)} for a module in {@code module}, which is borrowed
     * without a copy: keep it alive and unchanged until the program is closed. A 64-byte-aligned
     * native segment lets devices that use host memory import its constants without a copy.
     */
    Program load(MemorySegment module, ProgramOptions options);

    /** Closes every program still open and releases the runtime's drivers; idempotent. */
    @Override
    void close();
}
