package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.CallingConvention;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Linkage;
import dev.ortho.vm.ModuleDependency;
import dev.ortho.vm.RefType;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.internal.ext.WrappedExtension;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The load-time reading of a {@link ModuleDef} that {@link BytecodeModule}'s constructor does
 * table by table: header and bytecode version, instruction extensions and feature requirements,
 * attributes, dependencies, types, calling conventions and imports. Each structural error is a
 * {@link StatusException} naming the table entry (INVALID_ARGUMENT), an unregistered type
 * (NOT_FOUND) or a missing feature (UNIMPLEMENTED), as IREE's loader reports them.
 *
 * <p>Not instantiable; stateless.
 */
final class ModuleDefTables {
    private ModuleDefTables() {
    }

    /** A name, and a bytecode version this runtime runs (same major, minor not newer). */
    static void checkHeader(ModuleDef def) {
        if (def.name() == null || def.name().isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "module missing name field");
        }
        int major = def.bytecodeVersion() >>> 16;
        int minor = def.bytecodeVersion() & 0xFFFF;
        if (major != ModuleDef.BYTECODE_VERSION_MAJOR || minor > ModuleDef.BYTECODE_VERSION_MINOR) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "bytecode version mismatch; runtime supports "
                    + ModuleDef.BYTECODE_VERSION_MAJOR + "." + ModuleDef.BYTECODE_VERSION_MINOR + ", module has "
                    + major + "." + minor);
        }
    }

    /**
     * Puts each of {@code exts} at {@code table[prefix - 0xE0]} (the first one given per prefix
     * wins; a forwarding component's extension is unwrapped so execution calls it directly).
     */
    static void installExtensions(List<InstructionExtension> exts, InstructionExtension[] table) {
        for (InstructionExtension ext : exts) {
            int prefix = ext.prefix();
            if (prefix < 0xE0 || prefix > 0xFF) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "instruction extension '" + ext.name()
                        + "' prefix 0x" + Integer.toHexString(prefix) + " outside [0xE0, 0xFF]");
            }
            if (table[prefix - 0xE0] == null) {
                // Execute with a forwarding component's extension itself (see WrappedExtension).
                table[prefix - 0xE0] = ext instanceof WrappedExtension wrapped ? wrapped.unwrap() : ext;
            }
        }
    }

    /** UNIMPLEMENTED naming {@code what} unless the core and {@code extensions} provide {@code required}. */
    static void checkFeatures(InstructionExtension[] extensions, int required, String what) {
        int available = FeatureBits.YIELD | FeatureBits.UNWIND;
        for (InstructionExtension ext : extensions) {
            if (ext != null) {
                available |= ext.feature();
            }
        }
        int missing = required & ~available;
        if (missing != 0) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, what + " requires features ["
                    + FeatureBits.format(missing) + "] that no registered instruction extension provides; have ["
                    + FeatureBits.format(available) + "] while it requires [" + FeatureBits.format(required) + "]");
        }
    }

    /** The module attributes in definition order (null keys and values as empty strings). */
    static Map<String, String> attrs(ModuleDef def) {
        Map<String, String> a = new LinkedHashMap<>();
        def.attrs().forEach(x -> a.put(Objects.toString(x.key(), ""), Objects.toString(x.value(), "")));
        return Map.copyOf(a);
    }

    /** The declared dependencies; each must name a module. */
    static List<ModuleDependency> dependencies(ModuleDef def) {
        List<ModuleDependency> deps = new ArrayList<>();
        for (int i = 0; i < def.dependencies().size(); i++) {
            ModuleDef.DependencyDef d = def.dependencies().get(i);
            if (d.name() == null || d.name().isEmpty()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "dependencies[" + i + "] has no module name");
            }
            deps.add(new ModuleDependency(d.name(), d.minimumVersion(),
                    (d.flags() & ModuleDef.DependencyDef.OPTIONAL) == 0));
        }
        return List.copyOf(deps);
    }

    /** The import functions of {@code module}, checked (a full name each) with their cconvs parsed. */
    static List<Function> imports(BytecodeModule module, ModuleDef def) {
        List<Function> imps = new ArrayList<>();
        for (int i = 0; i < def.imports().size(); i++) {
            ModuleDef.ImportDef d = def.imports().get(i);
            if (d.fullName() == null || d.fullName().isEmpty()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "imports[" + i + "] missing full_name");
            }
            CallingConvention cc = parseCconv(d.signature() == null ? null : d.signature().callingConvention(),
                    "imports[" + i + "] '" + printable(d.fullName()) + "'");
            imps.add(new Function(module, (d.flags() & ModuleDef.ImportDef.OPTIONAL) != 0 ? Linkage.IMPORT_OPTIONAL
                    : Linkage.IMPORT, i, d.fullName(), cc, d.signature() == null ? Map.of() : attrsOf(d.signature())));
        }
        return List.copyOf(imps);
    }

    /** Parses a cconv string, annotated with {@code what}; null or empty is {@code 0v}. */
    static CallingConvention parseCconv(String cconv, String what) {
        if (cconv == null || cconv.isEmpty()) {
            return CallingConvention.VOID;
        }
        try {
            return CallingConvention.parse(cconv);
        } catch (StatusException e) {
            throw e.annotate(what);
        }
    }

    /** The {@link BytecodeModule#KIND_32}/{@code KIND_64}/{@code KIND_REF} of each cconv type character. */
    static byte[] kinds(String types) {
        byte[] k = new byte[types.length()];
        for (int i = 0; i < k.length; i++) {
            char t = types.charAt(i);
            k[i] = t == 'I' || t == 'F' ? BytecodeModule.KIND_64 : t == 'r' ? BytecodeModule.KIND_REF
                    : BytecodeModule.KIND_32;
        }
        return k;
    }

    /** A signature's reflection attributes (empty for none). */
    static Map<String, String> attrsOf(ModuleDef.SignatureDef sig) {
        if (sig == null || sig.attrs().isEmpty()) {
            return Map.of();
        }
        Map<String, String> m = new LinkedHashMap<>();
        sig.attrs().forEach(a -> m.put(Objects.toString(a.key(), ""), Objects.toString(a.value(), "")));
        return m;
    }

    /**
     * Resolves type {@code i} named {@code full}: a value type into {@code valueTypes[i]}, a ref
     * type ({@code !name}) registered with {@code instance} into {@code types[i]}; the undefined
     * types leave both null.
     */
    static void resolveType(Instance instance, String full, boolean allowPlaceholder, int i, ValueType[] valueTypes,
            RefType[] types) {
        switch (full) {
            case "i8" -> valueTypes[i] = ValueType.I8;
            case "i16" -> valueTypes[i] = ValueType.I16;
            case "i32" -> valueTypes[i] = ValueType.I32;
            case "i64" -> valueTypes[i] = ValueType.I64;
            case "f32" -> valueTypes[i] = ValueType.F32;
            case "f64" -> valueTypes[i] = ValueType.F64;
            case "!vm.opaque", "?", "!vm.ref<?>" -> {
                // undefined: neither value nor ref (a variant element type; no ref satisfies it)
            }
            default -> {
                if (full.charAt(0) != '!') {
                    throw new StatusException(StatusCode.NOT_FOUND,
                            "no type registered with name '" + printable(full) + "'");
                }
                String n = full.substring(1);
                if (n.startsWith("vm.list")) {
                    n = "vm.list";
                }
                types[i] = instance.resolveType(n, allowPlaceholder);
            }
        }
    }
}
