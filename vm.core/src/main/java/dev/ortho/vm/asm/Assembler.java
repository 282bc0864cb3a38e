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
import dev.ortho.vm.spi.InstructionExtension;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles IREE VMASM text (what {@code iree-as-module} reads and {@code iree-dump-module
 * --output=disassembly} prints) into a {@link ModuleDef} whose bytecode is byte-for-byte what
 * IREE's assembler emits. The syntax, including Ortho's extra directives, is described in the
 * {@linkplain dev.ortho.vm.asm package documentation}.
 *
 * <p>The instruction set is IREE's core opcodes plus the opcode sets of the extensions given to
 * the constructor (ExtF32/ExtF64 or third-party {@link InstructionExtension}s); there is no
 * global registry. An assembler is immutable and thread-safe; each call works on its own state.
 */
public final class Assembler {
    private final OpTable ops;

    /**
     * Creates an assembler for the core instruction set plus {@code extensions}.
     *
     * @throws StatusException INVALID_ARGUMENT or ALREADY_EXISTS if two extensions share a
     *     prefix, a prefix lies outside 0xE0-0xFF, or mnemonics collide
     */
    public Assembler(List<InstructionExtension> extensions) {
        this.ops = new OpTable(List.copyOf(extensions));
    }

    /**
     * Assembles {@code source}; {@code fileName} is only used in error messages.
     *
     * @return the module; its bytecode and rodata are fresh heap segments owned by the result
     * @throws StatusException INVALID_ARGUMENT {@code file:line:col: expected ...} for any
     *     syntax or semantic error (unknown instruction, label, function, type mismatch, ...)
     */
    public ModuleDef assemble(String source, String fileName) {
        return new State(ops, fileName).run(source);
    }

