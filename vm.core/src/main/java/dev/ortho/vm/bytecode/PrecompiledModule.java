package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Instance;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.ModuleProvider;
import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.FieldRefEntry;
import java.lang.classfile.constantpool.MemberRefEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.Supplier;

/**
 * A bytecode module together with the JVM class Ortho's compiler generated from it ahead of
 * time: what {@code ortho compile-module} stores in a bundle, and what loads from that bundle
 * with nothing left to translate.
 *
 * <p>{@link #compile} reads and verifies an archive and runs the compiler's generator (no class
 * is defined). {@link #toBundle} writes the OSGi bundle described in the package documentation;
 * {@link #fromBundle(byte[])} and {@link #fromBundle(String, java.util.Map, Resources)} read one
 * back, checking that the stored classes were generated from exactly the stored module bytes by
 * this compiler format (SHA-256 of module, classes and function table recorded at compile time).
 * {@link #load} then creates a {@link BytecodeModule} whose compiled functions run the stored
 * class, defined as a hidden class through vm.core's own lookup (so it unloads with the
 * module): the bytecode is verified as for any module, but never translated.
 *
 * <p>Mismatches fail, they never fall back to translating silently: a bundle whose stored
 * module or classes are not the ones recorded is FAILED_PRECONDITION, a bundle compiled for
 * another compiler format, or with other inline instruction extensions than the runtime's, is
 * INCOMPATIBLE; the message names the bundle, the module and both values. (A deployment that
 * ships a compiled bundle wants to know its build is wrong rather than pay the translation
 * unnoticed.)
 *
 * <p>Immutable and thread-safe. Every load defines its own hidden class, which lives as long as
 * the module returned.
 */
public final class PrecompiledModule {
    /** Name of Ortho's VM-to-JVM compiler in the {@link #CAPABILITY_NAMESPACE} capability. */
    public static final String COMPILER = "jvm-classfile";
    /**
     * Version of the contract between generated classes and this vm.core (the helpers, fields
     * and signatures the generated code references). Stored classes run only on a runtime with
     * exactly this format; it changes whenever that contract changes.
     */
    public static final String FORMAT = "1.1.0";
    /**
     * OSGi capability namespace: vm.core provides {@code dev.ortho.vm.compiler=jvm-classfile;
     * version=FORMAT}, compiled bundles require it, so an incompatible runtime does not resolve them.
     */
    public static final String CAPABILITY_NAMESPACE = "dev.ortho.vm.compiler";
    /** Manifest header naming the module resource; a bundle with it is a compiled module bundle. */
    public static final String HEADER_MODULE = "Ortho-Module";

    /** Opens resources of a bundle by path. */
    @FunctionalInterface
    public interface Resources {
        /**
         * Opens resource {@code path}; the caller closes the stream.
         *
         * @return the stream, or null if the bundle has no such resource
         * @throws IOException if the resource exists but cannot be read
         */
        InputStream open(String path) throws IOException;
    }

    final byte[] archive;
    final ModuleDef def;
    final String moduleSha256;
    final String inlined;
    final Compiler.Generated generated;
    /** Where this came from, for messages ({@code bundle 'x'}), or empty. */
    final String source;

    PrecompiledModule(byte[] archive, ModuleDef def, String moduleSha256, String inlined, Compiler.Generated generated,
                      String source) {
        this.archive = archive;
        this.def = def;
        this.moduleSha256 = moduleSha256;
        this.inlined = inlined;
        this.generated = generated;
        this.source = source;
    }

