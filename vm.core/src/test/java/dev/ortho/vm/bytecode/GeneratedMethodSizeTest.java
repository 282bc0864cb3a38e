package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.ConformanceFiles;
import java.io.IOException;
import java.lang.classfile.Attributes;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.attribute.CodeAttribute;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every JVM method the compiler generates stays below {@link MethodSplitter#C1_METHOD_LIMIT}
 * (4,000 bytes of bytecode: HotSpot's {@code HugeMethodLimit} of 8,000 keeps larger methods from
 * being JIT-compiled at all, and C1's profiling tier fails on generated methods from about 5,600
 * bytes, which can leave one in C1 code for good): for the conformance suite and
 * for the VMVX kernel modules embedded in the models of {@code models/vmfb}. The sizes are read
 * from the class bytes the compiler writes.
 */
class GeneratedMethodSizeTest {
    static final int LIMIT = MethodSplitter.C1_METHOD_LIMIT;

    /** Code length per method of the class generated for {@code m}; empty if nothing was generated. */
    static Map<String, Integer> methodSizes(BytecodeModule m) {
        Compiler.Generated g = Compiler.generate(m);
        Map<String, Integer> sizes = new LinkedHashMap<>();
        if (g.classBytes() == null) {
            return sizes;
        }
        ClassModel cm = ClassFile.of().parse(g.classBytes());
        for (MethodModel mm : cm.methods()) {
            mm.findAttribute(Attributes.code()).ifPresent(
                    c -> sizes.put(mm.methodName().stringValue() + mm.methodType().stringValue(),
                            ((CodeAttribute) c).codeLength()));
        }
        return sizes;
    }

    /** The kernel module archives embedded in a host module's rodata: its VMVX executables. */
    static List<ModuleDef> kernelModules(Path vmfb) {
        List<ModuleDef> out = new ArrayList<>();
        for (ModuleDef.RodataDef r : BytecodeArchive.read(vmfb).rodata()) {
            MemorySegment d = r.data();
            // an executable is a module archive (ZIP local header "PK\3\4", size prefix, "IREE")
            if (d.byteSize() > 64 && d.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 0)
                    == 0x04034B50) {
                out.add(BytecodeArchive.read(d.toArray(ValueLayout.JAVA_BYTE)));
            }
        }
        return out;
    }

    static Path modelsDirectory() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("models/vmfb"))) {
                return p.resolve("models/vmfb");
            }
        }
        return null;
    }

    private static List<String> oversized(String name, BytecodeModule m) {
        List<String> out = new ArrayList<>();
        methodSizes(m).forEach((method, size) -> {
            if (size >= LIMIT) {
                out.add(name + " " + method + ": " + size + " bytes");
            }
        });
        return out;
    }

    /**
     * Prints what compiling {@code defs} eagerly costs (the figures in bench/README.md): wall time
     * of the first compilation in this JVM and of a second one, generated class bytes, heap
     * allocated by the compiling thread, functions compiled and split.
     */
    static void printCompileStatistics(String what, List<ModuleDef> defs) {
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long[] nanos = new long[2];
        long allocated = 0;
        int classBytes = 0;
        int functions = 0;
        int compiled = 0;
        int split = 0;
        long slowest = 0;
        for (int round = 0; round < 2; round++) {
            for (ModuleDef def : defs) {
                long a0 = threads.getCurrentThreadAllocatedBytes();
                BytecodeModule m = BytecodeModule.create(new Instance(), def, ConformanceTest.EXTENSIONS,
                        BytecodeModule.Options.DEFAULT.withExecution(ExecutionMode.EAGER));
                long a1 = threads.getCurrentThreadAllocatedBytes();
                BytecodeModule.CompilationStatistics s = m.compilationStatistics();
                nanos[round] += s.compileNanos();
                if (round == 1) {
                    allocated += a1 - a0;
                    classBytes += s.classBytes();
                    for (BytecodeModule.CompiledFunction fn : s.functions()) {
                        functions++;
                        compiled += fn.interpretedBecause() == null ? 1 : 0;
                        split += fn.jvmMethods() > 1 ? 1 : 0;
                        slowest = Math.max(slowest, fn.compileNanos());
                    }
                }
            }
        }
        System.out.printf("compile %s: %d modules, %d of %d functions compiled (%d split), first %.1f ms,"
                        + " again %.1f ms, slowest function %.2f ms, %d class bytes, %.1f MB allocated (load + compile)%n",
                what, defs.size(), compiled, functions, split, nanos[0] / 1e6, nanos[1] / 1e6, slowest / 1e6,
                classBytes, allocated / 1e6);
    }

    @Test
    void conformanceSuiteMethodsAreBelowTheMethodLimit() throws IOException {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite not found: skipped");
        List<String> big = new ArrayList<>();
        List<ModuleDef> defs = new ArrayList<>();
        for (Path file : files) {
            defs.add(new Assembler(ConformanceTest.EXTENSIONS).assemble(file));
        }
        printCompileStatistics("conformance suite", defs);
        for (Path file : files) {
            ModuleDef def = new Assembler(ConformanceTest.EXTENSIONS).assemble(file);
            big.addAll(oversized(file.getFileName().toString(),
                    BytecodeModule.create(new Instance(), def, ConformanceTest.EXTENSIONS)));
        }
        assertTrue(big.isEmpty(), "methods of " + LIMIT + " bytes or more:\n" + String.join("\n", big));
    }

    @Test
    void modelKernelMethodsAreBelowTheMethodLimit() throws IOException {
        Path dir = modelsDirectory();
        assumeTrue(dir != null, "models/vmfb not found: skipped");
        List<String> big = new ArrayList<>();
        int kernels = 0;
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".vmfb")).sorted().toList();
        }
        for (Path file : files) {
            List<ModuleDef> defs = kernelModules(file);
            printCompileStatistics(file.getFileName().toString(), defs);
            for (ModuleDef def : defs) {
                kernels++;
                BytecodeModule m = BytecodeModule.create(new Instance(), def, ConformanceTest.EXTENSIONS);
                big.addAll(oversized(file.getFileName() + "/" + def.name(), m));
                for (String why : Compiler.generate(m).reasons()) {
                    assertTrue(why == null || !why.contains("size limit"), file + ": " + why);
                }
            }
        }
        System.out.println(kernels + " kernel modules of " + files.size() + " models; oversized: " + big.size());
        assertTrue(kernels > 0, "no kernel modules found in " + dir);
        assertTrue(big.isEmpty(), "methods of " + LIMIT + " bytes or more:\n" + String.join("\n", big));
    }
}
