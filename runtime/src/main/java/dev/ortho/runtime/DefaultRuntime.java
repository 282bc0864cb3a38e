package dev.ortho.runtime;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The plain {@link OrthoRuntime}: one VM instance (with the hal types registered for its life),
 * a driver registry it borrows, and the objects it owns ({@code owned}: driver factories closed
 * with it). Thread-safe; programs in flight are tracked so {@link #close()} can close them.
 */
final class DefaultRuntime implements OrthoRuntime {
    private final Instance instance = new Instance();
    private final DriverRegistry drivers;
    private final Supplier<? extends List<? extends InstructionExtension>> extensions;
    private final List<Object> owned;
    private final Set<Program> programs = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    DefaultRuntime(DriverRegistry drivers, Supplier<? extends List<? extends InstructionExtension>> extensions,
            List<Object> owned) {
        this.drivers = Objects.requireNonNull(drivers, "drivers");
        this.extensions = Objects.requireNonNull(extensions, "extensions");
        this.owned = List.copyOf(owned);
        // Modules that use the hal module name its types at load time; the registration is
        // counted, so this one (held for the runtime's life) coexists with every program's own.
        HalTypes.register(instance);
    }

    @Override
    public List<String> drivers() {
        List<String> names = new ArrayList<>();
        for (DriverInfo info : drivers.enumerate()) {
            names.add(info.name());
        }
        return names;
    }

    @Override
    public Program load(Path module, ProgramOptions options) {
        String name = module.toString();
        if (name.endsWith(".vmasm")) {
            requireOpen();
            return open(assembler().assemble(module), name, options);
        }
        MemorySegment bytes;
        try (FileChannel channel = FileChannel.open(module, StandardOpenOption.READ)) {
            bytes = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), Arena.ofAuto());
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "module file '" + name + "' does not exist", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read module file '" + name + "': "
                    + e.getMessage(), e);
        }
        return load(bytes, name, options);
    }

    @Override
    public Program load(byte[] module, ProgramOptions options) {
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(1, module.length), 64).asSlice(0, module.length);
        copy.copyFrom(MemorySegment.ofArray(module));
        return load(copy, "<bytes>", options);
    }

    @Override
    public Program load(MemorySegment module, ProgramOptions options) {
        return load(module, "<memory>", options);
    }

    private Program load(MemorySegment bytes, String name, ProgramOptions options) {
        requireOpen();
        ModuleDef def;
        if (isText(bytes)) {
            String text = new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
            def = assembler().assemble(text, name);
        } else {
            try {
                def = BytecodeArchive.read(bytes);
            } catch (StatusException e) {
                throw e.annotate("while loading '" + name + "'");
            }
        }
        return open(def, name, options);
    }

    private Program open(ModuleDef def, String name, ProgramOptions options) {
        Module main;
        try {
            main = BytecodeModule.create(instance, def, extensions.get(),
                    BytecodeModule.Options.DEFAULT.withExecution(options.execution()));
        } catch (StatusException e) {
            throw e.annotate("while loading '" + name + "'");
        }
        Program program = Program.open(instance, drivers, main, options, programs::remove);
        programs.add(program);
        if (closed.get()) { // raced with close(): it may not have seen this program
            program.close();
            requireOpen();
        }
        return program;
    }

    private Assembler assembler() {
        return new Assembler(List.copyOf(extensions.get()));
    }

    /**
     * Whether {@code bytes} are VMASM text rather than an IREE archive: neither a ZIP local header
     * ({@code PK\3\4}) nor the {@code IREE} FlatBuffer identifier after the 4-byte size prefix,
     * and no NUL byte in the first 4 KiB (a binary archive has one in its size prefix).
     */
    static boolean isText(MemorySegment bytes) {
        long size = bytes.byteSize();
        if (size == 0) {
            return false;
        }
        if (size >= 4 && bytes.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0) == 0x04034b50) {
            return false;
        }
        if (size >= 12) {
            byte[] id = bytes.asSlice(8, 4).toArray(ValueLayout.JAVA_BYTE);
            if (new String(id, StandardCharsets.ISO_8859_1).equals("IREE")) {
                return false;
            }
        }
        long end = Math.min(size, 4096);
        for (long i = 0; i < end; i++) {
            if (bytes.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return false;
            }
        }
        return true;
    }

    private void requireOpen() {
        if (closed.get()) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "the Ortho runtime is closed");
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (Program program : List.copyOf(programs)) {
            program.close();
        }
        HalTypes.unregister(instance);
        for (Object object : owned) {
            if (object instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    throw new StatusException(StatusCode.INTERNAL, "closing " + object + ": " + e.getMessage(), e);
                }
            }
        }
    }
}