    /**
     * Reads and verifies the module in {@code archive} (a {@code .vmfb}; copied) and generates
     * the JVM class of every function the compiler covers, with {@code extensions} deciding
     * which extension ops are emitted inline. Ref types need not be registered. Runs on the
     * calling thread; defines no class.
     *
     * @throws StatusException as {@link BytecodeArchive#read(byte[])} and
     *     {@link BytecodeModule#create} for a malformed or unverifiable module
     */
    public static PrecompiledModule compile(Instance instance, byte[] archive,
                                            List<? extends InstructionExtension> extensions) {
        Objects.requireNonNull(instance, "instance");
        byte[] copy = archive.clone();
        ModuleDef def = BytecodeArchive.read(copy);
        BytecodeModule module = BytecodeModule.create(instance, def, extensions,
                new BytecodeModule.Options(false, true, ExecutionMode.OFF));
        long t0 = System.nanoTime();
        Compiler.Generated generated = Compiler.generate(module);
        PrecompiledModule out = new PrecompiledModule(copy, def, sha256(copy), inlined(module), generated, "");
        out.generateNanos = System.nanoTime() - t0;
        return out;
    }

    /**
     * Reads a compiled module bundle from its jar bytes, checking manifest, hashes and format as
     * {@link #fromBundle(String, java.util.Map, Resources)} does.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code jar} is not a jar with such a manifest,
     *     else as {@link #fromBundle(String, java.util.Map, Resources)}
     */
    public static PrecompiledModule fromBundle(byte[] jar) {
        return CompiledBundle.read(jar);
    }

    /**
     * Reads the compiled module bundle described by {@code headers} (its manifest's main
     * attributes), opening its resources through {@code resources}; {@code bundle} names it in
     * messages (e.g. {@code ortho.module.mlp 1.0.0 [42]}).
     *
     * @throws StatusException INVALID_ARGUMENT for a missing or malformed {@code Ortho-Module*}
     *     header or function table, NOT_FOUND for a resource the headers name but the bundle
     *     lacks, INCOMPATIBLE for another compiler format, FAILED_PRECONDITION when a resource's
     *     SHA-256 or the module's name or version is not what the manifest records,
     *     RESOURCE_EXHAUSTED for a resource over 2 GiB, UNAVAILABLE when one cannot be read
     */
    public static PrecompiledModule fromBundle(String bundle, java.util.Map<String, String> headers,
                                               Resources resources) {
        return CompiledBundle.read(bundle, headers, resources);
    }

    /**
     * This module as an OSGi bundle (jar bytes) with symbolic name {@link #symbolicName()} and
     * version {@link #bundleVersion()}. Deterministic: the same module compiled by the same
     * compiler gives the same bytes.
     */
    public byte[] toBundle() {
        return CompiledBundle.write(this, symbolicName(), bundleVersion());
    }

    /**
     * As {@link #toBundle()} with the given symbolic name and version.
     *
     * @throws StatusException INVALID_ARGUMENT if either is not valid OSGi syntax
     */
    public byte[] toBundle(String symbolicName, String version) {
        return CompiledBundle.write(this, symbolicName, version);
    }

    /** The module name. */
    public String moduleName() {
        return def.name();
    }

    /** The module version. */
    public int moduleVersion() {
        return def.version();
    }

    /** SHA-256 of the module archive, lower-case hex. */
    public String moduleSha256() {
        return moduleSha256;
    }

    /** The default bundle symbolic name: {@code ortho.module.<name>} (characters outside {@code [A-Za-z0-9_-]} as {@code _}). */
    public String symbolicName() {
        return "ortho.module." + def.name().replaceAll("[^A-Za-z0-9_-]", "_");
    }

    /** The default bundle version: {@code <module version>.0.0}. */
    public String bundleVersion() {
        return Integer.toUnsignedString(def.version()) + ".0.0";
    }

    /** Nanoseconds {@link #compile} took to translate the module; 0 if read from a bundle. */
    private long generateNanos;

