package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.base.StatusException;
import dev.ortho.vm.Instance;
import dev.ortho.vm.asm.Assembler;
import dev.ortho.vm.asm.ConformanceFiles;
import dev.ortho.vm.asm.Disassembler;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Hostile bytecode: thousands of seeded mutations of the conformance modules (random bytes,
 * register counts, bytecode spans, calling conventions), and of their archives end to end
 * (read, load, verify), must load or fail with a {@link StatusException}, never another
 * exception, and in bounded time.
 */
class BytecodeVerifierFuzzTest {
    static final int MUTATIONS_PER_FILE = 300;

    @Test
    void mutatedModulesLoadOrFailWithStatus() throws Exception {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        Assembler assembler = new Assembler(VmasmFixture.EXTENSIONS);
        List<ModuleDef> defs = new ArrayList<>();
        for (Path f : files) {
            defs.add(assembler.assemble(f));
        }
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            SplittableRandom random = new SplittableRandom(0x5EED);
            int loaded = 0;
            int rejected = 0;
            for (ModuleDef def : defs) {
                for (int i = 0; i < MUTATIONS_PER_FILE; i++) {
                    ModuleDef mutant = mutate(def, random);
                    try {
                        BytecodeModule.create(new Instance(), mutant, VmasmFixture.EXTENSIONS);
                        loaded++;
                    } catch (StatusException expected) {
                        rejected++;
                    }
                }
            }
            assumeTrue(loaded + rejected == defs.size() * MUTATIONS_PER_FILE);
        });
    }

    @Test
    void mutatedArchivesReadAndLoadOrFailWithStatus() throws Exception {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        Assembler assembler = new Assembler(VmasmFixture.EXTENSIONS);
        List<byte[]> archives = new ArrayList<>();
        for (Path f : files) {
            archives.add(BytecodeArchive.write(assembler.assemble(f)));
        }
        assertTimeoutPreemptively(Duration.ofMinutes(2), () -> {
            SplittableRandom random = new SplittableRandom(0xA5C1);
            for (byte[] archive : archives) {
                for (int i = 0; i < MUTATIONS_PER_FILE / 3; i++) {
                    byte[] mutant = archive.clone();
                    int flips = 1 + random.nextInt(8);
                    for (int j = 0; j < flips; j++) {
                        mutant[random.nextInt(mutant.length)] = (byte) random.nextInt(256);
                    }
                    try {
                        BytecodeModule.create(new Instance(), BytecodeArchive.read(mutant), VmasmFixture.EXTENSIONS);
                    } catch (StatusException expected) {
                        // rejected by the archive reader, the loader or the verifier
                    }
                }
            }
        });
    }

    /**
     * Mutants that verify are executed when they cannot loop or allocate without bound (no
     * backward branch, no internal call, no buffer/list allocation or growth, judged from their
     * disassembly): every export must end OK or with a status, never with an interpreter fault.
     */
    @Test
    void verifiedLoopFreeMutantsRunWithoutInterpreterFaults() throws Exception {
        List<Path> files = ConformanceFiles.files();
        assumeTrue(!files.isEmpty(), "IREE VM conformance suite (shared/conformance/vm) not found: skipped");
        Assembler assembler = new Assembler(VmasmFixture.EXTENSIONS);
        Disassembler disassembler = new Disassembler(VmasmFixture.EXTENSIONS);
        List<ModuleDef> defs = new ArrayList<>();
        for (Path f : files) {
            defs.add(assembler.assemble(f));
        }
        assertTimeoutPreemptively(Duration.ofMinutes(3), () -> {
            SplittableRandom random = new SplittableRandom(0xE1EC);
            int executed = 0;
            for (ModuleDef def : defs) {
                for (int i = 0; i < MUTATIONS_PER_FILE / 3; i++) {
                    ModuleDef mutant = mutate(def, random);
                    BytecodeModule module;
                    String text;
                    try {
                        module = BytecodeModule.create(new Instance(), mutant, VmasmFixture.EXTENSIONS);
                        text = disassembler.disassemble(mutant);
                    } catch (StatusException rejected) {
                        continue;
                    }
                    if (!boundedWork(text, def.name())) {
                        continue;
                    }
                    ModuleTestRunner.Report report;
                    try {
                        report = ModuleTestRunner.run(new Instance(), List.of(), module);
                    } catch (StatusException linkOrInitFailure) {
                        continue;
                    }
                    executed++;
                    for (ModuleTestRunner.Outcome o : report.outcomes()) {
                        if (o.status() != null && o.status().getMessage().contains("interpreter fault")) {
                            throw new AssertionError(def.name() + "." + o.name() + ": " + o.status().getMessage()
                                    + "\n" + text, o.status());
                        }
                    }
                }
            }
            assertTrue(executed > 100, "only " + executed + " mutants were executable");
        });
    }

    /** True if no function of {@code text} branches backwards, calls internally, or allocates. */
    static boolean boundedWork(String text, String moduleName) {
        Set<String> defined = new HashSet<>();
        for (String line : text.split("\n")) {
            String t = line.strip();
            if (t.startsWith("vm.func ")) {
                defined.clear();
            } else if (t.startsWith("^") && t.endsWith(":")) {
                defined.add(t.substring(0, t.length() - 1));
            } else {
                if (t.contains("@" + moduleName + ":") || t.contains("vm.buffer.alloc") || t.contains("vm.buffer.clone")
                        || t.contains("vm.list.alloc") || t.contains("vm.list.reserve") || t.contains("vm.list.resize")) {
                    return false;
                }
                Matcher m = BLOCK_REF.matcher(t);
                while (m.find()) {
                    if (defined.contains(m.group())) {
                        return false;
                    }
                }
            }
        }
        return true;
    }

    private static final Pattern BLOCK_REF = Pattern.compile("\\^bb\\d+");

    static ModuleDef mutate(ModuleDef def, SplittableRandom random) {
        byte[] code = def.bytecode().toArray(ValueLayout.JAVA_BYTE);
        List<ModuleDef.FunctionDescriptor> functions = new ArrayList<>(def.functions());
        List<ModuleDef.SignatureDef> signatures = new ArrayList<>(def.signatures());
        int kind = random.nextInt(10);
        if (kind < 7 && code.length > 0) {
            int flips = 1 + random.nextInt(4);
            for (int j = 0; j < flips; j++) {
                int at = random.nextInt(code.length);
                code[at] = switch (random.nextInt(3)) {
                    case 0 -> (byte) random.nextInt(256);
                    case 1 -> (byte) (code[at] ^ (1 << random.nextInt(8)));
                    default -> (byte) (random.nextBoolean() ? 0xFF : 0x80);
                };
            }
        } else if (kind < 9 && !functions.isEmpty()) {
            int f = random.nextInt(functions.size());
            ModuleDef.FunctionDescriptor d = functions.get(f);
            short small = (short) random.nextInt(-2, 40);
            functions.set(f, switch (random.nextInt(5)) {
                case 0 -> new ModuleDef.FunctionDescriptor(d.bytecodeOffset(), d.bytecodeLength(), d.requirements(),
                        d.reserved(), d.blockCount(), small, d.refRegisterCount());
                case 1 -> new ModuleDef.FunctionDescriptor(d.bytecodeOffset(), d.bytecodeLength(), d.requirements(),
                        d.reserved(), d.blockCount(), d.i32RegisterCount(), small);
                case 2 -> new ModuleDef.FunctionDescriptor(d.bytecodeOffset(), d.bytecodeLength() + small,
                        d.requirements(), d.reserved(), d.blockCount(), d.i32RegisterCount(), d.refRegisterCount());
                case 3 -> new ModuleDef.FunctionDescriptor(d.bytecodeOffset() + small, d.bytecodeLength(),
                        d.requirements(), d.reserved(), d.blockCount(), d.i32RegisterCount(), d.refRegisterCount());
                default -> new ModuleDef.FunctionDescriptor(d.bytecodeOffset(), d.bytecodeLength(),
                        random.nextInt(16), d.reserved(), small, d.i32RegisterCount(), d.refRegisterCount());
            });
        } else if (!signatures.isEmpty()) {
            int f = random.nextInt(signatures.size());
            String[] cconvs = {"0v_v", "0i_i", "0I_I", "0r_r", "0iiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiiii_v", "0CiD_v",
                    "0i_CiD", "0x_v", "", "0", "0rrrrrrrrrrrrrrrrrrrr_r", "0_i", "0fF_fF"};
            signatures.set(f, new ModuleDef.SignatureDef(cconvs[random.nextInt(cconvs.length)], List.of()));
        }
        return new ModuleDef(def.name(), def.version(), def.requirements(), def.attrs(), def.types(),
                def.dependencies(), def.imports(), def.exports(), signatures, def.rodata(), def.rwdata(), def.state(),
                functions, def.bytecodeVersion(), MemorySegment.ofArray(code), def.debug());
    }
}
