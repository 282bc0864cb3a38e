package dev.ortho.vm.bytecode;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.BytecodeLocation;
import dev.ortho.vm.bytecode.ModuleDef.CallSiteLoc;
import dev.ortho.vm.bytecode.ModuleDef.DebugDatabaseDef;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import dev.ortho.vm.bytecode.ModuleDef.ExportDef;
import dev.ortho.vm.bytecode.ModuleDef.FileLineColLoc;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.FusedLoc;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.LocationDef;
import dev.ortho.vm.bytecode.ModuleDef.NameLoc;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import dev.ortho.vm.bytecode.ModuleDef.SourceMapDef;
import dev.ortho.vm.internal.flatbuffers.FlatBufferBuilder;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Serializes a {@link ModuleDef} into an archive. Objects are created in the order IREE's
 * assembler ({@code vm/bytecode/assembler/archive.c}) creates them and root fields are added in
 * the same order, so a module IREE's assembler can express comes out byte-identical to
 * {@code iree-as-module}. Parts IREE's assembler never writes (module attributes, dependencies,
 * signature attributes, rwdata segments, the debug database, external rodata) are created after
 * the parts it does write, each before the table that refers to it.
 */
final class ArchiveWriter {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final FlatBufferBuilder builder = new FlatBufferBuilder();

    private ArchiveWriter() {
    }

