package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Module;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.ConformanceFiles;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.instruction.InvokeInstruction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;

/** Issue 16 item 4: compiled module bundles round trip, load without translating, and refuse corrupt input. */
class PrecompiledModuleTest {
    private static final String F32_LOOP = """
            vm.module @f version 3
            vm.export @poly
            vm.func @poly(%i0: f32, %i1: i32) -> (f32) {
            ^bb0:
              %i2 = vm.const.i32.zero
              %i3 = vm.const.i32 1
              %i4 = vm.const.f32 0.5
              %i5 = vm.const.f32.zero
              vm.br ^bb1()
            ^bb1:
              %i5 = vm.fma.f32 %i5, %i0, %i4
              %i2 = vm.add.i32 %i2, %i3
              %i6 = vm.cmp.lt.i32.s %i2, %i1
              vm.cond_br %i6, ^bb1(), ^bb2()
            ^bb2:
              vm.return %i5
            }
            """;

    private static byte[] archive(String source, String file) {
        return BytecodeArchive.write(new Assembler(VmasmFixture.EXTENSIONS).assemble(source, file));
    }

    private static byte[] bundle(String source) {
        return PrecompiledModule.compile(new Instance(), archive(source, "m.vmasm"), VmasmFixture.EXTENSIONS).toBundle();
    }

    @Test
    void bundleLoadsWithoutTranslatingAndRunsCompiledAsTheInterpreterDoes() {
        byte[] jar = bundle(CompilerModesTest.SOURCE);
        PrecompiledModule read = PrecompiledModule.fromBundle(jar);
        Instance instance = new Instance();
        long generations = Compiler.generations();
        BytecodeModule aot = read.load(instance, VmasmFixture.EXTENSIONS);
        BytecodeModule interpreted = CompilerModesTest.load(instance, ExecutionMode.OFF);
        try (Context a = Context.create(instance, aot); Context i = Context.create(instance, interpreted)) {
            for (int x : new int[] {-5, 0, 4, 6, 100}) {
                assertEquals(outcome(i, interpreted, "outer", x), outcome(a, aot, "outer", x), "outer(" + x + ")");
                assertEquals(outcome(i, interpreted, "count", x), outcome(a, aot, "count", x), "count(" + x + ")");
            }
        }
        assertEquals(generations, Compiler.generations(), "loading and running a compiled bundle translated");
        assertEquals(CompilerModesTest.load(instance, ExecutionMode.EAGER).compilationReport(), aot.compilationReport());
        assertEquals(aot.compilationReport(), read.compilationReport());
        assertNull(aot.compilationReport().get(0), "outer runs the stored class");
    }

    /** The result, or the status code, message and backtrace of a trap (outer(6) divides by zero). */
    private static String outcome(Context context, BytecodeModule module, String name, int x) {
        VmList in = VmList.ofVariants(1);
        in.pushI32(x);
        VmList out = VmList.ofVariants(1);
        try {
            Invocation.invoke(context, module.lookupExport(name), in, out);
            return "= " + out.getI32(0);
        } catch (StatusException e) {
            return e.toString();
        }
    }

