package dev.ortho.vm.asm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.vm.bytecode.BytecodeArchive;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Byte compatibility with IREE's own tools, checked against golden outputs: the
 * {@code *.iree.vmfb} files are what IREE's {@code iree-as-module} (runtime tools built from IREE
 * commit b48a5955575c) produced from the Ortho-written {@code *.vmasm} next to them, and
 * {@code golden_ops.iree-disassembly.txt} and {@code golden_ops.iree-disassembly-offsets.txt} are
 * what its {@code iree-dump-module --output=disassembly} printed for that archive (the latter with
 * {@code --bytecode_offsets}).
 */
class IreeGoldenTest {

    @ParameterizedTest
    @ValueSource(strings = {"golden_ops", "golden_globals"})
    void assemblesToIreeAssemblerArchiveBytes(String name) throws IOException {
        String source = new String(resource(name + ".vmasm"), StandardCharsets.UTF_8);
        byte[] iree = resource(name + ".iree.vmfb");
        assertArrayEquals(iree, BytecodeArchive.write(AsmTesting.ASSEMBLER.assemble(source, name + ".vmasm")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"golden_ops"})
    void disassemblesLikeIreeDumpModuleAndReassemblesToTheSameBytes(String name) throws IOException {
        byte[] iree = resource(name + ".iree.vmfb");
        String expected = new String(resource(name + ".iree-disassembly.txt"), StandardCharsets.UTF_8);
        String text = AsmTesting.DISASSEMBLER.disassemble(BytecodeArchive.read(iree));
        assertEquals(expected, text);
        assertArrayEquals(iree, BytecodeArchive.write(AsmTesting.ASSEMBLER.assemble(text, "disassembly")));
        String withOffsets = AsmTesting.DISASSEMBLER.disassemble(BytecodeArchive.read(iree), true);
        assertEquals(new String(resource(name + ".iree-disassembly-offsets.txt"), StandardCharsets.UTF_8), withOffsets);
        assertArrayEquals(iree, BytecodeArchive.write(AsmTesting.ASSEMBLER.assemble(withOffsets, "offsets")));
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = IreeGoldenTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("missing test resource " + name);
            }
            return in.readAllBytes();
        }
    }
}
