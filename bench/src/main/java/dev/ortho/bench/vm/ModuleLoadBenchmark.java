package dev.ortho.bench.vm;

import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.ExportDef;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.ModuleStateDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Loading a 1 MiB {@code .vmfb} archive (2 000 functions and exports, 100 imports, 64 types,
 * 512 KiB of bytecode, 256 embedded rodata segments of 1 KiB plus 256 KiB external rodata), in
 * µs per load: parse, structural FlatBuffer verification and metadata verification into a
 * {@link ModuleDef} (function bytecode verification belongs to the bytecode module, not here).
 *
 * <p>{@code impl}: {@code mapped} maps the file ({@link BytecodeArchive#read(Path)}, zero copy);
 * {@code heap} reads the file into a {@code byte[]} and parses that; peer {@code readBytes}
 * only reads the file into a {@code byte[]} — the cost of touching the archive once, which a
 * copying loader cannot beat. {@link #write} serializes the same module (what
 * {@code as-module} does after assembling).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ModuleLoadBenchmark {
    @Param({"mapped", "heap", "readBytes"})
    public String impl;

    private Path file;
    private ModuleDef module;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        module = oneMebibyteModule();
        file = Files.createTempFile("ortho-load-bench", ".vmfb");
        Files.write(file, BytecodeArchive.write(module));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        Files.deleteIfExists(file);
    }

    static ModuleDef oneMebibyteModule() {
        Random random = new Random(1);
        int functions = 2000;
        byte[] bytecode = new byte[512 * 1024];
        random.nextBytes(bytecode);
        int span = bytecode.length / functions;
        List<FunctionDescriptor> descriptors = new ArrayList<>();
        List<SignatureDef> signatures = new ArrayList<>();
        List<ExportDef> exports = new ArrayList<>();
        for (int i = 0; i < functions; i++) {
            descriptors.add(new FunctionDescriptor(i * span, span, 0, (short) 0, (short) 4, (short) 32, (short) 8));
            signatures.add(new SignatureDef("0rii_ri", List.of()));
            exports.add(new ExportDef("function_number_" + i, i));
        }
        List<ImportDef> imports = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            imports.add(new ImportDef("hal.import_" + i, new SignatureDef("0rrr_i", List.of()), ImportDef.REQUIRED));
        }
        List<String> types = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            types.add("!custom.type_" + i);
        }
        List<RodataDef> rodata = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            byte[] data = new byte[1024];
            random.nextBytes(data);
            rodata.add(new RodataDef(MemorySegment.ofArray(data), false));
        }
        rodata.add(new RodataDef(MemorySegment.ofArray(new byte[256 * 1024]), true));
        return new ModuleDef("load_benchmark", 1, 0, List.of(), types, List.of(), imports, exports, signatures,
                rodata, List.of(), new ModuleStateDef(4096, 64), descriptors,
                ModuleDef.BYTECODE_VERSION_MAJOR << 16, MemorySegment.ofArray(bytecode), null);
    }

    @Benchmark
    public Object load() throws IOException {
        return switch (impl) {
            case "mapped" -> BytecodeArchive.read(file);
            case "heap" -> BytecodeArchive.read(Files.readAllBytes(file));
            default -> Files.readAllBytes(file);
        };
    }

    @Benchmark
    public byte[] write() {
        return BytecodeArchive.write(module);
    }
}
