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
import dev.ortho.vm.bytecode.ModuleDef.ModuleStateDef;
import dev.ortho.vm.bytecode.ModuleDef.NameLoc;
import dev.ortho.vm.bytecode.ModuleDef.UnknownLoc;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.RwdataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import dev.ortho.vm.bytecode.ModuleDef.SourceMapDef;
import dev.ortho.vm.internal.flatbuffers.FlatBufferReader;
import dev.ortho.vm.internal.flatbuffers.FlatBufferReader.Table;
import dev.ortho.vm.internal.flatbuffers.FlatBufferReader.Vector;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes the {@code BytecodeModuleDef} FlatBuffer of an archive into a {@link ModuleDef},
 * verifying structure as it goes (see {@link FlatBufferReader}). Bytecode and rodata are
 * read-only slices of the archive; everything else is copied into the record. Absent strings
 * read as empty, except where {@link ModuleDef} documents null (a signature's calling
 * convention, a fused location's metadata), so consumers never meet an unexpected null.
 */
final class ArchiveReader {
    static final int LOCATION_NONE = 0;
    static final int LOCATION_CALL_SITE = 1;
    static final int LOCATION_FILE_LINE_COL = 2;
    static final int LOCATION_FUSED = 3;
    static final int LOCATION_NAME = 4;

    private final FlatBufferReader fb;
    private final MemorySegment archive;
    private final long rodataOffset;

    private ArchiveReader(MemorySegment flatbuffer, MemorySegment archive, long rodataOffset) {
        this.fb = new FlatBufferReader(flatbuffer);
        this.archive = archive;
        this.rodataOffset = rodataOffset;
    }

    static ModuleDef read(MemorySegment flatbuffer, MemorySegment archive, long rodataOffset) {
        return new ArchiveReader(flatbuffer, archive, rodataOffset).module();
    }

    static int locationType(LocationDef location) {
        return switch (location) {
            case UnknownLoc l -> LOCATION_NONE;
            case CallSiteLoc l -> LOCATION_CALL_SITE;
            case FileLineColLoc l -> LOCATION_FILE_LINE_COL;
            case FusedLoc l -> LOCATION_FUSED;
            case NameLoc l -> LOCATION_NAME;
        };
    }

    private static StatusException invalid(String message) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, message);
    }

    private ModuleDef module() {
        Table root = fb.root(BytecodeArchive.FILE_IDENTIFIER, "module");
        String name = fb.getString(root, 0, "name");
        if (name == null) {
            throw invalid("FlatBuffer verification failed: module.name: required field is missing");
        }
        int version = fb.getInt(root, 1, "version", 0);
        int requirements = fb.getInt(root, 2, "requirements", 0);
        List<AttrDef> attrs = attrs(root, 3, "attrs");
        List<String> types = new ArrayList<>();
        Vector typeVector = fb.getVector(root, 4, "types", 4);
        for (int i = 0; typeVector != null && i < typeVector.count(); i++) {
            Table type = fb.tableAt(typeVector, i);
            String fullName = fb.getString(type, 0, "full_name");
            if (fullName == null || fullName.isEmpty()) {
                throw invalid("types[" + i + "] missing name");
            }
            types.add(fullName);
        }
        List<DependencyDef> dependencies = new ArrayList<>();
        Vector depVector = fb.getVector(root, 5, "dependencies", 4);
        for (int i = 0; depVector != null && i < depVector.count(); i++) {
            Table dep = fb.tableAt(depVector, i);
            dependencies.add(new DependencyDef(orEmpty(fb.getString(dep, 0, "name")),
                    fb.getInt(dep, 1, "minimum_version", 0),
                    fb.getInt(dep, 2, "flags", DependencyDef.REQUIRED)));
        }
        List<ImportDef> imports = new ArrayList<>();
        Vector importVector = fb.getVector(root, 6, "imported_functions", 4);
        for (int i = 0; importVector != null && i < importVector.count(); i++) {
            Table imp = fb.tableAt(importVector, i);
            Table sig = fb.getTable(imp, 1, "signature");
            imports.add(new ImportDef(orEmpty(fb.getString(imp, 0, "full_name")),
                    sig == null ? null : signature(sig),
                    fb.getInt(imp, 2, "flags", ImportDef.REQUIRED)));
        }
        List<ExportDef> exports = new ArrayList<>();
        Vector exportVector = fb.getVector(root, 7, "exported_functions", 4);
        for (int i = 0; exportVector != null && i < exportVector.count(); i++) {
            Table exp = fb.tableAt(exportVector, i);
            exports.add(new ExportDef(orEmpty(fb.getString(exp, 0, "local_name")),
                    fb.getInt(exp, 1, "internal_ordinal", 0)));
        }
        List<SignatureDef> signatures = new ArrayList<>();
        Vector sigVector = fb.getVector(root, 8, "function_signatures", 4);
        for (int i = 0; sigVector != null && i < sigVector.count(); i++) {
            signatures.add(signature(fb.tableAt(sigVector, i)));
        }
        List<RodataDef> rodata = new ArrayList<>();
        Vector rodataVector = fb.getVector(root, 9, "rodata_segments", 4);
        for (int i = 0; rodataVector != null && i < rodataVector.count(); i++) {
            rodata.add(rodataSegment(fb.tableAt(rodataVector, i), i));
        }
        List<RwdataDef> rwdata = new ArrayList<>();
        Vector rwVector = fb.getVector(root, 10, "rwdata_segments", 4);
        for (int i = 0; rwVector != null && i < rwVector.count(); i++) {
            rwdata.add(new RwdataDef(fb.getInt(fb.tableAt(rwVector, i), 0, "byte_size", 0)));
        }
        Table stateTable = fb.getTable(root, 11, "module_state");
        ModuleStateDef state = stateTable == null ? null : new ModuleStateDef(
                fb.getInt(stateTable, 0, "global_bytes_capacity", 0),
                fb.getInt(stateTable, 1, "global_ref_count", 0));
        List<FunctionDescriptor> functions = new ArrayList<>();
        Vector fnVector = fb.getVector(root, 12, "function_descriptors", 20);
        for (int i = 0; fnVector != null && i < fnVector.count(); i++) {
            long at = fnVector.start() + 20L * i;
            fb.charge(1, root, "function_descriptors");
            functions.add(new FunctionDescriptor(fb.intAt(at), fb.intAt(at + 4), fb.intAt(at + 8),
                    fb.shortAt(at + 12), fb.shortAt(at + 14), fb.shortAt(at + 16), fb.shortAt(at + 18)));
        }
        int bytecodeVersion = fb.getInt(root, 13, "bytecode_version", 0);
        Vector bytecodeVector = fb.getVector(root, 14, "bytecode_data", 1);
        MemorySegment bytecode = bytecodeVector == null
                ? MemorySegment.ofArray(new byte[0]).asReadOnly()
                : fb.slice(bytecodeVector.start(), bytecodeVector.count());
        Table debugTable = fb.getTable(root, 15, "debug_database");
        DebugDatabaseDef debug = debugTable == null ? null : debugDatabase(debugTable);
        return new ModuleDef(name, version, requirements, attrs, types, dependencies, imports, exports,
                signatures, rodata, rwdata, state, functions, bytecodeVersion, bytecode, debug);
    }

    private static String orEmpty(String value) {
        return value == null ? "" : value;
    }

    private List<AttrDef> attrs(Table table, int id, String name) {
        List<AttrDef> attrs = new ArrayList<>();
        Vector vector = fb.getVector(table, id, name, 4);
        for (int i = 0; vector != null && i < vector.count(); i++) {
            Table attr = fb.tableAt(vector, i);
            // An absent key or value reads as empty, as IREE's reflection queries treat it.
            attrs.add(new AttrDef(orEmpty(fb.getString(attr, 0, "key")), orEmpty(fb.getString(attr, 1, "value"))));
        }
        return attrs;
    }

    private SignatureDef signature(Table table) {
        return new SignatureDef(fb.getString(table, 0, "calling_convention"), attrs(table, 1, "attrs"));
    }

    private RodataDef rodataSegment(Table segment, int index) {
        int compression = fb.getUByte(segment, 0, "compression_type_type", 0);
        if (compression > 1) {
            throw new StatusException(StatusCode.UNIMPLEMENTED,
                    "rodata[" + index + "] uses unknown compression type " + compression);
        }
        Vector embedded = fb.getVector(segment, 2, "embedded_data", 1);
        if (embedded != null) {
            return new RodataDef(fb.slice(embedded.start(), embedded.count()), false);
        }
        long offset = fb.getLong(segment, 3, "external_data_offset", 0);
        long length = fb.getLong(segment, 4, "external_data_length", 0);
        long available = archive.byteSize();
        // Unsigned comparisons that cannot wrap, as IREE's verifier does.
        if (Long.compareUnsigned(rodataOffset, available) > 0
                || Long.compareUnsigned(offset, available - rodataOffset) > 0
                || Long.compareUnsigned(length, available - rodataOffset - offset) > 0) {
            throw invalid("rodata[" + index + "] external reference out of range (offset "
                    + Long.toUnsignedString(offset) + ", length " + Long.toUnsignedString(length)
                    + " after the rodata base " + rodataOffset + ", archive is " + available + " bytes)");
        }
        return new RodataDef(archive.asSlice(rodataOffset + offset, length).asReadOnly(), true);
    }

    private DebugDatabaseDef debugDatabase(Table table) {
        Vector typeVector = fb.getVector(table, 0, "location_table_type", 1);
        Vector valueVector = fb.getVector(table, 1, "location_table", 4);
        int typeCount = typeVector == null ? 0 : typeVector.count();
        int valueCount = valueVector == null ? 0 : valueVector.count();
        if (typeCount != valueCount) {
            throw invalid("FlatBuffer verification failed: module.debug_database.location_table: "
                    + typeCount + " union types for " + valueCount + " values");
        }
        List<LocationDef> locations = new ArrayList<>();
        for (int i = 0; i < valueCount; i++) {
            int type = fb.ubyteAt(typeVector.start() + i);
            if (type == LOCATION_NONE) {
                // A NONE member carries no value (its offset is 0); nothing to follow.
                locations.add(new UnknownLoc());
                continue;
            }
            Table loc = fb.tableAt(valueVector, i);
            locations.add(switch (type) {
                case LOCATION_CALL_SITE -> new CallSiteLoc(fb.getInt(loc, 0, "callee", 0), fb.getInt(loc, 1, "caller", 0));
                case LOCATION_FILE_LINE_COL -> new FileLineColLoc(orEmpty(fb.getString(loc, 0, "filename")),
                        fb.getInt(loc, 1, "line", 0), fb.getInt(loc, 2, "column", 0));
                case LOCATION_FUSED -> {
                    Vector ints = fb.getVector(loc, 1, "locations", 4);
                    List<Integer> values = new ArrayList<>();
                    for (int j = 0; ints != null && j < ints.count(); j++) {
                        fb.charge(1, loc, "locations");
                        values.add(fb.intAt(ints.start() + 4L * j));
                    }
                    yield new FusedLoc(fb.getString(loc, 0, "metadata"), values);
                }
                case LOCATION_NAME -> new NameLoc(orEmpty(fb.getString(loc, 0, "name")),
                        fb.has(loc, 1) ? fb.getInt(loc, 1, "child_location", 0) : -1);
                default -> throw invalid("FlatBuffer verification failed: module.debug_database.location_table["
                        + i + "]: unknown location type " + type);
            });
        }
        List<SourceMapDef> functions = new ArrayList<>();
        Vector fnVector = fb.getVector(table, 2, "functions", 4);
        for (int i = 0; fnVector != null && i < fnVector.count(); i++) {
            Table map = fb.tableAt(fnVector, i);
            Vector locVector = fb.getVector(map, 1, "locations", 8);
            List<BytecodeLocation> locs = new ArrayList<>();
            for (int j = 0; locVector != null && j < locVector.count(); j++) {
                fb.charge(1, map, "locations");
                long at = locVector.start() + 8L * j;
                locs.add(new BytecodeLocation(fb.intAt(at), fb.intAt(at + 4)));
            }
            functions.add(new SourceMapDef(orEmpty(fb.getString(map, 0, "local_name")), locs));
        }
        return new DebugDatabaseDef(locations, functions);
    }
}
