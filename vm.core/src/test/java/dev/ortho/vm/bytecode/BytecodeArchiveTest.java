package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.bytecode.ModuleDef.AttrDef;
import dev.ortho.vm.bytecode.ModuleDef.BytecodeLocation;
import dev.ortho.vm.bytecode.ModuleDef.CallSiteLoc;
import dev.ortho.vm.bytecode.ModuleDef.DebugDatabaseDef;
import dev.ortho.vm.bytecode.ModuleDef.DependencyDef;
import dev.ortho.vm.bytecode.ModuleDef.FileLineColLoc;
import dev.ortho.vm.bytecode.ModuleDef.FusedLoc;
import dev.ortho.vm.bytecode.ModuleDef.ImportDef;
import dev.ortho.vm.bytecode.ModuleDef.NameLoc;
import dev.ortho.vm.bytecode.ModuleDef.RodataDef;
import dev.ortho.vm.bytecode.ModuleDef.RwdataDef;
import dev.ortho.vm.bytecode.ModuleDef.SignatureDef;
import dev.ortho.vm.bytecode.ModuleDef.SourceMapDef;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BytecodeArchiveTest {
    /**
     * Expected bytes were produced by flatcc's generated builder for bytecode_module_def.fbs
     * driven through the same create/add sequence as IREE's assembler archive writer.
     */
    private static final String SPEC_FULL = """
            name m
            version 3
            requirements 1
            type i32
            type !vm.buffer
            import 1 other.fn 0i_i
            import 0 other.gn 0_v
            function 0 4 0 1 2 0 0i_i
            function 4 8 1 2 4 1 0_v
            export foo 1
            export bar 0
            rodata 0102030405
            rodata
            state 16 2
            bytecode 00112233445566778899aabb""";
    private static final String GOLDEN_FULL = "fc01000008000000495245452efeffffa4010000030000000100000054010000e400000054"
            + "00000080000000200000001000000080000000000011006801000074feffff100000000200000002000000140000000400000084fe"
            + "ffff040000000000000090feffff04000000050000000102030405000000020000001800000004000000c8feffff04000000030000"
            + "0062617200c8feffff080000000100000003000000666f6f0002000000440000003000000002000000000000000400000000000000"
            + "0000010002000000040000000800000001000000000002000400010024ffffff0400000003000000305f760034ffffff0400000004"
            + "00000030695f690000000002000000340000000400000044ffffff180000000400000060ffffff0400000003000000305f76000800"
            + "00006f746865722e676e000000007affffff20000000080000000200000090ffffff040000000400000030695f6900000000080000"
            + "006f746865722e666e00000000020000002000000004000000c0ffffff040000000a00000021766d2e6275666665720000d8ffffff"
            + "0400000003000000693332000c00000000112233445566778899aabb010000006d0000000600080004000a00100004000800"
            + "0c0008000c00040008000a00080000000000040022003400040008000c00000010000000140018001c0020000000240028002c003000";
    private static final String SPEC_EMPTY = "name empty_module\nbytecode";
    private static final String GOLDEN_EMPTY = "640000000800000049524545c8ffffff200000001000000010000000000011000c0000000000"
            + "000000000000000000000c000000656d7074795f6d6f64756c6500000000220018000400000000000000000000000000000008000000"
            + "000000000c00100014000000";
    private static final String SPEC_SHARED = """
            name x
            version 0
            function 0 3 4 1 1 0 0_v
            export f 0
            export g 0
            rodata 00
            rodata 0001020304050607
            bytecode 010203""";
    private static final String GOLDEN_SHARED = "f8000000080000004952454534ffffffb0000000480000007000000010000000700000000000"
            + "110090000000020000001c000000040000006affffff040000000800000000010203040506077effffff04000000010000000000"
            + "0000020000001800000004000000a0ffffff040000000100000067000000b0ffffff0400000001000000660000000100"
            + "00001c000000010000000000000003000000040000000000010001000000e0ffffff0400000003000000305f760003000000010203"
            + "0001000000780000000600080004000a00080000000000040022002000040000000000000000000000000008000c00100000000000"
            + "140018001c000000";

    @Test
    void writeLaysOutTablesExactlyAsIreeAssembler() {
        assertEquals(GOLDEN_FULL, HexFormat.of().formatHex(BytecodeArchive.write(ModuleDefs.fromSpec(SPEC_FULL))));
        assertEquals(GOLDEN_EMPTY, HexFormat.of().formatHex(BytecodeArchive.write(ModuleDefs.fromSpec(SPEC_EMPTY))));
        assertEquals(GOLDEN_SHARED, HexFormat.of().formatHex(BytecodeArchive.write(ModuleDefs.fromSpec(SPEC_SHARED))));
    }

    @Test
    void readDecodesEveryFieldIreeWrites() {
        ModuleDef m = BytecodeArchive.read(HexFormat.of().parseHex(GOLDEN_FULL));
        assertEquals("m", m.name());
        assertEquals(3, m.version());
        assertEquals(FeatureBits.EXT_F32, m.requirements());
        assertEquals(List.of("i32", "!vm.buffer"), m.types());
        assertEquals(2, m.imports().size());
        assertEquals("other.fn", m.imports().get(0).fullName());
        assertEquals(ImportDef.OPTIONAL, m.imports().get(0).flags());
        assertEquals("0i_i", m.imports().get(0).signature().callingConvention());
        assertEquals(ImportDef.REQUIRED, m.imports().get(1).flags());
        assertEquals(List.of(new ModuleDef.ExportDef("foo", 1), new ModuleDef.ExportDef("bar", 0)), m.exports());
        assertEquals(List.of(new SignatureDef("0i_i", List.of()), new SignatureDef("0_v", List.of())), m.signatures());
        assertEquals(new ModuleDef.FunctionDescriptor(4, 8, 1, (short) 0, (short) 2, (short) 4, (short) 1),
                m.functions().get(1));
        assertEquals(2, m.rodata().size());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, m.rodata().get(0).data().toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0, m.rodata().get(1).data().byteSize());
        assertFalse(m.rodata().get(0).external());
        assertEquals(new ModuleDef.ModuleStateDef(16, 2), m.state());
        assertEquals(17 << 16, m.bytecodeVersion());
        assertEquals(12, m.bytecode().byteSize());
        assertTrue(m.bytecode().isReadOnly());
        assertNull(m.debug());
    }

    @Test
    void readThenWriteIsByteIdentical() {
        for (String golden : List.of(GOLDEN_FULL, GOLDEN_EMPTY, GOLDEN_SHARED)) {
            byte[] bytes = HexFormat.of().parseHex(golden);
            assertArrayEquals(bytes, BytecodeArchive.write(BytecodeArchive.read(bytes)));
        }
    }

    private static ModuleDef withEverything() {
        ModuleDef base = ModuleDefs.fromSpec(SPEC_FULL);
        List<RodataDef> rodata = new ArrayList<>(base.rodata());
        rodata.add(new RodataDef(MemorySegment.ofArray(new byte[] {9, 8, 7}), true));
        rodata.add(new RodataDef(MemorySegment.ofArray(new byte[100]).fill((byte) 0x5A), true));
        List<ModuleDef.SignatureDef> signatures = List.of(
                new SignatureDef("0i_i", List.of(new AttrDef("iree.abi", "{}"))), new SignatureDef(null, List.of()));
        DebugDatabaseDef debug = new DebugDatabaseDef(
                List.of(new FileLineColLoc("a.mlir", 3, 7), new CallSiteLoc(0, 2), new FusedLoc("meta", List.of(0, 1)),
                        new FusedLoc(null, List.of()), new NameLoc("n", 0), new NameLoc("top", -1)),
                List.of(new SourceMapDef("fn", List.of(new BytecodeLocation(0, 1), new BytecodeLocation(4, 2))),
                        new SourceMapDef("gn", List.of())));
        return new ModuleDef(base.name(), base.version(), base.requirements(),
                List.of(new AttrDef("k", "v"), new AttrDef("empty", "")), base.types(),
                List.of(new DependencyDef("hal", 7, DependencyDef.REQUIRED), new DependencyDef("opt", 0, DependencyDef.OPTIONAL)),
                List.of(new ImportDef("other.fn", null, ImportDef.OPTIONAL)), base.exports(), signatures, rodata,
                List.of(new RwdataDef(32)), base.state(), base.functions(), base.bytecodeVersion(), base.bytecode(), debug);
    }

    @Test
    void fieldsIreeAssemblerNeverWritesRoundTrip() {
        byte[] archive = BytecodeArchive.write(withEverything());
        ModuleDef m = BytecodeArchive.read(archive);
        assertEquals(List.of(new AttrDef("k", "v"), new AttrDef("empty", "")), m.attrs());
        assertEquals(withEverything().dependencies(), m.dependencies());
        assertNull(m.imports().get(0).signature());
        assertEquals(withEverything().signatures(), m.signatures());
        assertEquals(List.of(new RwdataDef(32)), m.rwdata());
        assertEquals(withEverything().debug(), m.debug());
        assertTrue(m.rodata().get(2).external());
        assertArrayEquals(new byte[] {9, 8, 7}, m.rodata().get(2).data().toArray(ValueLayout.JAVA_BYTE));
        assertEquals(100, m.rodata().get(3).data().byteSize());
        assertEquals(0x5A, m.rodata().get(3).data().get(ValueLayout.JAVA_BYTE, 99));
        assertArrayEquals(archive, BytecodeArchive.write(m));
    }

    @Test
    void externalRodataStartsAt64ByteAlignedOffsetsAfterTheFlatBuffer() {
        byte[] archive = BytecodeArchive.write(withEverything());
        int prefix = ByteBuffer.wrap(archive).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        int base = (4 + prefix + 63) & -64;
        assertEquals(9, archive[base]);
        assertEquals(0x5A, archive[base + 64]);
        assertEquals(base + 64 + 100, archive.length);
        // The FlatBuffer holds 64-bit offset fields, so flatcc pads it (with its size prefix) to 8 bytes.
        assertEquals(0, (4 + prefix) % 8);
    }

    @Test
    void zipLocalHeaderIsSkippedAndRodataBaseCountsFromArchiveStart() {
        byte[] module = BytecodeArchive.write(withEverything());
        int prefix = ByteBuffer.wrap(module).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        // Realign the module so that its rodata stays 64-byte aligned relative to the archive start.
        int header = 30 + 5 + 3;
        int oldBase = (4 + prefix + 63) & -64;
        int newBase = (header + 4 + prefix + 63) & -64;
        ByteBuffer zip = ByteBuffer.allocate(newBase + module.length - oldBase).order(ByteOrder.LITTLE_ENDIAN);
        zip.putInt(0x04034B50).putShort((short) 20).position(26);
        zip.putShort((short) 5).putShort((short) 3).put("a.bin".getBytes()).put(new byte[3]);
        zip.put(module, 0, 4 + prefix);
        zip.position(newBase).put(module, oldBase, module.length - oldBase);
        ModuleDef m = BytecodeArchive.read(zip.array());
        assertEquals("m", m.name());
        assertArrayEquals(new byte[] {9, 8, 7}, m.rodata().get(2).data().toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void zipHeaderClaimingMoreThanTheArchiveIsRejected() {
        byte[] bytes = new byte[40];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(0x04034B50).putShort(26, (short) 100);
        StatusException e = assertThrows(StatusException.class, () -> BytecodeArchive.read(bytes));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("zip"), e.getMessage());
    }

    @Test
    void readMapsFilesWithoutCopying(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("m.vmfb");
        Files.write(file, BytecodeArchive.write(withEverything()));
        ModuleDef m = BytecodeArchive.read(file);
        assertTrue(m.bytecode().isReadOnly());
        assertTrue(m.bytecode().isMapped() || m.bytecode().isNative());
        assertEquals("m", m.name());
        StatusException missing = assertThrows(StatusException.class, () -> BytecodeArchive.read(dir.resolve("nope.vmfb")));
        assertEquals(StatusCode.NOT_FOUND, missing.code());
    }

    private static StatusException rejected(ModuleDef module) {
        return assertThrows(StatusException.class, () -> BytecodeArchive.read(BytecodeArchive.write(module)));
    }

    private static ModuleDef with(ModuleDef m, List<ModuleDef.ExportDef> exports, List<ModuleDef.FunctionDescriptor> functions,
            int bytecodeVersion) {
        return new ModuleDef(m.name(), m.version(), m.requirements(), m.attrs(), m.types(), m.dependencies(), m.imports(),
                exports, m.signatures(), m.rodata(), m.rwdata(), m.state(), functions, bytecodeVersion, m.bytecode(), m.debug());
    }

    @Test
    void metadataErrorsNameTheEntryAndValue() {
        ModuleDef m = ModuleDefs.minimal("mod");
        var f = m.functions().get(0);
        assertMessage(rejected(with(m, m.exports(), m.functions(), 18 << 16)),
                "bytecode version mismatch; runtime supports 17.0, module has 18.0");
        assertMessage(rejected(with(m, m.exports(), m.functions(), (17 << 16) | 1)), "module has 17.1");
        assertMessage(rejected(with(m, List.of(new ModuleDef.ExportDef("main", 1)), m.functions(), m.bytecodeVersion())),
                "exports[0] 'main' internal_ordinal out of bounds (0 <= 1 < 1)");
        assertMessage(rejected(with(m, m.exports(), List.of(f, f), m.bytecodeVersion())),
                "function signature and descriptor table length mismatch (1 vs 2)");
        var outside = new ModuleDef.FunctionDescriptor(2, 3, 0, (short) 0, (short) 1, (short) 0, (short) 0);
        assertMessage(rejected(with(m, m.exports(), List.of(outside), m.bytecodeVersion())),
                "functions[0] descriptor bytecode span [2, 5) out of range (bytecode is 4 bytes)");
        var noBlocks = new ModuleDef.FunctionDescriptor(0, 4, 0, (short) 0, (short) 0, (short) 0, (short) 0);
        assertMessage(rejected(with(m, m.exports(), List.of(noBlocks), m.bytecodeVersion())), "block count is 0");
        var tooManyRefs = new ModuleDef.FunctionDescriptor(0, 4, 0, (short) 0, (short) 1, (short) 0, (short) 0x4000);
        assertMessage(rejected(with(m, m.exports(), List.of(tooManyRefs), m.bytecodeVersion())),
                "register count out of range (i32 0 of max 32767, ref 16384 of max 16383)");
        var wrapping = new ModuleDef.FunctionDescriptor(Integer.MAX_VALUE, Integer.MAX_VALUE, 0, (short) 0, (short) 1,
                (short) 0, (short) 0);
        assertMessage(rejected(with(m, m.exports(), List.of(wrapping), m.bytecodeVersion())), "out of range");
        assertMessage(rejected(ModuleDefs.fromSpec("name a\ntype \nbytecode")), "types[0] missing name");
        assertMessage(rejected(ModuleDefs.fromSpec("name \nbytecode")), "module missing name field");
    }

    private static void assertMessage(StatusException e, String expected) {
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains(expected), () -> "'" + e.getMessage() + "' lacks '" + expected + "'");
    }

    @Test
    void headerErrorsMatchIree() {
        assertMessage(assertThrows(StatusException.class, () -> BytecodeArchive.read(new byte[10])),
                "FlatBuffer data is not present or less than 16 bytes (10 total)");
        byte[] archive = BytecodeArchive.write(ModuleDefs.minimal("m"));
        ByteBuffer.wrap(archive).order(ByteOrder.LITTLE_ENDIAN).putInt(0, archive.length);
        assertMessage(assertThrows(StatusException.class, () -> BytecodeArchive.read(archive)),
                "FlatBuffer length prefix out of bounds (prefix is " + archive.length + " but only "
                        + (archive.length - 4) + " available)");
        byte[] wrongId = BytecodeArchive.write(ModuleDefs.minimal("m"));
        wrongId[8] = 'X';
        assertMessage(assertThrows(StatusException.class, () -> BytecodeArchive.read(wrongId)),
                "file identifier is 'XREE', expected 'IREE'");
    }

    @Test
    void externalRodataOutsideTheArchiveIsRejected() {
        byte[] archive = BytecodeArchive.write(withEverything());
        byte[] truncated = java.util.Arrays.copyOf(archive, archive.length - 1);
        assertMessage(assertThrows(StatusException.class, () -> BytecodeArchive.read(truncated)),
                "rodata[3] external reference out of range (offset 64, length 100");
    }

    @Test
    void emptyExternalSegmentKeepsTheRodataBaseInsideTheArchive() {
        // Regression (found by the fuzz test): an unpadded archive put the rodata base past its end.
        ModuleDef m = ModuleDefs.minimal("m");
        ModuleDef withEmpty = new ModuleDef(m.name(), m.version(), m.requirements(), m.attrs(), m.types(),
                m.dependencies(), m.imports(), m.exports(), m.signatures(),
                List.of(new RodataDef(MemorySegment.ofArray(new byte[0]), true)), m.rwdata(), m.state(), m.functions(),
                m.bytecodeVersion(), m.bytecode(), m.debug());
        byte[] archive = BytecodeArchive.write(withEmpty);
        assertEquals(0, archive.length % 64);
        assertEquals(0, BytecodeArchive.read(archive).rodata().get(0).data().byteSize());
    }

    @Test
    void writingAModuleWithMissingNamesIsInvalidArgument() {
        ModuleDef m = ModuleDefs.minimal("m");
        ModuleDef unnamedExport = new ModuleDef(m.name(), m.version(), m.requirements(), m.attrs(), m.types(),
                m.dependencies(), m.imports(), List.of(new ModuleDef.ExportDef(null, 0)), m.signatures(), m.rodata(),
                m.rwdata(), m.state(), m.functions(), m.bytecodeVersion(), m.bytecode(), m.debug());
        StatusException e = assertThrows(StatusException.class, () -> BytecodeArchive.write(unnamedExport));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("exports[0].local_name is null"), e.getMessage());
    }

    @Test
    void absentAttributeKeysAndValuesReadAsEmptyAndTheModuleLoads() {
        // Regression: a hostile archive with key-less attributes made module creation throw NPE.
        ModuleDef m = ModuleDefs.minimal("m");
        ModuleDef holes = new ModuleDef(m.name(), m.version(), m.requirements(),
                List.of(new AttrDef(null, "v"), new AttrDef("k", null)), m.types(), m.dependencies(), m.imports(),
                m.exports(), List.of(new SignatureDef(null, List.of(new AttrDef(null, null)))), m.rodata(), m.rwdata(),
                m.state(), m.functions(), m.bytecodeVersion(), MemorySegment.ofArray(new byte[] {0x79, 0, 0, 0}), m.debug());
        ModuleDef read = BytecodeArchive.read(BytecodeArchive.write(holes));
        assertEquals(List.of(new AttrDef("", "v"), new AttrDef("k", "")), read.attrs());
        assertEquals(List.of(new AttrDef("", "")), read.signatures().get(0).attrs());
        try {
            BytecodeModule.create(new dev.ortho.vm.Instance(), read, List.of());
        } catch (StatusException expected) {
            // A status (e.g. for the cconv-less export) is fine; an unchecked exception is not.
        }
    }

    /** A one-export module whose export {@code fail_always} must fail, carrying {@code debug}. */
    private static ModuleDef failingModuleWith(DebugDatabaseDef debug) {
        ModuleDef m = new dev.ortho.vm.asm.Assembler(List.of()).assemble("""
                vm.module @dbg version 1
                vm.export @fail_always
                vm.func @fail_always() -> () {
                  %i0 = vm.const.i32 9
                  vm.fail %i0, "x"
                }
                """, "dbg.vmasm");
        return new ModuleDef(m.name(), m.version(), m.requirements(), m.attrs(), m.types(),
                m.dependencies(), m.imports(), m.exports(), m.signatures(), m.rodata(), m.rwdata(), m.state(),
                m.functions(), m.bytecodeVersion(), m.bytecode(), debug);
    }

    /** Runs the module's export as a test: it fails, and formatting its backtrace throws nothing. */
    private static void assertFailingExportStillFails(ModuleDef module) {
        dev.ortho.vm.Instance instance = new dev.ortho.vm.Instance();
        ModuleTestRunner.Report report = ModuleTestRunner.run(instance, List.of(),
                VmasmFixture.create(instance, module, List.of()));
        assertEquals("1 passed, 0 failed", report.summary());
    }

    @Test
    void absentDebugNamesReadAsEmptyAndBacktracesStillFormat() {
        // Regression: a source map without local_name made failure backtraces throw NPE.
        DebugDatabaseDef debug = new DebugDatabaseDef(List.of(new FileLineColLoc(null, 1, 2), new NameLoc(null, -1)),
                List.of(new SourceMapDef(null, List.of(new BytecodeLocation(0, 0)))));
        ModuleDef withDebug = failingModuleWith(debug);
        ModuleDef read = BytecodeArchive.read(BytecodeArchive.write(withDebug));
        assertEquals("", read.debug().functions().get(0).localName());
        assertEquals(new FileLineColLoc("", 1, 2), read.debug().locations().get(0));
        assertFailingExportStillFails(read);
    }

    @Test
    void noneLocationsAsIreeCompilerEmitsThemReadAndRoundTrip() {
        // Regression: iree-compile's debug database starts with a NONE union member (null
        // offset); the reader refused it ("location_table[0]: null offset"), so no module
        // compiled by IREE loaded.
        DebugDatabaseDef debug = new DebugDatabaseDef(
                List.of(new ModuleDef.UnknownLoc(), new FileLineColLoc("m.mlir", 7, 10), new FusedLoc(null, List.of(0, 1))),
                List.of(new SourceMapDef("fail_always", List.of(new BytecodeLocation(0, 0), new BytecodeLocation(4, 2)))));
        ModuleDef withDebug = failingModuleWith(debug);
        byte[] archive = BytecodeArchive.write(withDebug);
        ModuleDef read = BytecodeArchive.read(archive);
        assertEquals(debug, read.debug());
        assertArrayEquals(archive, BytecodeArchive.write(read));
        assertFailingExportStillFails(read);
    }
}