    @Test
    void everyConformanceExportGivesTheInterpretersOutcomeFromABundle() throws IOException {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        int exports = 0;
        for (Path file : files) {
            ModuleDef def = new Assembler(VmasmFixture.EXTENSIONS).assemble(file);
            Instance instance = new Instance();
            // Compile with types unregistered (as compile-module does), load where they are.
            byte[] jar = PrecompiledModule.compile(new Instance(), BytecodeArchive.write(def), VmasmFixture.EXTENSIONS)
                    .toBundle();
            long generations = Compiler.generations();
            BytecodeModule aot = PrecompiledModule.fromBundle(jar).load(instance, VmasmFixture.EXTENSIONS);
            ModuleTestRunner.Report compiled = ModuleTestRunner.run(instance, List.of(), aot);
            assertEquals(generations, Compiler.generations(), file + " translated");
            ModuleTestRunner.Report reference = ModuleTestRunner.run(instance, List.of(),
                    BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS));
            assertEquals(reference.outcomes().size(), compiled.outcomes().size(), file.toString());
            for (int k = 0; k < reference.outcomes().size(); k++) {
                ModuleTestRunner.Outcome r = reference.outcomes().get(k);
                ModuleTestRunner.Outcome c = compiled.outcomes().get(k);
                assertEquals(r.name() + " " + r.passed() + " " + code(r.status()), c.name() + " " + c.passed() + " "
                        + code(c.status()), file.getFileName().toString());
                assertTrue(c.passed(), c.toString());
            }
            exports += compiled.outcomes().size();
        }
        assertEquals(304, exports);
    }

    private static StatusCode code(StatusException e) {
        return e == null ? null : e.code();
    }

    @Test
    void f32ModuleFromABundleMatchesTheInterpreterBitForBit() {
        PrecompiledModule read = PrecompiledModule.fromBundle(bundle(F32_LOOP));
        Instance instance = new Instance();
        BytecodeModule aot = read.load(instance, VmasmFixture.EXTENSIONS);
        assertNull(aot.compilationReport().get(0));
        BytecodeModule ref = BytecodeModule.create(instance, new Assembler(VmasmFixture.EXTENSIONS).assemble(F32_LOOP,
                "f.vmasm"), VmasmFixture.EXTENSIONS);
        for (float x : new float[] {0.3f, -1.7f, 1e-3f}) {
            assertEquals(Float.floatToRawIntBits(poly(instance, ref, x, 37)), Float.floatToRawIntBits(poly(instance, aot, x, 37)));
        }
    }

    private static float poly(Instance instance, Module module, float x, int n) {
        try (Context context = Context.create(instance, module)) {
            VmList in = VmList.ofVariants(2);
            in.pushF32(x);
            in.pushI32(n);
            VmList out = VmList.ofVariants(1);
            Invocation.invoke(context, module.lookupExport("poly"), in, out);
            return out.getF32(0);
        }
    }

    @Test
    void bundleIsAnOsgiBundleNamingModuleClassesAndCompilerFormatAndIsReproducible() throws IOException {
        byte[] jar = bundle(F32_LOOP);
        assertArrayEquals(jar, bundle(F32_LOOP), "same module, same compiler: same bytes");
        Map<String, byte[]> entries = entries(jar);
        Attributes a = new Manifest(new ByteArrayInputStream(entries.get(JarFile.MANIFEST_NAME))).getMainAttributes();
        assertEquals("2", a.getValue("Bundle-ManifestVersion"));
        assertEquals("ortho.module.f", a.getValue("Bundle-SymbolicName"));
        assertEquals("3.0.0", a.getValue("Bundle-Version"));
        assertTrue(a.getValue("Require-Capability").startsWith(
                "dev.ortho.vm.compiler;filter:=\"(&(dev.ortho.vm.compiler=jvm-classfile)(version=1.1.0))\""),
                a.getValue("Require-Capability"));
        String sha = PrecompiledModule.sha256(archive(F32_LOOP, "m.vmasm"));
        assertEquals("ortho/module/f.vmfb;name=\"f\";version=3;sha256=" + sha, a.getValue("Ortho-Module"));
        assertEquals("jvm-classfile;format=1.1.0;inlined=\"E0=f32,E1=f64\"", a.getValue("Ortho-Module-Compiler"));
        assertTrue(a.getValue("Ortho-Module-Classes").startsWith("ortho/module/f/Compiled.class;sha256="));
        assertArrayEquals(archive(F32_LOOP, "m.vmasm"), entries.get("ortho/module/f.vmfb"), "the module, unchanged");
        assertEquals(0xCAFEBABE, java.nio.ByteBuffer.wrap(entries.get("ortho/module/f/Compiled.class")).getInt());
        Attributes renamed = new Manifest(new ByteArrayInputStream(entries(PrecompiledModule.fromBundle(jar)
                .toBundle("ortho.module.x.y", "2.1.0.q")).get(JarFile.MANIFEST_NAME))).getMainAttributes();
        assertEquals("ortho.module.x.y", renamed.getValue("Bundle-SymbolicName"));
        assertEquals("2.1.0.q", renamed.getValue("Bundle-Version"));
        StatusException e = assertThrows(StatusException.class,
                () -> PrecompiledModule.fromBundle(jar).toBundle("bad name", "1.0.0"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
    }

    @Test
    void moduleNamesAreQuotedInHeadersAndControlCharactersRefused() throws IOException {
        byte[] odd = renamed("we;ird\"names");
        byte[] jar = PrecompiledModule.compile(new Instance(), odd, VmasmFixture.EXTENSIONS).toBundle();
        Attributes a = new Manifest(new ByteArrayInputStream(entries(jar).get(JarFile.MANIFEST_NAME))).getMainAttributes();
        assertEquals("ortho.module.we_ird_names", a.getValue("Bundle-SymbolicName"));
        PrecompiledModule read = PrecompiledModule.fromBundle(jar);
        assertEquals("we;ird\"names", read.moduleName());
        assertNull(read.load(new Instance(), VmasmFixture.EXTENSIONS).compilationReport().get(0));
        PrecompiledModule control = PrecompiledModule.compile(new Instance(), renamed("we\nird\"names"),
                VmasmFixture.EXTENSIONS);
        StatusException e = assertThrows(StatusException.class, control::toBundle);
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("control characters"), e.getMessage());
    }

    /** {@link #F32_LOOP} named {@code name} (12 characters), patched into the archive's name string. */
    private static byte[] renamed(String name) {
        byte[] a = archive(F32_LOOP.replace("vm.module @f", "vm.module @weXirdYnameZ"), "m.vmasm");
        int at = new String(a, StandardCharsets.ISO_8859_1).indexOf("weXirdYnameZ");
        assertTrue(at > 0);
        System.arraycopy(name.getBytes(StandardCharsets.ISO_8859_1), 0, a, at, 12);
        return a;
    }

    @Test
    void storedModuleThatIsNotTheOneTheClassesCameFromIsFailedPrecondition() throws IOException {
        byte[] jar = bundle(F32_LOOP);
        byte[] other = archive(F32_LOOP.replace("0.5", "0.25"), "m.vmasm");
        StatusException e = assertThrows(StatusException.class, () -> PrecompiledModule.fromBundle(
                rewrite(jar, entries -> { entries.put("ortho/module/f.vmfb", other); return entries; })));
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        String message = e.getMessage();
        assertTrue(message.contains("'ortho.module.f 3.0.0'"), message);
        assertTrue(message.contains("module 'f'"), message);
        assertTrue(message.contains(PrecompiledModule.sha256(other)), message);
        assertTrue(message.contains(PrecompiledModule.sha256(archive(F32_LOOP, "m.vmasm"))), message);
    }

    @Test
    void corruptClassBytesAreFailedPrecondition() {
        byte[] jar = bundle(F32_LOOP);
        StatusException e = assertThrows(StatusException.class, () -> PrecompiledModule.fromBundle(
                rewrite(jar, entries -> {
                    entries.get("ortho/module/f/Compiled.class")[100] ^= 1;
                    return entries;
                })));
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("Compiled.class has SHA-256"), e.getMessage());
    }

    @Test
    void anotherCompilerFormatIsIncompatible() {
        byte[] jar = bundle(F32_LOOP);
        StatusException e = assertThrows(StatusException.class, () -> PrecompiledModule.fromBundle(
                rewriteManifest(jar, "Ortho-Module-Compiler", v -> v.replace("format=1.1.0", "format=2.0.0"))));
        assertEquals(StatusCode.INCOMPATIBLE, e.code());
        assertTrue(e.getMessage().contains("format 2.0.0, but this runtime runs 'jvm-classfile' format 1.1.0"),
                e.getMessage());
    }

    @Test
    void classesThatReferenceWhatThisVmCoreLacksAreIncompatibleAtLoadNotAtRunTime() {
        byte[] jar = bundle(F32_LOOP);
        // A class as another vm.core build could have generated: it calls a helper this one lacks.
        byte[] changed = rehashed(jar, "ortho/module/f/Compiled.class", "Ortho-Module-Classes", bytes ->
                ClassFile.of().transformClass(ClassFile.of().parse(bytes), ClassTransform.transformingMethodBodies(
                        (CodeTransform) (cb, el) -> {
                            if (el instanceof InvokeInstruction i && i.name().stringValue().equals("fmaF32")) {
                                cb.invoke(i.opcode(), i.owner().asSymbol(), "fmaF32v2", i.typeSymbol(), i.isInterface());
                            } else {
                                cb.with(el);
                            }
                        })));
        PrecompiledModule read = PrecompiledModule.fromBundle(changed);
        StatusException e = assertThrows(StatusException.class, () -> read.load(new Instance(), VmasmFixture.EXTENSIONS));
        assertEquals(StatusCode.INCOMPATIBLE, e.code());
        assertTrue(e.getMessage().contains("CompiledSupport.fmaF32v2"), e.getMessage());
        assertTrue(e.getMessage().contains("bundle 'ortho.module.f 3.0.0'"), e.getMessage());
    }

    @Test
    void classBytesTheJvmRejectsAreIncompatibleAtLoad() {
        byte[] jar = bundle(F32_LOOP);
        byte[] changed = rehashed(jar, "ortho/module/f/Compiled.class", "Ortho-Module-Classes",
                bytes -> "not a class".getBytes(StandardCharsets.UTF_8));
        StatusException e = assertThrows(StatusException.class,
                () -> PrecompiledModule.fromBundle(changed).load(new Instance(), VmasmFixture.EXTENSIONS));
        assertEquals(StatusCode.INCOMPATIBLE, e.code());
    }

    @Test
    void otherInlineExtensionsThanAtCompileTimeAreIncompatible() {
        // CompilerModesTest.SOURCE uses no float op: it loads without extensions, but its class
        // was generated with ExtF32/ExtF64 inline.
        PrecompiledModule read = PrecompiledModule.fromBundle(bundle(CompilerModesTest.SOURCE));
        StatusException e = assertThrows(StatusException.class, () -> read.load(new Instance(), List.of()));
        assertEquals(StatusCode.INCOMPATIBLE, e.code());
        assertTrue(e.getMessage().contains("inline extensions [E0=f32,E1=f64] but this runtime has []"), e.getMessage());
    }

    @Test
    void interpretedWhenTheOptionsSaySo() {
        BytecodeModule m = PrecompiledModule.fromBundle(bundle(F32_LOOP)).load(new Instance(), VmasmFixture.EXTENSIONS,
                BytecodeModule.Options.DEFAULT);
        assertEquals(List.of("not compiled"), m.compilationReport());
    }

    @Test
    void malformedManifestsAndTablesAreStatusErrorsNamingTheProblem() {
        byte[] jar = bundle(F32_LOOP);
        assertStatus(StatusCode.INVALID_ARGUMENT, "manifest has no Ortho-Module header",
                rewriteManifest(jar, "Ortho-Module", v -> null));
        assertStatus(StatusCode.INVALID_ARGUMENT, "Ortho-Module header has no 'sha256' parameter",
                rewriteManifest(jar, "Ortho-Module", v -> v.replaceAll(";sha256=.*", "")));
        assertStatus(StatusCode.INVALID_ARGUMENT, "unterminated quote",
                rewriteManifest(jar, "Ortho-Module", v -> v.replace("name=\"f\"", "name=\"f")));
        assertStatus(StatusCode.NOT_FOUND, "resource 'ortho/module/g.vmfb' named by Ortho-Module is missing",
                rewriteManifest(jar, "Ortho-Module", v -> v.replace("f.vmfb", "g.vmfb")));
        assertStatus(StatusCode.FAILED_PRECONDITION, "the stored module is 'f' version 3",
                rewriteManifest(jar, "Ortho-Module", v -> v.replace("version=3", "version=4")));
        assertStatus(StatusCode.INVALID_ARGUMENT, "function table entry compiled.0 is 'x'",
                rehashed(jar, "ortho/module/f/functions.properties", "Ortho-Module-Functions",
                        b -> new String(b, StandardCharsets.UTF_8).replaceAll("compiled.0=\\d+", "compiled.0=x")
                                .getBytes(StandardCharsets.UTF_8)));
        assertStatus(StatusCode.INVALID_ARGUMENT, "no entry for function 0",
                rehashed(jar, "ortho/module/f/functions.properties", "Ortho-Module-Functions",
                        b -> new String(b, StandardCharsets.UTF_8).replaceAll("compiled.0=\\d+", "")
                                .getBytes(StandardCharsets.UTF_8)));
        assertStatus(StatusCode.INVALID_ARGUMENT, "1 compiled functions but no Ortho-Module-Classes header",
                rewriteManifest(jar, "Ortho-Module-Classes", v -> null));
        assertStatus(StatusCode.INVALID_ARGUMENT, "jar has no META-INF/MANIFEST.MF",
                rewrite(jar, e -> { e.remove(JarFile.MANIFEST_NAME); return e; }));
    }

    @Test
    void truncatedAndFlippedBundlesFailWithAStatusNeverAnotherException() {
        byte[] jar = bundle(F32_LOOP);
        // Entries are read as a stream: a jar cut inside the central directory still holds them all.
        int directory = new String(jar, StandardCharsets.ISO_8859_1).indexOf("PK\1\2");
        assertTrue(directory > 0);
        for (int n = 0; n < directory; n += 7) {
            byte[] cut = java.util.Arrays.copyOf(jar, n);
            assertThrows(StatusException.class, () -> PrecompiledModule.fromBundle(cut).load(new Instance(),
                    VmasmFixture.EXTENSIONS), "truncated at " + n);
        }
        java.util.Random random = new java.util.Random(16);
        for (int k = 0; k < 300; k++) {
            byte[] flipped = jar.clone();
            flipped[random.nextInt(flipped.length)] ^= (byte) (1 << random.nextInt(8));
            try {
                PrecompiledModule.fromBundle(flipped).load(new Instance(), VmasmFixture.EXTENSIONS);
            } catch (StatusException expected) {
                assertNotNull(expected.code());
            }
        }
    }

    private static void assertStatus(StatusCode code, String fragment, byte[] jar) {
        StatusException e = assertThrows(StatusException.class,
                () -> PrecompiledModule.fromBundle(jar).load(new Instance(), VmasmFixture.EXTENSIONS));
        assertEquals(code, e.code(), e.toString());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    // ---------------------------------------------------------------- jar surgery

    static Map<String, byte[]> entries(byte[] jar) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(jar))) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                out.put(e.getName(), zip.readAllBytes());
            }
        }
        return out;
    }

    private static byte[] rewrite(byte[] jar, UnaryOperator<Map<String, byte[]>> change) {
        try {
            Map<String, byte[]> entries = change.apply(entries(jar));
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
                for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                    zip.putNextEntry(new ZipEntry(e.getKey()));
                    zip.write(e.getValue());
                    zip.closeEntry();
                }
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] rewriteManifest(byte[] jar, String header, UnaryOperator<String> change) {
        return rewrite(jar, entries -> {
            try {
                Manifest m = new Manifest(new ByteArrayInputStream(entries.get(JarFile.MANIFEST_NAME)));
                String v = change.apply(m.getMainAttributes().getValue(header));
                if (v == null) {
                    m.getMainAttributes().remove(new Attributes.Name(header));
                } else {
                    m.getMainAttributes().putValue(header, v);
                }
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                m.write(out);
                entries.put(JarFile.MANIFEST_NAME, out.toByteArray());
                return entries;
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
    }

    /** Replaces resource {@code path} and records its new hash in {@code header}, as a consistent but different build would. */
    private static byte[] rehashed(byte[] jar, String path, String header, UnaryOperator<byte[]> change) {
        byte[][] changed = new byte[1][];
        byte[] content = rewrite(jar, entries -> {
            changed[0] = change.apply(entries.get(path));
            entries.put(path, changed[0]);
            return entries;
        });
        return rewriteManifest(content, header, v -> v.replaceAll("sha256=\\w+",
                "sha256=" + PrecompiledModule.sha256(changed[0])));
    }
}
