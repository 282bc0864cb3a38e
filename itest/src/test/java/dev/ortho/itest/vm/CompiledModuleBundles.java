package dev.ortho.itest.vm;

import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.PrecompiledModule;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.spi.InstructionExtension;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * Host-side builder of compiled module bundles for {@link CompiledModuleBundleIT}, used only from
 * its {@code @Configuration} method (outside the framework, where vm.core's internal extensions
 * are on the class path; the framework never loads this class). Does what
 * {@code ortho compile-module} does, through the same public API.
 */
final class CompiledModuleBundles {
    /** {@code aot_poly.weighted_sum(x, n)}: the sum of {@code i * x} for i from 0 to n - 1, in f32. */
    static final String F32_LOOP = """
            vm.module @aot_poly version 3
            vm.export @weighted_sum
            vm.func @weighted_sum(%i0: f32, %i1: i32) -> (f32) {
            ^bb0:
              %i2 = vm.const.i32.zero
              %i3 = vm.const.i32 1
              %i5 = vm.const.f32.zero
              vm.br ^bb1()
            ^bb1:
              %i4 = vm.cast.si32.f32 %i2
              %i4 = vm.mul.f32 %i4, %i0
              %i5 = vm.add.f32 %i5, %i4
              %i2 = vm.add.i32 %i2, %i3
              %i6 = vm.cmp.lt.i32.s %i2, %i1
              vm.cond_br %i6, ^bb1(), ^bb2()
            ^bb2:
              vm.return %i5
            }
            """;

    private CompiledModuleBundles() {
    }

    /** The bundle of {@link #F32_LOOP} with {@code manifest} applied to its manifest text, as a file URI. */
    static String build(String file, UnaryOperator<String> manifest) throws IOException {
        List<InstructionExtension> extensions = List.of(new ExtF32Extension(), new ExtF64Extension());
        byte[] archive = BytecodeArchive.write(new Assembler(extensions).assemble(F32_LOOP, "aot_poly.vmasm"));
        byte[] jar = PrecompiledModule.compile(new Instance(), archive, extensions).toBundle();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipInputStream in = new ZipInputStream(new ByteArrayInputStream(jar));
             ZipOutputStream out = new ZipOutputStream(bytes)) {
            for (ZipEntry e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                byte[] data = in.readAllBytes();
                if (e.getName().equals(JarFile.MANIFEST_NAME)) {
                    ByteArrayOutputStream text = new ByteArrayOutputStream();
                    new Manifest(new ByteArrayInputStream(data)).write(text);
                    // unwrap continuation lines, edit, let Manifest wrap again
                    String edited = manifest.apply(text.toString(java.nio.charset.StandardCharsets.UTF_8)
                            .replace("\r\n ", "").replace("\n ", ""));
                    ByteArrayOutputStream rewritten = new ByteArrayOutputStream();
                    new Manifest(new ByteArrayInputStream(edited.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                            .write(rewritten);
                    data = rewritten.toByteArray();
                }
                out.putNextEntry(new ZipEntry(e.getName()));
                out.write(data);
                out.closeEntry();
            }
        }
        File dir = new File("target/vm-itest");
        Files.createDirectories(dir.toPath());
        File target = new File(dir, file);
        Files.write(target.toPath(), bytes.toByteArray());
        return target.toURI().toString();
    }
}
