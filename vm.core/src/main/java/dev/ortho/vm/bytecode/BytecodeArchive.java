package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import dev.ortho.vm.bytecode.ModuleDef.ExportDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;

/**
 * Reads and writes IREE bytecode module archives ({@code .vmfb}).
 *
 * <p>Layout (IREE's {@code vm/bytecode/archive.c}): an optional ZIP local file header (signature
 * {@code PK\3\4}; skipped by its name and extra-field lengths), a 4-byte little-endian size
 * prefix, the {@code BytecodeModuleDef} FlatBuffer with file identifier {@code IREE}, and the
 * external rodata segments, which start at the first 64-byte-aligned archive offset after the
 * FlatBuffer; a segment's {@code external_data_offset} is relative to that base.
 *
 * <p>Reading verifies the FlatBuffer structurally (every offset, vtable, vector and string
 * bounds-checked, see {@code dev.ortho.vm.internal.flatbuffers}) and then the module metadata
 * as IREE's loader does ({@link #verify(ModuleDef)}). Bytecode, embedded rodata and external
 * rodata in the returned {@link ModuleDef} are read-only slices aliasing the archive memory,
 * so they stay valid as long as that memory does (a mapped file stays mapped while any slice
 * is reachable). Function bytecode itself is verified later, per function, by the bytecode
 * module.
 *
 * <p>Writing lays the FlatBuffer out exactly as IREE's assembler (flatcc) does, so modules
 * IREE's VMASM can express are byte-identical to {@code iree-as-module} output; external
 * rodata segments are appended at 64-byte-aligned offsets.
 *
 * <p>All methods are static and thread-safe. Every failure is a {@link StatusException}:
 * {@code INVALID_ARGUMENT} for malformed archives (the message names the field path and the
 * offending value), {@code UNIMPLEMENTED} for compressed rodata, {@code NOT_FOUND}/
 * {@code UNAVAILABLE} for unreadable files, {@code OUT_OF_RANGE} for modules too large to write.
 */
public final class BytecodeArchive {
    /** The FlatBuffer file identifier of bytecode modules. */
    public static final String FILE_IDENTIFIER = "IREE";
    /** Alignment of the external rodata base and of each external segment (IREE's {@code IREE_VM_ARCHIVE_SEGMENT_ALIGNMENT}). */
    public static final int SEGMENT_ALIGNMENT = 64;
    /** Largest i32 register count a function may declare ({@code IREE_VM_ISA_I32_REGISTER_COUNT}). */
    public static final int MAX_I32_REGISTERS = 0x7FFF;
    /** Largest ref register count a function may declare ({@code IREE_VM_ISA_REF_REGISTER_COUNT}). */
    public static final int MAX_REF_REGISTERS = 0x3FFF;

    private static final int ZIP_LOCAL_FILE_HEADER_SIGNATURE = 0x04034B50;
    private static final int ZIP_LOCAL_FILE_HEADER_SIZE = 30;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private BytecodeArchive() {
    }

    /**
     * Parses and verifies the archive in {@code archive}. The returned module aliases
     * {@code archive} (read-only), which must outlive it and must not be modified.
     */
    public static ModuleDef read(MemorySegment archive) {
        MemorySegment flatbuffer = flatBuffer(archive);
        long rodataOffset = alignUp(zipPayloadOffset(archive) + 4 + flatbuffer.byteSize(), SEGMENT_ALIGNMENT);
        ModuleDef module = ArchiveReader.read(flatbuffer, archive.asReadOnly(), rodataOffset);
        verify(module);
        return module;
    }