    static byte[] write(ModuleDef module) {
        try {
            return new ArchiveWriter().build(module);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "module '" + module.name() + "' cannot be serialized: " + e.getMessage());
        }
    }

    private int required(String value, String what) {
        if (value == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot serialize module: " + what + " is null");
        }
        return builder.createString(value);
    }

    private byte[] build(ModuleDef module) {
        if (module.bytecode() == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot serialize module: bytecode is null");
        }
        for (int i = 0; i < module.rodata().size(); i++) {
            if (module.rodata().get(i).data() == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "cannot serialize module: rodata[" + i + "] data is null");
            }
        }
        if (module.bytecode().byteSize() > Integer.MAX_VALUE) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "module bytecode is too large ("
                    + module.bytecode().byteSize() + " bytes, limit " + Integer.MAX_VALUE + ")");
        }
        int name = required(module.name(), "module name");
        int bytecode = builder.createByteVector(module.bytecode());

        int types = 0;
        if (!module.types().isEmpty()) {
            int[] refs = new int[module.types().size()];
            for (int i = 0; i < refs.length; i++) {
                int fullName = required(module.types().get(i), "types[" + i + "]");
                builder.startTable();
                builder.addOffset(0, fullName);
                refs[i] = builder.endTable();
            }
            types = builder.createOffsetVector(refs);
        }

        int imports = 0;
        if (!module.imports().isEmpty()) {
            int[] refs = new int[module.imports().size()];
            for (int i = 0; i < refs.length; i++) {
                ImportDef def = module.imports().get(i);
                int fullName = required(def.fullName(), "imports[" + i + "].full_name");
                int signature = def.signature() == null ? 0 : signature(def.signature());
                builder.startTable();
                builder.addOffset(0, fullName);
                if (signature != 0) {
                    builder.addOffset(1, signature);
                }
                builder.addInt(2, def.flags(), ImportDef.REQUIRED);
                refs[i] = builder.endTable();
            }
            imports = builder.createOffsetVector(refs);
        }

        int[] signatureRefs = new int[module.signatures().size()];
        for (int i = 0; i < signatureRefs.length; i++) {
            signatureRefs[i] = signature(module.signatures().get(i));
        }
        int descriptors = descriptors(module.functions());
        int signatures = builder.createOffsetVector(signatureRefs);

        int exports = 0;
        if (!module.exports().isEmpty()) {
            int[] refs = new int[module.exports().size()];
            for (int i = 0; i < refs.length; i++) {
                ExportDef def = module.exports().get(i);
                int localName = required(def.localName(), "exports[" + i + "].local_name");
                builder.startTable();
                builder.addOffset(0, localName);
                builder.addInt(1, def.internalOrdinal(), 0);
                refs[i] = builder.endTable();
            }
            exports = builder.createOffsetVector(refs);
        }

        int rodata = 0;
        if (!module.rodata().isEmpty()) {
            long[] externalOffsets = BytecodeArchive.externalOffsets(module.rodata());
            int[] refs = new int[module.rodata().size()];
            for (int i = 0; i < refs.length; i++) {
                RodataDef def = module.rodata().get(i);
                if (def.external()) {
                    builder.startTable();
                    builder.addLong(3, externalOffsets[i], 0);
                    builder.addLong(4, def.data().byteSize(), 0);
                } else {
                    int data = builder.createByteVector(def.data());
                    builder.startTable();
                    builder.addOffset(2, data);
                }
                refs[i] = builder.endTable();
            }
            rodata = builder.createOffsetVector(refs);
        }

        int state = 0;
        if (module.state() != null) {
            builder.startTable();
            builder.addInt(0, module.state().globalBytesCapacity(), 0);
            builder.addInt(1, module.state().globalRefCount(), 0);
            state = builder.endTable();
        }

        int attrs = module.attrs().isEmpty() ? 0 : attrs(module.attrs());
        int dependencies = 0;
        if (!module.dependencies().isEmpty()) {
            int[] refs = new int[module.dependencies().size()];
            for (int i = 0; i < refs.length; i++) {
                DependencyDef def = module.dependencies().get(i);
                int depName = required(def.name(), "dependencies[" + i + "].name");
                builder.startTable();
                builder.addOffset(0, depName);
                builder.addInt(1, def.minimumVersion(), 0);
                builder.addInt(2, def.flags(), DependencyDef.REQUIRED);
                refs[i] = builder.endTable();
            }
            dependencies = builder.createOffsetVector(refs);
        }
        int rwdata = 0;
        if (!module.rwdata().isEmpty()) {
            int[] refs = new int[module.rwdata().size()];
            for (int i = 0; i < refs.length; i++) {
                builder.startTable();
                builder.addInt(0, module.rwdata().get(i).byteSize(), 0);
                refs[i] = builder.endTable();
            }
            rwdata = builder.createOffsetVector(refs);
        }
        int debug = module.debug() == null ? 0 : debugDatabase(module.debug());

        builder.startTable();
        builder.addOffset(0, name);
        builder.addInt(1, module.version(), 0);
        builder.addInt(2, module.requirements(), 0);
        addIfPresent(3, attrs);
        addIfPresent(4, types);
        addIfPresent(5, dependencies);
        addIfPresent(6, imports);
        addIfPresent(7, exports);
        builder.addOffset(8, signatures);
        addIfPresent(9, rodata);
        addIfPresent(10, rwdata);
        addIfPresent(11, state);
        builder.addOffset(12, descriptors);
        builder.addInt(13, module.bytecodeVersion(), 0);
        builder.addOffset(14, bytecode);
        addIfPresent(15, debug);
        int root = builder.endTable();
        return builder.finishSizePrefixed(root, BytecodeArchive.FILE_IDENTIFIER);
    }

    private void addIfPresent(int id, int ref) {
        if (ref != 0) {
            builder.addOffset(id, ref);
        }
    }

    private int signature(SignatureDef def) {
        int cconv = def.callingConvention() == null ? 0 : builder.createString(def.callingConvention());
        int attrs = def.attrs().isEmpty() ? 0 : attrs(def.attrs());
        builder.startTable();
        addIfPresent(0, cconv);
        addIfPresent(1, attrs);
        return builder.endTable();
    }

    private int attrs(List<AttrDef> list) {
        int[] refs = new int[list.size()];
        for (int i = 0; i < refs.length; i++) {
            AttrDef attr = list.get(i);
            int key = attr.key() == null ? 0 : builder.createString(attr.key());
            int value = attr.value() == null ? 0 : builder.createString(attr.value());
            builder.startTable();
            addIfPresent(0, key);
            addIfPresent(1, value);
            refs[i] = builder.endTable();
        }
        return builder.createOffsetVector(refs);
    }

    private int descriptors(List<FunctionDescriptor> functions) {
        MemorySegment data = MemorySegment.ofArray(new byte[functions.size() * 20]);
        for (int i = 0; i < functions.size(); i++) {
            FunctionDescriptor f = functions.get(i);
            long at = i * 20L;
            data.set(INT, at, f.bytecodeOffset());
            data.set(INT, at + 4, f.bytecodeLength());
            data.set(INT, at + 8, f.requirements());
            data.set(SHORT, at + 12, f.reserved());
            data.set(SHORT, at + 14, f.blockCount());
            data.set(SHORT, at + 16, f.i32RegisterCount());
            data.set(SHORT, at + 18, f.refRegisterCount());
        }
        return builder.createVector(data, functions.size(), 20, 4);
    }

    private int debugDatabase(DebugDatabaseDef def) {
        int locationTable = 0;
        int locationTypes = 0;
        if (!def.locations().isEmpty()) {
            int[] refs = new int[def.locations().size()];
            byte[] unionTypes = new byte[refs.length];
            for (int i = 0; i < refs.length; i++) {
                LocationDef location = def.locations().get(i);
                unionTypes[i] = (byte) ArchiveReader.locationType(location);
                refs[i] = location(location);
            }
            locationTable = builder.createOffsetVector(refs);
            locationTypes = builder.createByteVector(MemorySegment.ofArray(unionTypes));
        }
        int functions = 0;
        if (!def.functions().isEmpty()) {
            int[] refs = new int[def.functions().size()];
            for (int i = 0; i < refs.length; i++) {
                SourceMapDef map = def.functions().get(i);
                int localName = map.localName() == null ? 0 : builder.createString(map.localName());
                MemorySegment data = MemorySegment.ofArray(new byte[map.locations().size() * 8]);
                for (int j = 0; j < map.locations().size(); j++) {
                    BytecodeLocation loc = map.locations().get(j);
                    data.set(INT, j * 8L, loc.bytecodeOffset());
                    data.set(INT, j * 8L + 4, loc.location());
                }
                int locations = builder.createVector(data, map.locations().size(), 8, 4);
                builder.startTable();
                addIfPresent(0, localName);
                builder.addOffset(1, locations);
                refs[i] = builder.endTable();
            }
            functions = builder.createOffsetVector(refs);
        }
        builder.startTable();
        addIfPresent(0, locationTypes);
        addIfPresent(1, locationTable);
        addIfPresent(2, functions);
        return builder.endTable();
    }

    private int location(LocationDef location) {
        return switch (location) {
            case ModuleDef.UnknownLoc l -> 0; // the union's NONE member: a null entry
            case CallSiteLoc l -> {
                builder.startTable();
                builder.addInt(0, l.callee(), 0);
                builder.addInt(1, l.caller(), 0);
                yield builder.endTable();
            }
            case FileLineColLoc l -> {
                int filename = l.filename() == null ? 0 : builder.createString(l.filename());
                builder.startTable();
                addIfPresent(0, filename);
                builder.addInt(1, l.line(), 0);
                builder.addInt(2, l.column(), 0);
                yield builder.endTable();
            }
            case FusedLoc l -> {
                int metadata = l.metadata() == null ? 0 : builder.createString(l.metadata());
                int[] values = new int[l.locations().size()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = l.locations().get(i);
                }
                int locations = builder.createIntVector(values);
                builder.startTable();
                addIfPresent(0, metadata);
                builder.addOffset(1, locations);
                yield builder.endTable();
            }
            case NameLoc l -> {
                int locName = l.name() == null ? 0 : builder.createString(l.name());
                builder.startTable();
                addIfPresent(0, locName);
                // -1 stands for "absent"; 0 is a valid child index and must be stored.
                builder.addInt(1, l.childLocation(), -1);
                yield builder.endTable();
            }
        };
    }
}
