package dev.ortho.vm.asm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import dev.ortho.vm.bytecode.ModuleDef.ExportDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.ModuleStateDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import dev.ortho.vm.bytecode.ModuleDef.SourceMapDef;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints a {@link ModuleDef} as VMASM in exactly the form of {@code iree-dump-module
 * --output=disassembly}; the {@link Assembler} reads that text back to the same bytecode. Where
 * a module carries what IREE's text cannot express (dependencies, reflection attributes), the
 * Ortho directives of the {@linkplain dev.ortho.vm.asm package documentation} are printed.
 *
 * <p>The input need not have been verified: malformed bytecode or tables yield a
 * {@link StatusException} (annotated {@code at module.func+%08X} for bytecode), never an
 * unchecked exception. Immutable and thread-safe.
 */
public final class Disassembler {
    private static final String HEX_DIGITS = "0123456789ABCDEF";
    private final OpTable ops;

    /**
     * Creates a disassembler for the core instruction set plus {@code extensions}.
     *
     * @throws StatusException as {@link Assembler#Assembler(List)}
     */
    public Disassembler(List<InstructionExtension> extensions) {
        this.ops = new OpTable(List.copyOf(extensions));
    }

    /** Disassembles the whole module (header directives, then every internal function). */
    public String disassemble(ModuleDef module) {
        return disassemble(module, false);
    }

    /**
     * Disassembles the whole module; with {@code bytecodeOffsets} every line of a function body
     * starts with its {@code [%08X]} offset (as {@code --bytecode_offsets}; the assembler ignores it).
     *
     * @throws StatusException INVALID_ARGUMENT/OUT_OF_RANGE/UNIMPLEMENTED for malformed input
     */
    public String disassemble(ModuleDef module, boolean bytecodeOffsets) {
        return disassemble(module, bytecodeOffsets, true);
    }

    /**
     * Disassembles the whole module as {@link #disassemble(ModuleDef, boolean)}; without
     * {@code orthoDirectives} the Ortho-only header directives (module and function
     * {@code attributes}, {@code vm.dependency}, {@code vm.global_storage}) are left out, which
     * is exactly what {@code iree-dump-module} prints for a module compiled by IREE (the text
     * then no longer reassembles to a module that declares them).
     *
     * @throws StatusException INVALID_ARGUMENT/OUT_OF_RANGE/UNIMPLEMENTED for malformed input
     */
    public String disassemble(ModuleDef module, boolean bytecodeOffsets, boolean orthoDirectives) {
        StringBuilder b = new StringBuilder();
        b.append("vm.module @").append(module.name()).append(" version ")
                .append(Integer.toUnsignedString(module.version()));
        if (orthoDirectives) {
            attributes(b, module.attrs());
        }
        b.append('\n');
        boolean directives = false;
        for (String type : module.types()) {
            b.append("vm.type ").append(type).append('\n');
            directives = true;
        }
        for (DependencyDef d : orthoDirectives ? module.dependencies() : List.<DependencyDef>of()) {
            b.append("vm.dependency ").append((d.flags() & DependencyDef.OPTIONAL) != 0 ? "optional " : "")
                    .append('@').append(d.name()).append(" version ")
                    .append(Integer.toUnsignedString(d.minimumVersion())).append('\n');
            directives = true;
        }
        for (ImportDef i : module.imports()) {
            String cconv = i.signature() == null || i.signature().callingConvention() == null
                    ? "" : i.signature().callingConvention();
            b.append("vm.import ").append((i.flags() & ImportDef.OPTIONAL) != 0 ? "optional " : "")
                    .append('@').append(i.fullName()).append(" cconv \"").append(cconv).append("\"\n");
            directives = true;
        }
        for (int i = 0; i < module.rodata().size(); i++) {
            b.append("vm.rodata[").append(i).append("] = ");
            hex(b, module.rodata().get(i));
            b.append('\n');
            directives = true;
        }
        InstructionPrinter[] printers = new InstructionPrinter[module.functions().size()];
        long bytesUsed = 0;
        long refsUsed = 0;
        for (int i = 0; i < printers.length; i++) {
            printers[i] = scan(printer(module, i, functionName(module, i)));
            bytesUsed = Math.max(bytesUsed, printers[i].globalBytesUsed);
            refsUsed = Math.max(refsUsed, printers[i].globalRefsUsed);
        }
        ModuleStateDef state = module.state();
        if (orthoDirectives && state != null && (state.globalBytesCapacity() > bytesUsed || state.globalRefCount() > refsUsed)) {
            // Global storage beyond what the code addresses directly (unused or indirect globals).
            b.append("vm.global_storage bytes ").append(state.globalBytesCapacity())
                    .append(" refs ").append(state.globalRefCount()).append('\n');
            directives = true;
        }
        // IREE prints each function's exports before it, which keeps the export table's order
        // only when it follows the functions; otherwise all exports go first, in table order.
        boolean grouped = exportsFollowFunctions(module);
        if (!grouped) {
            for (ExportDef e : module.exports()) {
                export(b, e, functionName(module, e.internalOrdinal()));
            }
            directives = true;
        }
        if (directives) {
            b.append('\n');
        }
        for (int i = 0; i < module.functions().size(); i++) {
            topLevelSpacing(b);
            String name = functionName(module, i);
            for (ExportDef e : module.exports()) {
                if (grouped && e.internalOrdinal() == i) {
                    export(b, e, name);
                }
            }
            SignatureDef signature = i < module.signatures().size() ? module.signatures().get(i) : null;
            b.append("vm.func @").append(name);
            signature(b, signature == null ? null : signature.callingConvention());
            if (signature != null && orthoDirectives) {
                attributes(b, signature.attrs());
            }
            b.append(" {\n");
            body(printers[i], bytecodeOffsets, b);
            b.append("}\n");
        }
        return b.toString();
    }

