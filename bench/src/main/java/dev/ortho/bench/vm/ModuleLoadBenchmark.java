package dev.ortho.bench.vm;

import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.BytecodeModule;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.ModuleStateDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
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
 * Loading a 1 MiB {@code .vmfb} archive (2 000 exported functions of assembled bytecode, ~520 KiB
 * in all, 100 imports, 64 types, 256 embedded rodata segments of 1 KiB plus 256 KiB external
 * rodata), in µs per load. {@link #load}: parse, structural FlatBuffer verification and metadata
 * verification into a {@link ModuleDef}; {@link #loadAndCreate}: that plus
 * {@link BytecodeModule#create}, which verifies every function's bytecode (what IREE's
 * {@code iree_vm_bytecode_module_create} does).
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

    /** Unregistered ref types load as placeholders, as iree-dump-module loads modules. */
    private static final BytecodeModule.Options PLACEHOLDER_TYPES = new BytecodeModule.Options(false, true);

    private final Instance instance = new Instance();
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
        // 2 000 exported functions of real, verifiable bytecode (~256 B each), assembled once.
        int functions = 2000;
        StringBuilder text = new StringBuilder("vm.module @load_benchmark version 1\n");
        for (int i = 0; i < 64; i++) {
            text.append("vm.type !custom.type_").append(i).append('\n');
        }
        for (int i = 0; i < 100; i++) {
            text.append("vm.import @hal.import_").append(i).append(" cconv \"0rrr_i\"\n");
        }
        for (int f = 0; f < functions; f++) {
            text.append("vm.export @function_number_").append(f).append('\n')
                    .append("vm.func @function_number_").append(f).append("(%i0: i32, %i1: i32) -> (i32) {\n");
            for (int k = 0; k < 36; k++) {
                text.append("  %i").append(2 + k % 6).append(" = vm.add.i32 %i").append(k % 2).append(", %i")
                        .append(2 + (k + 5) % 6).append('\n');
            }
            text.append("  vm.return %i2\n}\n");
        }
        ModuleDef assembled = new Assembler(List.of()).assemble(text.toString(), "load_benchmark.vmasm");
        Random random = new Random(1);
        List<RodataDef> rodata = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            byte[] data = new byte[1024];
            random.nextBytes(data);
            rodata.add(new RodataDef(MemorySegment.ofArray(data), false));
        }
        rodata.add(new RodataDef(MemorySegment.ofArray(new byte[256 * 1024]), true));
        return new ModuleDef(assembled.name(), assembled.version(), 0, List.of(), assembled.types(), List.of(),
                assembled.imports(), assembled.exports(), assembled.signatures(), rodata, List.of(),
                new ModuleStateDef(4096, 64), assembled.functions(), assembled.bytecodeVersion(), assembled.bytecode(),
                null);
    }

    @Benchmark
    public Object load() throws IOException {
        return switch (impl) {
            case "mapped" -> BytecodeArchive.read(file);
            case "heap" -> BytecodeArchive.read(Files.readAllBytes(file));
            default -> Files.readAllBytes(file);
        };
    }

    /** Read plus {@link BytecodeModule#create}: every function's bytecode verified, as IREE's module create does. */
    @Benchmark
    public Object loadAndCreate() throws IOException {
        ModuleDef def = switch (impl) {
            case "mapped" -> BytecodeArchive.read(file);
            default -> BytecodeArchive.read(Files.readAllBytes(file));
        };
        return BytecodeModule.create(instance, def, List.of(), PLACEHOLDER_TYPES);
    }

    @Benchmark
    public byte[] write() {
        return BytecodeArchive.write(module);
    }
}