    /**
     * The FlatBuffer proper of {@code archive} (after an optional ZIP header and the size
     * prefix), as a read-only slice, without verifying its contents; what
     * {@code iree-dump-module --output=flatbuffer-binary} prints and whose length its metadata
     * reports.
     *
     * @throws StatusException INVALID_ARGUMENT for a short archive or an out-of-bounds size prefix
     */
    public static MemorySegment flatBuffer(MemorySegment archive) {
        long start = zipPayloadOffset(archive);
        long available = archive.byteSize() - start;
        if (available < 16) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "FlatBuffer data is not present or less than 16 bytes (" + available + " total)");
        }
        long prefix = Integer.toUnsignedLong(archive.get(INT, start));
        if (prefix > available - 4) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "FlatBuffer length prefix out of bounds (prefix is "
                    + prefix + " but only " + (available - 4) + " available)");
        }
        return archive.asSlice(start + 4, prefix).asReadOnly();
    }

    /** Parses and verifies {@code archive}; the module aliases the array, which must not be modified. */
    public static ModuleDef read(byte[] archive) {
        return read(MemorySegment.ofArray(archive));
    }

    /**
     * Maps {@code file} read-only and parses it without copying. The mapping is released by the
     * garbage collector once neither the module nor any slice of it is reachable.
     *
     * @throws StatusException NOT_FOUND if the file does not exist, UNAVAILABLE if it cannot be
     *     read, INVALID_ARGUMENT if it is not a valid archive
     */
    public static ModuleDef read(Path file) {
        MemorySegment mapped;
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size(), Arena.ofAuto());
        } catch (NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "module file '" + file + "' does not exist", e);
        } catch (IOException | UnsupportedOperationException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot map module file '" + file + "': " + e.getMessage(), e);
        }
        try {
            return read(mapped);
        } catch (StatusException e) {
            throw e.annotate("while loading '" + file + "'");
        }
    }

    /**
     * Serializes {@code module} into a new archive: size prefix, FlatBuffer, then any external
     * rodata segments at 64-byte-aligned offsets. Does not verify the module.
     *
     * @throws StatusException OUT_OF_RANGE if the archive would exceed 2 GiB, INVALID_ARGUMENT if
     *     a required name or data segment is null
     */
    public static byte[] write(ModuleDef module) {
        Objects.requireNonNull(module, "module");
        byte[] flatbuffer = ArchiveWriter.write(module);
        long[] offsets = externalOffsets(module.rodata());
        long rodataEnd = -1;
        for (int i = 0; i < offsets.length; i++) {
            if (module.rodata().get(i).external()) {
                rodataEnd = Math.max(rodataEnd, offsets[i] + module.rodata().get(i).data().byteSize());
            }
        }
        if (rodataEnd < 0) {
            return flatbuffer;
        }
        // Even an empty external segment needs the rodata base inside the archive (IREE checks it).
        long base = alignUp(flatbuffer.length, SEGMENT_ALIGNMENT);
        if (base + rodataEnd > Integer.MAX_VALUE - 8) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "module '" + printable(module.name())
                    + "' archive would be " + (base + rodataEnd) + " bytes, limit " + (Integer.MAX_VALUE - 8));
        }
        byte[] archive = new byte[(int) (base + rodataEnd)];
        System.arraycopy(flatbuffer, 0, archive, 0, flatbuffer.length);
        for (int i = 0; i < offsets.length; i++) {
            RodataDef def = module.rodata().get(i);
            if (def.external()) {
                MemorySegment.copy(def.data(), ValueLayout.JAVA_BYTE, 0, archive,
                        (int) (base + offsets[i]), (int) def.data().byteSize());
            }
        }
        return archive;
    }

    /** Offsets of external segments relative to the rodata base: each 64-byte aligned, in order. */
    static long[] externalOffsets(List<RodataDef> rodata) {
        long[] offsets = new long[rodata.size()];
        long next = 0;
        for (int i = 0; i < offsets.length; i++) {
            if (rodata.get(i).external()) {
                offsets[i] = next;
                next = alignUp(next + rodata.get(i).data().byteSize(), SEGMENT_ALIGNMENT);
            }
        }
        return offsets;
    }

    /**
     * Checks module metadata as IREE's loader does before any code runs: a non-empty name,
     * named types, dependencies and imports, one signature per function descriptor, export
     * ordinals within the function table, bytecode version {@value ModuleDef#BYTECODE_VERSION_MAJOR}.x
     * with a minor version this runtime knows, and descriptors that have blocks, lie within the
     * bytecode and declare register counts within the ISA limits.
     *
     * @throws StatusException INVALID_ARGUMENT naming the first offending entry and value
     */
    public static void verify(ModuleDef module) {
        if (module.name() == null || module.name().isEmpty()) {
            throw invalid("module missing name field");
        }
        for (int i = 0; i < module.types().size(); i++) {
            if (module.types().get(i).isEmpty()) {
                throw invalid("types[" + i + "] missing name");
            }
        }
        for (int i = 0; i < module.dependencies().size(); i++) {
            DependencyDef dependency = module.dependencies().get(i);
            if (dependency.name().isEmpty()) {
                throw invalid("dependencies[" + i + "] has no module name");
            }
        }
        for (int i = 0; i < module.imports().size(); i++) {
            ImportDef def = module.imports().get(i);
            if (def.fullName().isEmpty()) {
                throw invalid("imports[" + i + "] missing full_name");
            }
        }
        int functionCount = module.functions().size();
        if (module.signatures().size() != functionCount) {
            throw invalid("function signature and descriptor table length mismatch ("
                    + module.signatures().size() + " vs " + functionCount + ")");
        }
        for (int i = 0; i < module.exports().size(); i++) {
            ExportDef def = module.exports().get(i);
            if (def.localName().isEmpty()) {
                throw invalid("exports[" + i + "] missing local_name");
            }
            if (def.internalOrdinal() < 0 || def.internalOrdinal() >= functionCount) {
                throw invalid("exports[" + i + "] '" + printable(def.localName())
                        + "' internal_ordinal out of bounds (0 <= "
                        + def.internalOrdinal() + " < " + functionCount + ")");
            }
        }
        int major = module.bytecodeVersion() >>> 16;
        int minor = module.bytecodeVersion() & 0xFFFF;
        if (major != ModuleDef.BYTECODE_VERSION_MAJOR || minor > ModuleDef.BYTECODE_VERSION_MINOR) {
            throw invalid("bytecode version mismatch; runtime supports " + ModuleDef.BYTECODE_VERSION_MAJOR + "."
                    + ModuleDef.BYTECODE_VERSION_MINOR + ", module has " + major + "." + minor);
        }
        long bytecodeLength = module.bytecode().byteSize();
        for (int i = 0; i < functionCount; i++) {
            FunctionDescriptor f = module.functions().get(i);
            if (f.blockCount() <= 0) {
                throw invalid("functions[" + i + "] descriptor block count is " + f.blockCount()
                        + "; functions must have at least 1 block");
            }
            if (f.bytecodeLength() <= 0) {
                throw invalid("functions[" + i + "] descriptor bytecode reports " + f.bytecodeLength()
                        + " length; functions must have at least one block");
            }
            if (f.bytecodeOffset() < 0 || (long) f.bytecodeOffset() + f.bytecodeLength() > bytecodeLength) {
                throw invalid("functions[" + i + "] descriptor bytecode span [" + f.bytecodeOffset() + ", "
                        + ((long) f.bytecodeOffset() + f.bytecodeLength()) + ") out of range (bytecode is "
                        + bytecodeLength + " bytes)");
            }
            if (f.i32RegisterCount() < 0 || f.i32RegisterCount() > MAX_I32_REGISTERS
                    || f.refRegisterCount() < 0 || f.refRegisterCount() > MAX_REF_REGISTERS) {
                throw invalid("functions[" + i + "] descriptor register count out of range (i32 "
                        + f.i32RegisterCount() + " of max " + MAX_I32_REGISTERS + ", ref " + f.refRegisterCount()
                        + " of max " + MAX_REF_REGISTERS + ")");
            }
        }
    }

    private static StatusException invalid(String message) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, message);
    }

    private static long alignUp(long value, int alignment) {
        return (value + alignment - 1) & -(long) alignment;
    }

    /** Offset of the module after an optional ZIP local file header (0 when there is none). */
    private static long zipPayloadOffset(MemorySegment archive) {
        if (archive.byteSize() < ZIP_LOCAL_FILE_HEADER_SIZE
                || archive.get(INT, 0) != ZIP_LOCAL_FILE_HEADER_SIGNATURE) {
            return 0;
        }
        long offset = ZIP_LOCAL_FILE_HEADER_SIZE + Short.toUnsignedInt(archive.get(SHORT, 26))
                + Short.toUnsignedInt(archive.get(SHORT, 28));
        if (offset > archive.byteSize()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "archive self-reports as a zip but does not have "
                    + "enough data to contain a module (header needs " + offset + " bytes, archive has "
                    + archive.byteSize() + ")");
        }
        return offset;
    }
}
