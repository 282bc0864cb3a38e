package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import dev.ortho.vm.bytecode.ModuleDef.ExportDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * The text of {@code iree-dump-module --output=metadata}: module header, requirements,
 * attributes, types, dependencies, imports and exports with their signatures, the sections
 * (module state, FlatBuffer and bytecode sizes, rodata and rwdata segments, external rodata),
 * the function descriptor table and a debug information summary, line for line in IREE's
 * layout. A field IREE prints only when "present" in the FlatBuffer is printed here when it is
 * non-default (IREE's writers omit default fields, so the two agree on archives they produce).
 */
final class ModuleMetadata {
    private static final String RULE = "//===" + "-".repeat(110) + "===//\n";
    /** {@code sizeof(iree_vm_ref_t)} on 64-bit hosts, used by IREE's state size estimate. */
    private static final int REF_SIZE = 16;

    private final StringBuilder out = new StringBuilder();

    private ModuleMetadata() {
    }

    /**
     * Formats {@code module}, which was read from {@code archive} (external rodata segments are
     * slices of it, so their offsets are recovered from their addresses).
     */
    static String format(ModuleDef module, MemorySegment archive) {
        MemorySegment flatBuffer = BytecodeArchive.flatBuffer(archive);
        long flatBufferStart = flatBuffer.address() - archive.address();
        long rodataBase = archive.address() + ((flatBufferStart + flatBuffer.byteSize() + 63) & -64L);
        return new ModuleMetadata().print(module, flatBuffer.byteSize(), rodataBase);
    }

    private void header(String title) {
        out.append(RULE).append("// ").append(title).append('\n').append(RULE);
    }

    private String print(ModuleDef m, long flatBufferLength, long rodataBase) {
        header("@" + m.name() + " : version " + m.version());
        out.append('\n');
        if (m.requirements() != 0) {
            out.append("Requirements: ");
            featureBits(m.requirements());
            out.append("\n\n");
        }
        if (!m.attrs().isEmpty()) {
            out.append("Attributes:\n");
            attrs(m.attrs(), 2);
            out.append('\n');
        }
        if (!m.types().isEmpty()) {
            out.append("Required Types:\n");
            for (int i = 0; i < m.types().size(); i++) {
                out.append(String.format("  [%3d] %s%n", i, m.types().get(i)));
            }
            out.append('\n');
        }
        if (!m.dependencies().isEmpty()) {
            out.append("Module Dependencies:\n");
            for (DependencyDef d : m.dependencies()) {
                out.append("  ").append(d.name()).append(", version >= ").append(d.minimumVersion()).append(", ")
                        .append((d.flags() & DependencyDef.OPTIONAL) != 0 ? "optional" : "required").append('\n');
            }
            out.append('\n');
        }
        if (!m.imports().isEmpty()) {
            out.append("Imported Functions:\n");
            for (int i = 0; i < m.imports().size(); i++) {
                ImportDef def = m.imports().get(i);
                out.append(String.format("  [%3d] ", i));
                if ((def.flags() & ImportDef.OPTIONAL) != 0) {
                    out.append('?');
                }
                out.append(def.fullName());
                signatureLine(def.signature(), 8);
            }
            out.append('\n');
        }
        if (!m.exports().isEmpty()) {
            out.append("Exported Functions:\n");
            for (int i = 0; i < m.exports().size(); i++) {
                ExportDef def = m.exports().get(i);
                out.append(String.format("  [%3d] ", i)).append(def.localName());
                int ordinal = def.internalOrdinal();
                signatureLine(ordinal >= 0 && ordinal < m.signatures().size() ? m.signatures().get(ordinal) : null, 8);
            }
            out.append('\n');
        }

        header("Sections");
        out.append('\n');
        if (m.state() != null) {
            out.append("Module State:\n");
            out.append(String.format("  %d bytes, %d refs, ~%d bytes total%n", m.state().globalBytesCapacity(),
                    m.state().globalRefCount(),
                    (long) m.state().globalBytesCapacity() + (long) REF_SIZE * m.state().globalRefCount()));
            out.append('\n');
        }
        out.append("FlatBuffer: ").append(flatBufferLength).append(" bytes\n");
        out.append("  Bytecode: ").append(m.bytecode().byteSize()).append(" bytes\n");
        long external = 0;
        for (int i = 0; i < m.rodata().size(); i++) {
            RodataDef def = m.rodata().get(i);
            out.append(String.format("  .rodata[%3d] ", i));
            long length = def.data().byteSize();
            if (!def.external()) {
                out.append(String.format("embedded %8d bytes", length));
                stringPreview(def);
            } else {
                long offset = def.data().address() - rodataBase;
                out.append(String.format("external %8d bytes (offset %d / %Xh to %Xh)", length, offset, offset,
                        offset + length));
                external += length;
            }
            out.append('\n');
        }
        for (int i = 0; i < m.rwdata().size(); i++) {
            out.append(String.format("  .rwdata[%3d] %d bytes%n", i, m.rwdata().get(i).byteSize()));
        }
        out.append('\n');
        if (external > 0) {
            out.append("External .rodata: ~").append(external).append(" bytes\n\n");
        }

        header("Bytecode : version " + m.version());
        out.append('\n');
        out.append("  # | Offset   |   Length | Blocks | i32 # | ref # | Requirements | Aliases\n");
        out.append("----+----------+----------+--------+-------+-------+--------------+-")
                .append("-".repeat(52)).append('\n');
        for (int i = 0; i < m.functions().size(); i++) {
            FunctionDescriptor f = m.functions().get(i);
            out.append(String.format("%3d | %08X | %8d | %6d | %5d | %5d | ", i, f.bytecodeOffset(),
                    f.bytecodeLength(), f.blockCount(), f.i32RegisterCount(), f.refRegisterCount()));
            int width = featureBits(f.requirements());
            if (width < 12) {
                out.append(" ".repeat(12 - width));
            }
            out.append(" | ");
            boolean any = false;
            for (ExportDef e : m.exports()) {
                if (e.internalOrdinal() == i) {
                    out.append(any ? ", " : "").append(e.localName());
                    any = true;
                }
            }
            out.append('\n');
        }
        out.append('\n');
        if (m.debug() != null) {
            header("Debug Information");
            out.append("// NOTE: debug databases are large and should be stripped in deployed artifacts.\n\n");
            out.append("Locations: ").append(m.debug().locations().size()).append("\n\n");
        }
        return out.toString();
    }

    /** Prints EXT_F32 and EXT_F64 by name and any other bits as {@code %08X}; returns the width. */
    private int featureBits(int bits) {
        int length = 0;
        int rest = bits;
        for (int bit : new int[] {FeatureBits.EXT_F32, FeatureBits.EXT_F64}) {
            if ((rest & bit) != 0) {
                if (length > 0) {
                    out.append(" | ");
                }
                out.append(bit == FeatureBits.EXT_F32 ? "EXT_F32" : "EXT_F64");
                length += 7;
                rest &= ~bit;
            }
        }
        if (rest != 0) {
            if (length > 0) {
                out.append(" | ");
            }
            out.append(String.format("%08X", rest));
            length += 8;
        }
        return length;
    }

    private void attrs(List<AttrDef> attrs, int indent) {
        for (AttrDef attr : attrs) {
            out.append(" ".repeat(indent)).append(attr.key()).append(": ").append(attr.value()).append('\n');
        }
    }

    private void signatureLine(SignatureDef signature, int attrIndent) {
        if (signature != null && signature.callingConvention() != null) {
            cconv(signature.callingConvention());
        }
        out.append('\n');
        if (signature != null && !signature.attrs().isEmpty()) {
            attrs(signature.attrs(), attrIndent);
        }
    }

    /** {@code (i32, !vm.ref<?>) -> (i64)} from a cconv string, as IREE splits and prints it. */
    private void cconv(String cconv) {
        String arguments = "";
        String results = "";
        if (!cconv.isEmpty()) {
            if (cconv.charAt(0) != '0') {
                throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported cconv version " + cconv.charAt(0));
            }
            String body = cconv.substring(1);
            int split = body.indexOf('_');
            arguments = split < 0 ? body : body.substring(0, split);
            results = split < 0 ? "" : body.substring(split + 1);
            arguments = arguments.equals("v") ? "" : arguments;
            results = results.equals("v") ? "" : results;
        }
        out.append('(');
        fragment(arguments);
        out.append(") -> (");
        fragment(results);
        out.append(')');
    }

    private void fragment(String types) {
        for (int i = 0; i < types.length(); i++) {
            if (i > 0) {
                out.append(", ");
            }
            char c = types.charAt(i);
            switch (c) {
                case 'v' -> { }
                case 'i' -> out.append("i32");
                case 'f' -> out.append("f32");
                case 'I' -> out.append("i64");
                case 'F' -> out.append("f64");
                case 'r' -> out.append("!vm.ref<?>");
                case 'C' -> {
                    int end = types.indexOf('D', i + 1);
                    if (end < 0) {
                        throw new StatusException(StatusCode.FAILED_PRECONDITION, "unterminated cconv span");
                    }
                    out.append("tuple<");
                    fragment(types.substring(i + 1, end));
                    out.append(">...");
                    i = end;
                }
                default -> throw new StatusException(StatusCode.UNIMPLEMENTED, "unsupported cconv type '" + c + "'");
            }
        }
    }

    /** IREE shows embedded data that is printable up to its first NUL (or end) as a string. */
    private void stringPreview(RodataDef def) {
        byte[] data = def.data().toArray(ValueLayout.JAVA_BYTE);
        int length = data.length;
        for (int i = 0; i < data.length; i++) {
            if (data[i] == 0) {
                length = i;
                break;
            }
        }
        for (int i = 0; i < length; i++) {
            if (data[i] < 0x20 || data[i] > 0x7E) {
                return;
            }
        }
        out.append(" `").append(new String(data, 0, Math.min(32, length), java.nio.charset.StandardCharsets.US_ASCII))
                .append('`');
        if (length >= 32) {
            out.append("...");
        }
    }
}