    /**
     * What translating this module produced, as {@link BytecodeModule#compilationStatistics()}
     * (its {@code compileNanos}: the translation, 0 for a module read from a bundle).
     */
    public BytecodeModule.CompilationStatistics compilationStatistics() {
        String[] names = new String[generated.compiled().length];
        for (ModuleDef.ExportDef e : def.exports()) {
            if (e.internalOrdinal() >= 0 && e.internalOrdinal() < names.length && names[e.internalOrdinal()] == null) {
                names[e.internalOrdinal()] = e.localName();
            }
        }
        List<BytecodeModule.CompiledFunction> out = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            boolean yes = generated.compiled()[i];
            out.add(new BytecodeModule.CompiledFunction(names[i] == null ? "" : names[i],
                    yes ? null : generated.reasons()[i], yes ? generated.methods()[i] : 0,
                    yes ? generated.codeBytes()[i] : 0, generated.nanos()[i]));
        }
        return new BytecodeModule.CompilationStatistics(generateNanos, classSize(), out);
    }

    /** Size in bytes of the generated class (0 if no function compiled). */
    public int classSize() {
        return generated.classBytes() == null ? 0 : generated.classBytes().length;
    }

    /**
     * Per internal function ordinal: null if it is compiled into the stored class, else why it
     * stays interpreted (as {@link BytecodeModule#compilationReport()}).
     */
    public List<String> compilationReport() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < generated.compiled().length; i++) {
            out.add(generated.compiled()[i] ? null : generated.reasons()[i]);
        }
        return Collections.unmodifiableList(out);
    }

    /** {@link #load(Instance, List, BytecodeModule.Options)} with compiled execution and no tracing. */
    public BytecodeModule load(Instance instance, List<? extends InstructionExtension> extensions) {
        return load(instance, extensions, BytecodeModule.Options.DEFAULT.withExecution(ExecutionMode.EAGER));
    }

    /**
     * Creates the module for {@code instance}: verified as {@link BytecodeModule#create}, and,
     * unless {@code options} ask for {@link ExecutionMode#OFF} or execution tracing (then every
     * function is interpreted), with the stored class defined for its compiled functions.
     * Nothing is translated.
     *
     * @throws StatusException as {@link BytecodeModule#create}; INCOMPATIBLE if the runtime's
     *     inline extensions differ from the compile-time ones or the JVM or this vm.core rejects
     *     the stored class
     */
    public BytecodeModule load(Instance instance, List<? extends InstructionExtension> extensions,
                               BytecodeModule.Options options) {
        try {
            return BytecodeModule.createPrecompiled(instance, def, extensions, options, this);
        } catch (StatusException e) {
            throw source.isEmpty() ? e : e.annotate("from bundle " + source);
        }
    }

    /**
     * A module provider that loads this module with the extensions {@code extensions} supplies
     * at each {@link ModuleProvider#createModule} call (a live service list works). Thread-safe.
     */
    public ModuleProvider provider(Supplier<? extends List<? extends InstructionExtension>> extensions) {
        Objects.requireNonNull(extensions, "extensions");
        return instance -> load(instance, extensions.get());
    }

    /** Called by {@link BytecodeModule}'s constructor once the module verified: checks and defines the class. */
    Compiler.Result define(BytecodeModule m) {
        Compiler.Generated g = generated;
        if (g.compiled().length != m.functionCount) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, what() + "function table has "
                    + g.compiled().length + " functions but the module has " + m.functionCount);
        }
        String have = inlined(m);
        if (!have.equals(inlined)) {
            throw new StatusException(StatusCode.INCOMPATIBLE, what() + "classes were compiled with inline extensions ["
                    + inlined + "] but this runtime has [" + have + "]");
        }
        if (g.classBytes() != null) {
            linkCheck(g.classBytes());
        }
        try {
            return Compiler.define(new Compiler.Generated(g.classBytes(), g.compiled().clone(), g.maxBytes().clone(),
                    g.maxResults(), g.reasons().clone(), g.untyped().clone(), g.methods().clone(), g.codeBytes().clone(),
                    g.nanos().clone()));
        } catch (Throwable e) {
            throw new StatusException(StatusCode.INCOMPATIBLE, what() + "the JVM rejects the stored classes: " + e, e);
        }
    }

    private String what() {
        return (source.isEmpty() ? "" : "bundle " + source + ": ") + "compiled module '" + printable(def.name()) + "': ";
    }

    /**
     * Every field and method the class references outside itself exists in this runtime with the
     * same descriptor, so a class compiled against another vm.core fails here, not with a
     * {@code NoSuchMethodError} in the middle of a call.
     */
    private void linkCheck(byte[] classBytes) {
        ClassModel model;
        try {
            model = ClassFile.of().parse(classBytes);
        } catch (IllegalArgumentException e) {
            throw new StatusException(StatusCode.INCOMPATIBLE, what() + "stored class is malformed: " + e.getMessage(), e);
        }
        String self = model.thisClass().asInternalName();
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        for (PoolEntry entry : model.constantPool()) {
            if (!(entry instanceof MemberRefEntry ref) || ref.owner().asInternalName().equals(self)
                    || ref.owner().asInternalName().startsWith("[")) {
                continue;
            }
            String owner = ref.owner().asInternalName().replace('/', '.');
            String name = ref.name().stringValue();
            String type = ref.type().stringValue();
            boolean found;
            try {
                found = MEMBERS.get(lookup.findClass(owner)).contains((ref instanceof FieldRefEntry ? "F" : "M")
                        + name + type);
            } catch (ReflectiveOperationException | LinkageError | IllegalArgumentException e) {
                found = false;
            }
            if (!found) {
                throw new StatusException(StatusCode.INCOMPATIBLE, what() + "stored classes reference " + owner + "."
                        + name + " " + type + ", which this vm.core does not have (compiled for another build?)");
            }
        }
    }

    /**
     * Per class, every field ({@code F<name><descriptor>}), method and constructor
     * ({@code M<name><descriptor>}) it declares or inherits from superclasses and interfaces: a
     * memo of immutable facts, computed once per class (the check then costs a set lookup per
     * reference).
     */
    private static final ClassValue<java.util.Set<String>> MEMBERS = new ClassValue<>() {
        @Override
        protected java.util.Set<String> computeValue(Class<?> c) {
            java.util.Set<String> out = new java.util.HashSet<>();
            for (java.lang.reflect.Constructor<?> k : c.getDeclaredConstructors()) {
                out.add("M<init>" + MethodType.methodType(void.class, k.getParameterTypes()).descriptorString());
            }
            List<Class<?>> todo = new ArrayList<>(List.of(c));
            while (!todo.isEmpty()) {
                Class<?> k = todo.removeLast();
                for (Field f : k.getDeclaredFields()) {
                    out.add("F" + f.getName() + f.getType().descriptorString());
                }
                for (Method m : k.getDeclaredMethods()) {
                    out.add("M" + m.getName() + MethodType.methodType(m.getReturnType(), m.getParameterTypes())
                            .descriptorString());
                }
                if (k.getSuperclass() != null) {
                    todo.add(k.getSuperclass());
                }
                todo.addAll(List.of(k.getInterfaces()));
            }
            return java.util.Set.copyOf(out);
        }
    };

    /**
     * The extension slots whose ops the compiler emits inline (ExtF32/ExtF64; see
     * {@code Compiler.FunctionGen.inline}), e.g. {@code E0=f32,E1=f64}: generated code depends on
     * them, other extensions are called through the module at run time.
     */
    static String inlined(BytecodeModule m) {
        StringJoiner j = new StringJoiner(",");
        for (int i = 0; i < m.extensions.length; i++) {
            InstructionExtension e = m.extensions[i];
            if (e instanceof ExtF32Extension) {
                j.add(Integer.toHexString(0xE0 + i).toUpperCase(java.util.Locale.ROOT) + "=f32");
            } else if (e instanceof ExtF64Extension) {
                j.add(Integer.toHexString(0xE0 + i).toUpperCase(java.util.Locale.ROOT) + "=f64");
            }
        }
        return j.toString();
    }

    static String sha256(byte[] bytes) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new StatusException(StatusCode.INTERNAL, "no SHA-256 in this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "PrecompiledModule[" + def.name() + " v" + Integer.toUnsignedString(def.version()) + ", sha256 "
                + moduleSha256 + ", " + classSize() + " class bytes" + (source.isEmpty() ? "" : ", " + source) + "]";
    }
}