    /**
     * Reads {@code path} as UTF-8 and assembles it.
     *
     * @throws StatusException NOT_FOUND/UNAVAILABLE if the file cannot be read, else as
     *     {@link #assemble(String, String)}
     */
    public ModuleDef assemble(Path path) {
        String text;
        try {
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "VMASM file " + path + " not found", e);
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot read VMASM file " + path + ": " + e.getMessage(), e);
        }
        return assemble(text, path.getFileName() == null ? path.toString() : path.getFileName().toString());
    }

    /** A reference resolved once the whole module is parsed: patched into the bytecode. */
    record Fixup(int offset, String name, int size, String where) {
    }

    /** One assembled function. */
    record Function(String name, String cconv, List<AttrDef> attrs, FunctionDescriptor descriptor) {
    }

    /** All state of one assembly run; the function body parser works on it. */
    static final class State {
        final OpTable ops;
        final String file;
        final ByteSink bytecode = new ByteSink();
        String moduleName;
        int moduleVersion;
        List<AttrDef> moduleAttrs = List.of();
        int requirements;
        final List<String> types = new ArrayList<>();
        final List<DependencyDef> dependencies = new ArrayList<>();
        final List<ImportDef> imports = new ArrayList<>();
        final Map<String, Integer> importOrdinals = new HashMap<>();
        final List<RodataDef> rodata = new ArrayList<>();
        final Map<String, Integer> globalSizes = new HashMap<>();
        final List<String> globalOrder = new ArrayList<>();
        final List<Fixup> globalFixups = new ArrayList<>();
        long globalBytes;
        long globalRefs;
        final List<Function> functions = new ArrayList<>();
        final Map<String, Integer> functionOrdinals = new HashMap<>();
        final List<Fixup> functionFixups = new ArrayList<>();
        final List<String[]> exports = new ArrayList<>();
        FunctionAssembler current;

        State(OpTable ops, String file) {
            this.ops = ops;
            this.file = file;
        }

        ModuleDef run(String source) {
            int lineNumber = 0;
            int start = 0;
            Cursor last = new Cursor(file, 1, "", 0, 0);
            while (start <= source.length()) {
                int newline = source.indexOf('\n', start);
                int stop = newline < 0 ? source.length() : newline;
                lineNumber++;
                String line = source.substring(start, stop);
                Cursor c = lineCursor(line, lineNumber);
                last = c;
                if (!c.atEnd()) {
                    parseLine(c);
                }
                if (newline < 0) {
                    break;
                }
                start = newline + 1;
            }
            if (current != null) {
                throw last.errorAt(last.end, "expected '}' closing function @" + current.name + " before end of file");
            }
            if (moduleName == null) {
                throw last.errorAt(0, "expected 'vm.module @name' directive");
            }
            if (functions.isEmpty()) {
                throw last.errorAt(0, "expected at least one 'vm.func'");
            }
            return finish();
        }

        /** Cuts comments ({@code //} or {@code #} outside quotes) and an {@code [offset]} prefix. */
        private Cursor lineCursor(String line, int lineNumber) {
            int end = line.length();
            boolean inString = false;
            for (int i = 0; i < line.length(); i++) {
                char ch = line.charAt(i);
                if (ch == '"') {
                    inString = !inString;
                } else if (!inString && (ch == '#' || (ch == '/' && i + 1 < line.length() && line.charAt(i + 1) == '/'))) {
                    end = i;
                    break;
                }
            }
            while (end > 0 && Character.isWhitespace(line.charAt(end - 1))) {
                end--;
            }
            Cursor c = new Cursor(file, lineNumber, line, 0, end);
            if (c.peek() == '[') {
                int close = line.indexOf(']', c.pos);
                if (close >= 0 && close < end) {
                    c.pos = close + 1;
                }
            }
            return c;
        }

        private void parseLine(Cursor c) {
            if (current != null) {
                if (c.accept('}')) {
                    c.expectEnd();
                    functions.add(current.function(current.finish(c)));
                    functionOrdinals.put(current.name, functions.size() - 1);
                    current = null;
                    bytecode.align(8);
                } else {
                    current.parseLine(c);
                }
                return;
            }
            int start = c.pos;
            if (c.acceptWord("vm.module")) {
                parseModule(c, start);
            } else if (c.acceptWord("vm.type")) {
                requireBeforeFunctions(c, start, "types");
                String type = c.type("type name like i32 or !vm.buffer");
                c.expectEnd();
                if (types.contains(type)) {
                    throw c.errorAt(start, "duplicate type " + type);
                }
                types.add(type);
            } else if (c.acceptWord("vm.import")) {
                parseImport(c, start);
            } else if (c.acceptWord("vm.dependency")) {
                parseDependency(c, start);
            } else if (c.accept("vm.rodata[")) {
                parseRodata(c, start);
            } else if (c.acceptWord("vm.export")) {
                String exportName = c.symbol("export name");
                String functionName = exportName;
                if (c.accept('=')) {
                    functionName = c.symbol("function name");
                }
                c.expectEnd();
                for (String[] e : exports) {
                    if (e[0].equals(exportName)) {
                        throw c.errorAt(start, "duplicate export @" + exportName);
                    }
                }
                exports.add(new String[] {exportName, functionName, where(c, start)});
            } else if (c.acceptWord("vm.global.i32") || c.acceptWord("vm.global.f32")) {
                parseGlobal(c, start, 4, c.text.substring(start + 10, start + 13));
            } else if (c.acceptWord("vm.global.i64") || c.acceptWord("vm.global.f64")) {
                parseGlobal(c, start, 8, c.text.substring(start + 10, start + 13));
            } else if (c.acceptWord("vm.global.ref")) {
                parseGlobal(c, start, 0, null);
            } else if (c.acceptWord("vm.global_storage")) {
                requireBeforeFunctions(c, start, "global storage");
                if (c.acceptWord("bytes")) {
                    globalBytes = Math.max(globalBytes, c.unsigned("global byte capacity", Integer.MAX_VALUE));
                }
                if (c.acceptWord("refs")) {
                    globalRefs = Math.max(globalRefs, c.unsigned("global ref count", Integer.MAX_VALUE));
                }
                c.expectEnd();
            } else if (c.acceptWord("vm.func")) {
                if (moduleName == null) {
                    throw c.errorAt(start, "expected 'vm.module @name' before functions");
                }
                current = new FunctionAssembler(this, c, bytecode.size());
            } else {
                throw c.expected("a top-level directive (vm.module, vm.type, vm.import, vm.dependency, "
                        + "vm.rodata[N], vm.global.<type>, vm.global_storage, vm.export, vm.func)");
            }
        }

        String where(Cursor c, int position) {
            return c.file + ":" + c.line + ":" + (position + 1);
        }

        private void requireBeforeFunctions(Cursor c, int start, String what) {
            if (moduleName == null) {
                throw c.errorAt(start, "expected 'vm.module @name' before " + what);
            }
            if (!functions.isEmpty()) {
                throw c.errorAt(start, what + " must be declared before the first function");
            }
        }

        private void parseModule(Cursor c, int start) {
            if (moduleName != null) {
                throw c.errorAt(start, "module already declared as @" + moduleName);
            }
            String name = c.symbol("module name");
            int version = 0;
            if (c.acceptWord("version")) {
                version = (int) c.unsigned("module version", 0xFFFFFFFFL);
            }
            if (c.acceptWord("attributes")) {
                moduleAttrs = parseAttributes(c);
            }
            c.expectEnd();
            moduleName = name;
            moduleVersion = version;
        }

        /** {@code {key = "value", ...}} (Ortho extension). */
        List<AttrDef> parseAttributes(Cursor c) {
            List<AttrDef> attrs = new ArrayList<>();
            c.expect('{');
            if (c.accept('}')) {
                return attrs;
            }
            do {
                c.skipSpace();
                int keyStart = c.pos;
                String key = c.peek() == '"' ? unescape(c.quoted("attribute name")) : c.symbolChars();
                if (key.isEmpty()) {
                    throw c.expected("attribute name");
                }
                for (AttrDef a : attrs) {
                    if (a.key().equals(key)) {
                        throw c.errorAt(keyStart, "duplicate attribute " + key);
                    }
                }
                c.expect('=');
                attrs.add(new AttrDef(key, unescape(c.quoted("attribute value"))));
            } while (c.accept(','));
            c.expect('}');
            return attrs;
        }

        /** Decodes the {@code \xHH} escapes attribute strings use for quotes, backslashes and controls. */
        static String unescape(String s) {
            if (s.indexOf('\\') < 0) {
                return s;
            }
            StringBuilder b = new StringBuilder(s.length());
            for (int i = 0; i < s.length(); i++) {
                char ch = s.charAt(i);
                if (ch == '\\' && i + 3 < s.length() && s.charAt(i + 1) == 'x'
                        && Character.digit(s.charAt(i + 2), 16) >= 0 && Character.digit(s.charAt(i + 3), 16) >= 0) {
                    b.append((char) Integer.parseInt(s.substring(i + 2, i + 4), 16));
                    i += 3;
                } else {
                    b.append(ch);
                }
            }
            return b.toString();
        }

        private void parseImport(Cursor c, int start) {
            requireBeforeFunctions(c, start, "imports");
            boolean optional = c.acceptWord("optional");
            c.skipSpace();
            int nameStart = c.pos;
            String fullName = c.symbol("import name");
            if (fullName.indexOf('.') <= 0) {
                throw c.errorAt(nameStart, "expected import name like @module.function, got '@" + fullName + "'");
            }
            if (!c.acceptWord("cconv")) {
                throw c.expected("'cconv \"...\"'");
            }
            String cconv = c.quoted("calling convention");
            c.expectEnd();
            if (importOrdinals.containsKey(fullName)) {
                throw c.errorAt(nameStart, "duplicate import @" + fullName);
            }
            importOrdinals.put(fullName, imports.size());
            imports.add(new ImportDef(fullName, new SignatureDef(cconv, List.of()),
                    optional ? ImportDef.OPTIONAL : ImportDef.REQUIRED));
        }

        private void parseDependency(Cursor c, int start) {
            requireBeforeFunctions(c, start, "dependencies");
            boolean optional = c.acceptWord("optional");
            c.skipSpace();
            int nameStart = c.pos;
            String name = c.symbol("module name");
            int version = 0;
            if (c.acceptWord("version")) {
                version = (int) c.unsigned("minimum version", 0xFFFFFFFFL);
            }
            c.expectEnd();
            for (DependencyDef d : dependencies) {
                if (d.name().equals(name)) {
                    throw c.errorAt(nameStart, "duplicate dependency @" + name);
                }
            }
            dependencies.add(new DependencyDef(name, version, optional ? DependencyDef.OPTIONAL : DependencyDef.REQUIRED));
        }

        private void parseRodata(Cursor c, int start) {
            requireBeforeFunctions(c, start, "rodata");
            int ordinalStart = c.pos;
            long ordinal = c.unsigned("rodata ordinal", Integer.MAX_VALUE);
            if (ordinal != rodata.size()) {
                throw c.errorAt(ordinalStart, "expected rodata ordinal " + rodata.size()
                        + " (segments are declared in ordinal order), got " + ordinal);
            }
            c.expect(']');
            c.expect('=');
            c.skipSpace();
            int hexStart = c.pos;
            int length = c.end - hexStart;
            if ((length & 1) != 0) {
                throw c.errorAt(hexStart, "expected an even number of hex digits, got " + length);
            }
            byte[] data = new byte[length / 2];
            for (int i = 0; i < data.length; i++) {
                int hi = Character.digit(c.text.charAt(hexStart + 2 * i), 16);
                int lo = Character.digit(c.text.charAt(hexStart + 2 * i + 1), 16);
                if (hi < 0 || lo < 0) {
                    throw c.errorAt(hexStart + 2 * i + (hi < 0 ? 0 : 1), "expected hex digit");
                }
                data[i] = (byte) ((hi << 4) | lo);
            }
            rodata.add(new RodataDef(MemorySegment.ofArray(data).asReadOnly(), false));
        }

        private void parseGlobal(Cursor c, int start, int size, String typeName) {
            requireBeforeFunctions(c, start, "globals");
            c.acceptWord("private");
            c.acceptWord("mutable");
            c.skipSpace();
            int nameStart = c.pos;
            String name = c.symbol("global name");
            if (size == 0) {
                c.expect(':');
                String type = c.type("ref type like !vm.buffer");
                if (!type.startsWith("!")) {
                    throw c.errorAt(c.pos - type.length(), "expected ref type like !vm.buffer, got '" + type + "'");
                }
            } else if (c.accept('=')) {
                c.skipSpace();
                int valueStart = c.pos;
                String token = c.numberToken();
                java.math.BigInteger value = CNumbers.parseInteger(token);
                if (value == null) {
                    throw c.errorAt(valueStart, "expected initial value 0, got '" + token + "'");
                }
                if (value.signum() != 0) {
                    throw c.errorAt(valueStart, "non-zero global initializers are not supported; store the value in @__init");
                }
                c.expect(':');
                c.skipSpace();
                int typeStart = c.pos;
                String type = c.type("initializer type");
                if (!type.equals(typeName)) {
                    throw c.errorAt(typeStart, "expected initializer type " + typeName + ", got " + type);
                }
            }
            c.expectEnd();
            if (globalSizes.containsKey(name)) {
                throw c.errorAt(nameStart, "duplicate global @" + name);
            }
            globalSizes.put(name, size);
            globalOrder.add(name);
        }

        /** Type ordinal for {@code name}; {@code vm.x} matches {@code !vm.x}; unknown names are appended. */
        int typeOrdinal(String name) {
            if (name.startsWith("vm.")) {
                int i = types.indexOf("!" + name);
                if (i >= 0) {
                    return i;
                }
            }
            int i = types.indexOf(name);
            if (i < 0) {
                types.add(name);
                i = types.size() - 1;
            }
            return i;
        }

        private ModuleDef finish() {
            // Named ref globals take ordinals in declaration order; byte globals are packed by size
            // class, smallest first, naturally aligned (IREE's assignment).
            Map<String, Long> globalOffsets = new HashMap<>();
            long refOrdinal = 0;
            for (String g : globalOrder) {
                if (globalSizes.get(g) == 0) {
                    globalOffsets.put(g, refOrdinal++);
                }
            }
            globalRefs = Math.max(globalRefs, refOrdinal);
            long next = 0;
            for (int size = 1; size <= 8; size++) {
                boolean any = false;
                for (String g : globalOrder) {
                    if (globalSizes.get(g) == size) {
                        if (!any) {
                            next = (next + size - 1) & -size;
                            any = true;
                        }
                        globalOffsets.put(g, next);
                        next += size;
                    }
                }
            }
            globalBytes = Math.max(globalBytes, next);
            for (Fixup f : globalFixups) {
                Integer size = globalSizes.get(f.name());
                if (size == null) {
                    throw fixupError(f, "unknown global @" + f.name());
                }
                if (size != f.size()) {
                    throw fixupError(f, "global @" + f.name() + " holds " + (size == 0 ? "a ref" : size + " bytes")
                            + " but the instruction accesses " + (f.size() == 0 ? "a ref" : f.size() + " bytes"));
                }
                bytecode.patch32(f.offset(), (int) (long) globalOffsets.get(f.name()));
            }
            for (Fixup f : functionFixups) {
                Integer ordinal = functionOrdinals.get(f.name());
                if (ordinal == null) {
                    throw fixupError(f, "unknown function @" + f.name());
                }
                bytecode.patch32(f.offset(), ordinal);
            }
            List<ExportDef> exportDefs = new ArrayList<>();
            for (String[] e : exports) {
                Integer ordinal = functionOrdinals.get(e[1]);
                if (ordinal == null) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT,
                            e[2] + ": export @" + e[0] + " names unknown function @" + e[1]);
                }
                exportDefs.add(new ExportDef(e[0], ordinal));
            }
            if (globalBytes > Integer.MAX_VALUE || globalRefs > Integer.MAX_VALUE) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, file + ": module state is too large ("
                        + globalBytes + " bytes, " + globalRefs + " refs)");
            }
            ModuleStateDef state = globalBytes == 0 && globalRefs == 0 ? null
                    : new ModuleStateDef((int) globalBytes, (int) globalRefs);
            List<SignatureDef> signatures = new ArrayList<>();
            List<FunctionDescriptor> descriptors = new ArrayList<>();
            for (Function f : functions) {
                signatures.add(new SignatureDef(f.cconv(), f.attrs()));
                descriptors.add(f.descriptor());
            }
            int version = (ModuleDef.BYTECODE_VERSION_MAJOR << 16) | ModuleDef.BYTECODE_VERSION_MINOR;
            return new ModuleDef(moduleName, moduleVersion, requirements, moduleAttrs, types, dependencies,
                    imports, exportDefs, signatures, rodata, List.of(), state, descriptors, version,
                    MemorySegment.ofArray(bytecode.toArray()).asReadOnly(), null);
        }

        private static StatusException fixupError(Fixup f, String message) {
            return new StatusException(StatusCode.INVALID_ARGUMENT, f.where() + ": " + message);
        }
    }
}
