package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.vm.bytecode.BytecodeArchive;
import dev.ortho.vm.bytecode.FeatureBits;
import dev.ortho.vm.bytecode.ModuleDef;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.DebugDatabaseDef;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import dev.ortho.vm.bytecode.ModuleDef.ExportDef;
import dev.ortho.vm.bytecode.ModuleDef.FileLineColLoc;
import dev.ortho.vm.bytecode.ModuleDef.FunctionDescriptor;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.ModuleStateDef;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.RwdataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code dump-module --output=metadata} text for a module using every metadata section. */
class ModuleMetadataTest {
    @Test
    void everySectionIsPrintedInIreeLayout() {
        ModuleDef def = new ModuleDef("full", 7, FeatureBits.EXT_F32 | FeatureBits.YIELD,
                List.of(new AttrDef("author", "ortho")), List.of("i32", "!hal.buffer"),
                List.of(new DependencyDef("hal", 5, DependencyDef.REQUIRED), new DependencyDef("opt", 0, DependencyDef.OPTIONAL)),
                List.of(new ImportDef("hal.fence.await", new SignatureDef("0iCrD_i", List.of(new AttrDef("k", "v"))),
                        ImportDef.OPTIONAL), new ImportDef("hal.ex.submit", new SignatureDef("0rI_v", List.of()),
                        ImportDef.REQUIRED)),
                List.of(new ExportDef("main", 0), new ExportDef("alias", 0), new ExportDef("f", 1)),
                List.of(new SignatureDef("0rfF_", List.of(new AttrDef("iree.abi", "x"))), new SignatureDef("0v_v", List.of())),
                List.of(new RodataDef(MemorySegment.ofArray("a long string constant that goes on and on\0".getBytes(
                                StandardCharsets.US_ASCII)), false),
                        new RodataDef(MemorySegment.ofArray(new byte[] {1, 2}), false),
                        new RodataDef(MemorySegment.ofArray(new byte[100]), true),
                        new RodataDef(MemorySegment.ofArray(new byte[10]), true)),
                List.of(new RwdataDef(48)), new ModuleStateDef(32, 3),
                List.of(new FunctionDescriptor(0, 8, FeatureBits.EXT_F32 | FeatureBits.EXT_F64, (short) 0, (short) 2,
                                (short) 12, (short) 3),
                        new FunctionDescriptor(8, 4, FeatureBits.YIELD, (short) 0, (short) 1, (short) 0, (short) 0)),
                17 << 16, MemorySegment.ofArray(new byte[12]),
                new DebugDatabaseDef(List.of(new FileLineColLoc("a", 1, 1)), List.of()));
        byte[] archive = BytecodeArchive.write(def);
        int flatBuffer = ByteBuffer.wrap(archive).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        MemorySegment segment = MemorySegment.ofArray(archive);
        String rule = "//===" + "-".repeat(110) + "===//\n";
        String expected = rule + "// @full : version 7\n" + rule + "\n"
                + "Requirements: EXT_F32 | 00000004\n\n"
                + "Attributes:\n  author: ortho\n\n"
                + "Required Types:\n  [  0] i32\n  [  1] !hal.buffer\n\n"
                + "Module Dependencies:\n  hal, version >= 5, required\n  opt, version >= 0, optional\n\n"
                + "Imported Functions:\n"
                + "  [  0] ?hal.fence.await(i32, tuple<!vm.ref<?>>...) -> (i32)\n"
                + "        k: v\n"
                + "  [  1] hal.ex.submit(!vm.ref<?>, i64) -> ()\n\n"
                + "Exported Functions:\n"
                + "  [  0] main(!vm.ref<?>, f32, f64) -> ()\n"
                + "        iree.abi: x\n"
                + "  [  1] alias(!vm.ref<?>, f32, f64) -> ()\n"
                + "        iree.abi: x\n"
                + "  [  2] f() -> ()\n\n"
                + rule + "// Sections\n" + rule + "\n"
                + "Module State:\n  32 bytes, 3 refs, ~80 bytes total\n\n"
                + "FlatBuffer: " + flatBuffer + " bytes\n"
                + "  Bytecode: 12 bytes\n"
                + "  .rodata[  0] embedded       43 bytes `a long string constant that goes`...\n"
                + "  .rodata[  1] embedded        2 bytes\n"
                + "  .rodata[  2] external      100 bytes (offset 0 / 0h to 64h)\n"
                + "  .rodata[  3] external       10 bytes (offset 128 / 80h to 8Ah)\n"
                + "  .rwdata[  0] 48 bytes\n\n"
                + "External .rodata: ~110 bytes\n\n"
                + rule + "// Bytecode : version 7\n" + rule + "\n"
                + "  # | Offset   |   Length | Blocks | i32 # | ref # | Requirements | Aliases\n"
                + "----+----------+----------+--------+-------+-------+--------------+-" + "-".repeat(52) + "\n"
                + "  0 | 00000000 |        8 |      2 |    12 |     3 | EXT_F32 | EXT_F64 | main, alias\n"
                + "  1 | 00000008 |        4 |      1 |     0 |     0 | 00000004     | f\n\n"
                + rule + "// Debug Information\n" + rule
                + "// NOTE: debug databases are large and should be stripped in deployed artifacts.\n\n"
                + "Locations: 1\n\n";
        assertEquals(expected, ModuleMetadata.format(BytecodeArchive.read(segment), segment));
    }
}
