package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ExecutionMode;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.PrecompiledModule;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Supplier;

/**
 * Reads the module files named on the tools' command lines: {@code .vmfb} archives (mapped, not
 * copied), {@code .vmasm} sources (or any contents that are not an archive) assembled on the
 * fly, {@code compile-module} bundles ({@code .jar}), and {@code -} for standard input; and
 * writes the tools' output files. Every failure is a {@link StatusException} naming the file.
 *
 * <p>Plain Java; the instruction extensions are read at each call, so a live service list works.
 * Not thread-safe; one tool run at a time.
 */
final class ModuleFiles {
    private final Instance instance;
    private final Supplier<List<InstructionExtension>> extensions;
    private final Supplier<InputStream> stdin;

    ModuleFiles(Instance instance, Supplier<List<InstructionExtension>> extensions, Supplier<InputStream> stdin) {
        this.instance = instance;
        this.extensions = extensions;
        this.stdin = stdin;
    }

    /** Assembles VMASM file {@code input} ({@code -}: standard input). */
    ModuleDef assemble(String input) {
        Assembler assembler = new Assembler(extensions.get());
        if (input.equals("-")) {
            return assembler.assemble(new String(readStdin(), StandardCharsets.UTF_8), "<stdin>");
        }
        return assembler.assemble(Path.of(input));
    }

    private byte[] readStdin() {
        try {
            return stdin.get().readAllBytes();
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read standard input: " + e.getMessage(), e);
        }
    }

    /**
     * Writes {@code bytes} to {@code path}: NOT_FOUND for a missing directory, PERMISSION_DENIED,
     * UNAVAILABLE for any other I/O failure.
     */
    static void writeFile(Path path, byte[] bytes) {
        try {
            Files.write(path, bytes);
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot write '" + path + "': no such directory", e);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "cannot write '" + path + "': access denied", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot write '" + path + "': " + e.getMessage(), e);
        }
    }

    /**
     * The archive bytes of module file {@code file} ({@code -}: standard input). VMASM text (a
     * {@code .vmasm} name, or contents that are not an archive) is assembled into one first.
     */
    MemorySegment readArchive(String file) {
        if (file.endsWith(".vmasm")) {
            return MemorySegment.ofArray(BytecodeArchive.write(assemble(file)));
        }
        MemorySegment bytes = readBytes(file);
        if (isVmasmText(bytes)) {
            return MemorySegment.ofArray(BytecodeArchive.write(assembleText(bytes, file)));
        }
        return bytes;
    }

    private MemorySegment readBytes(String file) {
        if (file.equals("-")) {
            return MemorySegment.ofArray(readStdin());
        }
        try (FileChannel channel = FileChannel.open(Path.of(file), StandardOpenOption.READ)) {
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), Arena.ofAuto());
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "module file '" + file + "' does not exist", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read '" + file + "': " + e.getMessage(), e);
        }
    }

    private ModuleDef assembleText(MemorySegment bytes, String file) {
        String text = new String(bytes.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        return new Assembler(extensions.get()).assemble(text, file.equals("-") ? "<stdin>" : file);
    }

    /**
     * True if {@code bytes} are not an IREE bytecode archive (no ZIP local header {@code PK\3\4},
     * no {@code IREE} FlatBuffer identifier after the 4-byte size prefix) and look like text (no
     * NUL in the first 4 KiB; a size prefix below 16 MiB always has one): then they are VMASM.
     */
    static boolean isVmasmText(MemorySegment bytes) {
        long size = bytes.byteSize();
        if (size >= 4 && bytes.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN), 0)
                == 0x04034b50) {
            return false;
        }
        if (size >= 12 && bytes.get(ValueLayout.JAVA_BYTE, 8) == 'I' && bytes.get(ValueLayout.JAVA_BYTE, 9) == 'R'
                && bytes.get(ValueLayout.JAVA_BYTE, 10) == 'E' && bytes.get(ValueLayout.JAVA_BYTE, 11) == 'E') {
            return false;
        }
        for (long i = 0, end = Math.min(size, 4096); i < end; i++) {
            if (bytes.get(ValueLayout.JAVA_BYTE, i) == 0) {
                return false;
            }
        }
        return size > 0;
    }

    /**
     * Loads a module file ({@code -}: standard input) with interpreter {@code options}: a
     * {@code compile-module} bundle ({@code .jar}) runs its stored classes, VMASM text (a
     * {@code .vmasm} name, or contents that are not an archive) is assembled, anything else read
     * as an archive.
     */
    Module load(String file, BytecodeModule.Options options) {
        ModuleDef def;
        if (file.endsWith(".jar")) { // a compile-module bundle runs its stored classes (tracing interprets)
            try {
                return PrecompiledModule.fromBundle(readBytes(file).toArray(ValueLayout.JAVA_BYTE))
                        .load(instance, extensions.get(), options.withExecution(ExecutionMode.EAGER));
            } catch (StatusException e) {
                throw e.annotate("while loading '" + file + "'");
            }
        }
        if (file.endsWith(".vmasm")) {
            def = assemble(file);
        } else {
            MemorySegment bytes = readBytes(file);
            if (isVmasmText(bytes)) {
                def = assembleText(bytes, file);
            } else {
                try {
                    def = BytecodeArchive.read(bytes);
                } catch (StatusException e) {
                    throw e.annotate("while loading '" + (file.equals("-") ? "<stdin>" : file) + "'");
                }
            }
        }
        return BytecodeModule.create(instance, def, extensions.get(), options);
    }
}