    /**
     * Prints the single instruction at {@code pc} of internal function {@code function}, with
     * branch targets as {@code ^%08X} offsets (for execution traces).
     */
    public String disassembleInstruction(ModuleDef module, int function, int pc) {
        InstructionPrinter p = printer(module, function, functionName(module, function));
        if (pc < 0 || pc >= p.length()) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "pc " + pc + " outside function "
                    + module.name() + "." + functionName(module, function) + " of " + p.length() + " bytes");
        }
        StringBuilder b = new StringBuilder();
        p.print(pc, b);
        return b.toString();
    }

    private static void export(StringBuilder b, ExportDef e, String functionName) {
        b.append("vm.export @").append(e.localName());
        if (!e.localName().equals(functionName)) {
            b.append(" = @").append(functionName);
        }
        b.append('\n');
    }

    private static boolean exportsFollowFunctions(ModuleDef module) {
        int previous = Integer.MIN_VALUE;
        for (ExportDef e : module.exports()) {
            if (e.internalOrdinal() < previous) {
                return false;
            }
            previous = e.internalOrdinal();
        }
        return true;
    }

    /** Export name, else the debug database name, else {@code fnN} (as iree-dump-module). */
    static String functionName(ModuleDef module, int ordinal) {
        for (ExportDef e : module.exports()) {
            if (e.internalOrdinal() == ordinal) {
                return e.localName();
            }
        }
        String debug = debugName(module, ordinal);
        return debug != null ? debug : "fn" + ordinal;
    }

    /** The function's name in the debug database, or null when there is none. */
    static String debugName(ModuleDef module, int ordinal) {
        if (module.debug() == null || ordinal < 0 || ordinal >= module.debug().functions().size()) {
            return null;
        }
        SourceMapDef map = module.debug().functions().get(ordinal);
        return map == null || map.localName() == null || map.localName().isEmpty() ? null : map.localName();
    }

    private InstructionPrinter printer(ModuleDef module, int ordinal, String name) {
        if (ordinal < 0 || ordinal >= module.functions().size()) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "function ordinal " + ordinal
                    + " outside module " + module.name() + "'s " + module.functions().size() + " functions");
        }
        FunctionDescriptor d = module.functions().get(ordinal);
        MemorySegment bytecode = module.bytecode();
        long size = bytecode == null ? 0 : bytecode.byteSize();
        if (d.bytecodeOffset() < 0 || d.bytecodeLength() < 0 || (long) d.bytecodeOffset() + d.bytecodeLength() > size) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "function " + module.name() + "." + name
                    + " bytecode [" + d.bytecodeOffset() + ", +" + d.bytecodeLength() + ") outside the "
                    + size + " bytes of module bytecode");
        }
        return new InstructionPrinter(ops, module, name, bytecode.asSlice(d.bytecodeOffset(), d.bytecodeLength()));
    }

    /** Decodes every instruction once: finds the block markers and the directly addressed globals. */
    private static InstructionPrinter scan(InstructionPrinter p) {
        List<Integer> blockPcs = new ArrayList<>();
        StringBuilder scratch = new StringBuilder();
        for (int pc = 0; pc < p.length(); ) {
            if (p.isBlock(pc)) {
                blockPcs.add(pc);
            }
            scratch.setLength(0);
            pc = p.print(pc, scratch);
        }
        p.blocks(blockPcs.stream().mapToInt(Integer::intValue).toArray());
        return p;
    }

    private static void body(InstructionPrinter p, boolean offsets, StringBuilder b) {
        for (int pc = 0; pc < p.length(); ) {
            String indent = p.isBlock(pc) ? "" : "  ";
            if (offsets) {
                b.append(String.format(Locale.ROOT, "[%08X]", pc));
            }
            b.append(indent);
            pc = p.print(pc, b);
            b.append('\n');
        }
    }

    private static void topLevelSpacing(StringBuilder b) {
        int n = b.length();
        if (n == 0 || (n >= 2 && b.charAt(n - 1) == '\n' && b.charAt(n - 2) == '\n')) {
            return;
        }
        b.append(b.charAt(n - 1) == '\n' ? "\n" : "\n\n");
    }

    private static void hex(StringBuilder b, RodataDef rodata) {
        MemorySegment data = rodata.data();
        for (long i = 0; i < data.byteSize(); i++) {
            int v = data.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
            b.append(HEX_DIGITS.charAt(v >>> 4)).append(HEX_DIGITS.charAt(v & 0xF));
        }
    }

    private static void attributes(StringBuilder b, List<AttrDef> attrs) {
        if (attrs == null || attrs.isEmpty()) {
            return;
        }
        b.append(" attributes {");
        for (int i = 0; i < attrs.size(); i++) {
            String key = attrs.get(i).key() == null ? "" : attrs.get(i).key();
            boolean plain = !key.isEmpty() && key.chars().allMatch(ch -> Cursor.isSymbolChar((char) ch));
            b.append(i == 0 ? "" : ", ");
            if (plain) {
                b.append(key);
            } else {
                escaped(b, key);
            }
            b.append(" = ");
            escaped(b, attrs.get(i).value() == null ? "" : attrs.get(i).value());
        }
        b.append('}');
    }

    /** A double-quoted attribute string; quotes, backslashes and control characters as {@code \xHH}. */
    private static void escaped(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '\\' || ch < 0x20 || ch == 0x7F) {
                b.append(String.format(Locale.ROOT, "\\x%02X", (int) ch));
            } else {
                b.append(ch);
            }
        }
        b.append('"');
    }

    /** {@code (%i0: i32, %i1:2: i64, %r0: !vm.ref<?>) -> (i32)} from a cconv like {@code 0iIr_i}. */
    private static void signature(StringBuilder b, String cconv) {
        String arguments = "";
        String results = "";
        if (cconv != null && !cconv.isEmpty()) {
            int underscore = cconv.indexOf('_');
            if (cconv.charAt(0) != '0' || underscore < 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "malformed calling convention '" + cconv + "'");
            }
            arguments = cconv.substring(1, underscore);
            results = cconv.substring(underscore + 1);
        }
        b.append('(');
        int i32 = 0;
        int ref = 0;
        boolean first = true;
        for (char t : arguments.toCharArray()) {
            if (t == 'v') {
                continue;
            }
            b.append(first ? "" : ", ");
            first = false;
            switch (t) {
                case 'i', 'f' -> b.append("%i").append(i32++).append(": ");
                case 'I', 'F' -> {
                    b.append("%i").append(i32).append(':').append(i32 + 1).append(": ");
                    i32 += 2;
                }
                case 'r' -> b.append("%r").append(ref++).append(": ");
                default -> throw new StatusException(StatusCode.UNIMPLEMENTED,
                        "unsupported cconv argument type '" + t + "' in '" + cconv + "'");
            }
            b.append(typeName(t, cconv));
        }
        b.append(") -> (");
        first = true;
        for (char t : results.toCharArray()) {
            if (t == 'v') {
                continue;
            }
            b.append(first ? "" : ", ").append(typeName(t, cconv));
            first = false;
        }
        b.append(')');
    }

    private static String typeName(char t, String cconv) {
        return switch (t) {
            case 'i' -> "i32";
            case 'I' -> "i64";
            case 'f' -> "f32";
            case 'F' -> "f64";
            case 'r' -> "!vm.ref<?>";
            default -> throw new StatusException(StatusCode.UNIMPLEMENTED,
                    "unsupported cconv type '" + t + "' in '" + cconv + "'");
        };
    }
}
