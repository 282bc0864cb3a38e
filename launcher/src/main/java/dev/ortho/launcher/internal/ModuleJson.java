package dev.ortho.launcher.internal;

import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.BytecodeLocation;
import dev.ortho.vm.bytecode.ModuleDef.CallSiteLoc;
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
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The text of {@code iree-dump-module --output=flatbuffer-json [--pretty]}: the
 * {@code BytecodeModuleDef} as flatcc's JSON printer writes it with default values skipped
 * (fields in schema order, bit flags as space-separated names or a number when unknown bits are
 * set, union vectors as a type-name vector plus a table vector, structs with every field; the
 * pretty form with flatcc's indentation). Field presence is that of the archives IREE's and
 * Ortho's writers produce: optional vectors are absent when empty, function signatures,
 * descriptors and bytecode are always present.
 */
final class ModuleJson {
    private static final String[] FEATURE_NAMES = {"EXT_F32", "EXT_F64", "YIELD", "UNWIND"};
    private static final String[] DEPENDENCY_FLAG_NAMES = {"REQUIRED", "OPTIONAL"};
    private static final String[] LOCATION_TYPE_NAMES = {"NONE", "CallSiteLocDef", "FileLineColLocDef", "FusedLocDef",
        "NameLocDef"};

    /** A JSON value: an object, a vector of tables, a vector of structs, a vector of scalars, or a scalar. */
    private sealed interface Node {
    }

    private record Obj(List<String> keys, List<Node> values) implements Node {
        Obj() {
            this(new ArrayList<>(), new ArrayList<>());
        }

        Obj put(String key, Node value) {
            keys.add(key);
            values.add(value);
            return this;
        }

        Obj put(String key, String rawScalar) {
            return put(key, new Scalar(rawScalar));
        }
    }

    private record Tables(List<Obj> items) implements Node {
    }

    private record Structs(List<Obj> items) implements Node {
    }

    private record Scalars(List<String> items) implements Node {
    }

    private record Scalar(String raw) implements Node {
    }

    private ModuleJson() {
    }

    /** Formats {@code module}, read from {@code archive}; {@code pretty} as flatcc's pretty flag. */
    static String format(ModuleDef module, MemorySegment archive, boolean pretty) {
        MemorySegment flatBuffer = BytecodeArchive.flatBuffer(archive);
        long flatBufferStart = flatBuffer.address() - archive.address();
        long rodataBase = archive.address() + ((flatBufferStart + flatBuffer.byteSize() + 63) & -64L);
        StringBuilder out = new StringBuilder();
        render(out, root(module, rodataBase), pretty, 0);
        if (pretty) {
            out.append('\n');
        }
        return out.toString();
    }

    private static Obj root(ModuleDef m, long rodataBase) {
        Obj o = new Obj();
        if (m.name() != null) {
            o.put("name", string(m.name()));
        }
        if (m.version() != 0) {
            o.put("version", Integer.toUnsignedString(m.version()));
        }
        if (m.requirements() != 0) {
            o.put("requirements", flags(m.requirements(), FEATURE_NAMES));
        }
        if (!m.attrs().isEmpty()) {
            o.put("attrs", attrs(m.attrs()));
        }
        if (!m.types().isEmpty()) {
            List<Obj> types = new ArrayList<>();
            for (String type : m.types()) {
                types.add(new Obj().put("full_name", string(type)));
            }
            o.put("types", new Tables(types));
        }
        if (!m.dependencies().isEmpty()) {
            List<Obj> deps = new ArrayList<>();
            for (DependencyDef d : m.dependencies()) {
                Obj dep = new Obj().put("name", string(d.name()));
                if (d.minimumVersion() != 0) {
                    dep.put("minimum_version", Integer.toUnsignedString(d.minimumVersion()));
                }
                if (d.flags() != DependencyDef.REQUIRED) {
                    dep.put("flags", flags(d.flags(), DEPENDENCY_FLAG_NAMES));
                }
                deps.add(dep);
            }
            o.put("dependencies", new Tables(deps));
        }
        if (!m.imports().isEmpty()) {
            List<Obj> imports = new ArrayList<>();
            for (ImportDef i : m.imports()) {
                Obj imp = new Obj().put("full_name", string(i.fullName()));
                if (i.signature() != null) {
                    imp.put("signature", signature(i.signature()));
                }
                if (i.flags() != ImportDef.REQUIRED) {
                    imp.put("flags", flags(i.flags(), DEPENDENCY_FLAG_NAMES));
                }
                imports.add(imp);
            }
            o.put("imported_functions", new Tables(imports));
        }
        if (!m.exports().isEmpty()) {
            List<Obj> exports = new ArrayList<>();
            for (ExportDef e : m.exports()) {
                Obj exp = new Obj().put("local_name", string(e.localName()));
                if (e.internalOrdinal() != 0) {
                    exp.put("internal_ordinal", Integer.toString(e.internalOrdinal()));
                }
                exports.add(exp);
            }
            o.put("exported_functions", new Tables(exports));
        }
        List<Obj> signatures = new ArrayList<>();
        for (SignatureDef s : m.signatures()) {
            signatures.add(signature(s));
        }
        o.put("function_signatures", new Tables(signatures));
        if (!m.rodata().isEmpty()) {
            List<Obj> segments = new ArrayList<>();
            for (RodataDef r : m.rodata()) {
                Obj seg = new Obj();
                if (!r.external()) {
                    seg.put("embedded_data", bytes(r.data()));
                } else {
                    long offset = r.data().address() - rodataBase;
                    if (offset != 0) {
                        seg.put("external_data_offset", Long.toUnsignedString(offset));
                    }
                    if (r.data().byteSize() != 0) {
                        seg.put("external_data_length", Long.toString(r.data().byteSize()));
                    }
                }
                segments.add(seg);
            }
            o.put("rodata_segments", new Tables(segments));
        }
        if (!m.rwdata().isEmpty()) {
            List<Obj> segments = new ArrayList<>();
            for (ModuleDef.RwdataDef r : m.rwdata()) {
                Obj seg = new Obj();
                if (r.byteSize() != 0) {
                    seg.put("byte_size", Integer.toString(r.byteSize()));
                }
                segments.add(seg);
            }
            o.put("rwdata_segments", new Tables(segments));
        }
        if (m.state() != null) {
            Obj state = new Obj();
            if (m.state().globalBytesCapacity() != 0) {
                state.put("global_bytes_capacity", Integer.toString(m.state().globalBytesCapacity()));
            }
            if (m.state().globalRefCount() != 0) {
                state.put("global_ref_count", Integer.toString(m.state().globalRefCount()));
            }
            o.put("module_state", state);
        }
        List<Obj> descriptors = new ArrayList<>();
        for (FunctionDescriptor f : m.functions()) {
            descriptors.add(new Obj().put("bytecode_offset", Integer.toString(f.bytecodeOffset()))
                    .put("bytecode_length", Integer.toString(f.bytecodeLength()))
                    .put("requirements", f.requirements() == 0 ? "0" : flags(f.requirements(), FEATURE_NAMES))
                    .put("reserved", Short.toString(f.reserved()))
                    .put("block_count", Short.toString(f.blockCount()))
                    .put("i32_register_count", Short.toString(f.i32RegisterCount()))
                    .put("ref_register_count", Short.toString(f.refRegisterCount())));
        }
        o.put("function_descriptors", new Structs(descriptors));
        if (m.bytecodeVersion() != 0) {
            o.put("bytecode_version", Integer.toUnsignedString(m.bytecodeVersion()));
        }
        o.put("bytecode_data", bytes(m.bytecode()));
        if (m.debug() != null) {
            o.put("debug_database", debug(m.debug()));
        }
        return o;
    }

    private static Obj signature(SignatureDef s) {
        Obj sig = new Obj();
        if (s.callingConvention() != null) {
            sig.put("calling_convention", string(s.callingConvention()));
        }
        if (!s.attrs().isEmpty()) {
            sig.put("attrs", attrs(s.attrs()));
        }
        return sig;
    }

    private static Tables attrs(List<AttrDef> attrs) {
        List<Obj> items = new ArrayList<>();
        for (AttrDef a : attrs) {
            Obj attr = new Obj();
            if (a.key() != null) {
                attr.put("key", string(a.key()));
            }
            if (a.value() != null) {
                attr.put("value", string(a.value()));
            }
            items.add(attr);
        }
        return new Tables(items);
    }

    private static Obj debug(ModuleDef.DebugDatabaseDef d) {
        Obj db = new Obj();
        if (!d.locations().isEmpty()) {
            List<String> types = new ArrayList<>();
            List<Obj> tables = new ArrayList<>();
            for (LocationDef location : d.locations()) {
                Obj loc = new Obj();
                switch (location) {
                    case ModuleDef.UnknownLoc l -> {
                        types.add(string(LOCATION_TYPE_NAMES[0]));
                        loc = null; // flatcc prints a NONE member as null
                    }
                    case CallSiteLoc l -> {
                        types.add(string(LOCATION_TYPE_NAMES[1]));
                        putNonZero(loc, "callee", l.callee());
                        putNonZero(loc, "caller", l.caller());
                    }
                    case FileLineColLoc l -> {
                        types.add(string(LOCATION_TYPE_NAMES[2]));
                        if (l.filename() != null) {
                            loc.put("filename", string(l.filename()));
                        }
                        putNonZero(loc, "line", l.line());
                        putNonZero(loc, "column", l.column());
                    }
                    case FusedLoc l -> {
                        types.add(string(LOCATION_TYPE_NAMES[3]));
                        if (l.metadata() != null) {
                            loc.put("metadata", string(l.metadata()));
                        }
                        List<String> values = new ArrayList<>();
                        for (int v : l.locations()) {
                            values.add(Integer.toString(v));
                        }
                        loc.put("locations", new Scalars(values));
                    }
                    case NameLoc l -> {
                        types.add(string(LOCATION_TYPE_NAMES[4]));
                        if (l.name() != null) {
                            loc.put("name", string(l.name()));
                        }
                        if (l.childLocation() != -1) {
                            putNonZero(loc, "child_location", l.childLocation());
                        }
                    }
                }
                tables.add(loc);
            }
            db.put("location_table_type", new Scalars(types));
            db.put("location_table", new Tables(tables));
        }
        if (!d.functions().isEmpty()) {
            List<Obj> maps = new ArrayList<>();
            for (SourceMapDef s : d.functions()) {
                Obj map = new Obj();
                if (s.localName() != null) {
                    map.put("local_name", string(s.localName()));
                }
                List<Obj> locations = new ArrayList<>();
                for (BytecodeLocation b : s.locations()) {
                    locations.add(new Obj().put("bytecode_offset", Integer.toString(b.bytecodeOffset()))
                            .put("location", Integer.toString(b.location())));
                }
                map.put("locations", new Structs(locations));
                maps.add(map);
            }
            db.put("functions", new Tables(maps));
        }
        return db;
    }

    private static void putNonZero(Obj obj, String key, int value) {
        if (value != 0) {
            obj.put(key, Integer.toString(value));
        }
    }

    private static Scalars bytes(MemorySegment data) {
        List<String> values = new ArrayList<>((int) Math.min(data.byteSize(), Integer.MAX_VALUE));
        for (long i = 0; i < data.byteSize(); i++) {
            values.add(Integer.toString(Byte.toUnsignedInt(data.get(ValueLayout.JAVA_BYTE, i))));
        }
        return new Scalars(values);
    }

    /** flatcc's bit flag printing: known bits as quoted names, or the number if any bit is unknown. */
    private static String flags(int value, String[] names) {
        if ((value & ~((1 << names.length) - 1)) != 0) {
            return Integer.toUnsignedString(value);
        }
        StringBuilder text = new StringBuilder("\"");
        for (int i = 0; i < names.length; i++) {
            if ((value & (1 << i)) != 0) {
                text.append(text.length() > 1 ? " " : "").append(names[i]);
            }
        }
        return text.append('"').toString();
    }

    /** A JSON string as flatcc escapes it: quote, backslash and control characters; everything else as is. */
    private static String string(String value) {
        StringBuilder text = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> text.append("\\\"");
                case '\\' -> text.append("\\\\");
                case '\n' -> text.append("\\n");
                case '\t' -> text.append("\\t");
                case '\r' -> text.append("\\r");
                case '\b' -> text.append("\\b");
                case '\f' -> text.append("\\f");
                default -> {
                    if (c < 0x20) {
                        text.append(String.format("\\u%04x", (int) c));
                    } else {
                        text.append(c);
                    }
                }
            }
        }
        return text.append('"').toString();
    }

    private static void newline(StringBuilder out, boolean pretty, int indent) {
        if (pretty) {
            out.append('\n').append(" ".repeat(indent));
        }
    }

    private static void render(StringBuilder out, Node node, boolean pretty, int indent) {
        switch (node) {
            case Scalar s -> out.append(s.raw());
            case Obj o -> {
                out.append('{');
                fields(out, o, pretty, indent + 2);
                newline(out, pretty, indent);
                out.append('}');
            }
            case Tables t -> {
                out.append('[');
                for (int i = 0; i < t.items().size(); i++) {
                    if (t.items().get(i) == null) {
                        out.append(i == 0 ? "null" : ",null");
                        continue;
                    }
                    out.append(i == 0 ? "{" : ",{");
                    fields(out, t.items().get(i), pretty, indent + 4);
                    newline(out, pretty, indent + 2);
                    out.append('}');
                }
                newline(out, pretty, indent);
                out.append(']');
            }
            case Structs s -> {
                out.append('[');
                for (int i = 0; i < s.items().size(); i++) {
                    out.append(i == 0 ? "" : ",");
                    newline(out, pretty, indent + 2);
                    render(out, s.items().get(i), pretty, indent + 2);
                }
                newline(out, pretty, indent);
                out.append(']');
            }
            case Scalars s -> {
                out.append('[');
                for (int i = 0; i < s.items().size(); i++) {
                    out.append(i == 0 ? "" : ",");
                    newline(out, pretty, indent + 2);
                    out.append(s.items().get(i));
                }
                newline(out, pretty, indent);
                out.append(']');
            }
        }
    }

    private static void fields(StringBuilder out, Obj o, boolean pretty, int indent) {
        for (int i = 0; i < o.keys().size(); i++) {
            out.append(i == 0 ? "" : ",");
            newline(out, pretty, indent);
            out.append('"').append(o.keys().get(i)).append(pretty ? "\": " : "\":");
            render(out, o.values().get(i), pretty, indent);
        }
    }
}
