package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loops over {@code vm.buffer} elements compiled with the buffer's segment and bounds kept in
 * locals ({@link BufferLoops}) and the exit compare fused with its branch: they trap at the same
 * iteration with the same status, message and backtrace as the interpreter, with every store of
 * the earlier iterations done; buffers aliased through two registers see each other's stores; a
 * register that changes inside the loop is read afresh at every access; the cache is used where
 * the register is loop-invariant and only there.
 */
class BufferLoopsTest {
    static final String SOURCE = """
            vm.module @loops version 0
            vm.type i32
            vm.type i64
            vm.type f32
            vm.type !vm.buffer

            // r0[k] = k + 1 for k < n (i32); returns the next value and the last exit compare.
            vm.export @fill
            vm.func @fill(%r0: !vm.buffer, %i0: i32) -> (i32, i32) {
            ^bb0:
              %i2:3 = vm.ext.i32.i64.s %i0
              %i4:5 = vm.const.i64.zero
              %i6:7 = vm.const.i64 1
              %i8 = vm.const.i32 1
              %i9 = vm.const.i32 1
              vm.br ^bb1()
            ^bb1:
              vm.buffer.store.i32 %i8, %r0, %i4:5
              %i8 = vm.add.i32 %i8, %i9
              %i4:5 = vm.add.i64 %i4:5, %i6:7
              %i10 = vm.cmp.lt.i64.s %i4:5, %i2:3
              vm.cond_br %i10, ^bb1(), ^bb2()
            ^bb2:
              vm.return %i8, %i10
            }

            // r0[k] += r1[k - 1] for 1 <= k < n: prefix sums when r0 and r1 are one buffer.
            vm.export @prefix
            vm.func @prefix(%r0: !vm.buffer, %r1: !vm.buffer, %i0: i32) -> (i32) {
            ^bb0:
              %i2:3 = vm.ext.i32.i64.s %i0
              %i4:5 = vm.const.i64 1
              %i6:7 = vm.const.i64 1
              %i11 = vm.const.i32 0
              vm.br ^bb1()
            ^bb1:
              %i8:9 = vm.sub.i64 %i4:5, %i6:7
              %i10 = vm.buffer.load.i32 %r1, %i8:9
              %i11 = vm.buffer.load.i32 %r0, %i4:5
              %i11 = vm.add.i32 %i10, %i11
              vm.buffer.store.i32 %i11, %r0, %i4:5
              %i4:5 = vm.add.i64 %i4:5, %i6:7
              %i12 = vm.cmp.lt.i64.s %i4:5, %i2:3
              vm.cond_br %i12, ^bb1(), ^bb2()
            ^bb2:
              vm.return %i11
            }

            // Stores k + 1 at k into r0, then r1, then r0 ...: the registers swap every iteration.
            vm.export @alternate
            vm.func @alternate(%r0: !vm.buffer, %r1: !vm.buffer, %i0: i32) -> (i32) {
            ^bb0:
              %i2:3 = vm.ext.i32.i64.s %i0
              %i4:5 = vm.const.i64.zero
              %i6:7 = vm.const.i64 1
              %i8 = vm.const.i32 1
              %i9 = vm.const.i32 1
              vm.br ^bb1()
            ^bb1:
              vm.buffer.store.i32 %i8, %r0, %i4:5
              %r2 = vm.assign.ref %r0
              %r0 = vm.assign.ref %r1
              %r1 = vm.assign.ref %r2
              %i8 = vm.add.i32 %i8, %i9
              %i4:5 = vm.add.i64 %i4:5, %i6:7
              %i10 = vm.cmp.lt.i64.s %i4:5, %i2:3
              vm.cond_br %i10, ^bb1(), ^bb2()
            ^bb2:
              vm.return %i8
            }

            // r0[k] = k + 1 (f32) for k < n, and at k == 3 also reads r1[0]: a null r1 traps there.
            vm.export @late
            vm.func @late(%r0: !vm.buffer, %r1: !vm.buffer, %i0: i32) -> (f32) {
            ^bb0:
              %i2:3 = vm.ext.i32.i64.s %i0
              %i4:5 = vm.const.i64.zero
              %i6:7 = vm.const.i64 1
              %i8:9 = vm.const.i64 3
              %i12 = vm.const.f32 1.0
              %i13 = vm.const.f32 1.0
              vm.br ^bb1()
            ^bb1:
              vm.buffer.store.f32 %i12, %r0, %i4:5
              %i12 = vm.add.f32 %i12, %i13
              %i10 = vm.cmp.eq.i64 %i4:5, %i8:9
              vm.cond_br %i10, ^bb2(), ^bb3()
            ^bb2:
              %i14 = vm.buffer.load.f32 %r1, %i4:5
              vm.br ^bb3()
            ^bb3:
              %i4:5 = vm.add.i64 %i4:5, %i6:7
              %i11 = vm.cmp.lt.i64.s %i4:5, %i2:3
              vm.cond_br %i11, ^bb1(), ^bb4()
            ^bb4:
              vm.return %i12
            }
            """;

    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 =
            ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private static final List<ExecutionMode> MODES = List.of(ExecutionMode.OFF, ExecutionMode.EAGER);

    private static BytecodeModule load(Instance instance, ExecutionMode mode) {
        ModuleDef def = new Assembler(VmasmFixture.EXTENSIONS).assemble(SOURCE, "loops.vmasm");
        BytecodeModule m = BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS,
                BytecodeModule.Options.DEFAULT.withExecution(mode));
        if (mode == ExecutionMode.EAGER) {
            assertEquals(java.util.Collections.nCopies(4, (String) null), m.compilationReport(), "all compiled");
        }
        return m;
    }

    /** Calls {@code export} with {@code refs} then {@code n}; the results, or "status " + the trap. */
    private static String call(ExecutionMode mode, String export, int n, VmBuffer... refs) {
        Instance instance = new Instance();
        BytecodeModule module = load(instance, mode);
        try (Context context = Context.create(instance, module)) {
            VmList in = VmList.ofVariants(refs.length + 1);
            for (VmBuffer b : refs) {
                in.pushRefRetain(b);
            }
            in.pushI32(n);
            VmList out = VmList.ofVariants(2);
            try {
                Invocation.invoke(context, module.lookupExport(export), in, out);
                List<String> results = new ArrayList<>();
                for (int k = 0; k < out.size(); k++) {
                    results.add(String.valueOf(out.getVariant(k)));
                }
                return "ok " + results;
            } catch (StatusException e) {
                return "status " + e;
            }
        }
    }

    private static VmBuffer buffer(int bytes) {
        return VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE, bytes, 16);
    }

    private static int[] ints(VmBuffer b) {
        int[] out = new int[(int) (b.length() / 4)];
        for (int k = 0; k < out.length; k++) {
            out[k] = b.segment().get(I32, 4L * k);
        }
        return out;
    }

    @Test
    void anAccessPastTheEndTrapsAtThatIterationAfterTheEarlierStores() {
        List<String> outcomes = new ArrayList<>();
        for (ExecutionMode mode : MODES) {
            VmBuffer b = buffer(40); // 10 elements, the loop runs to 16
            String outcome = call(mode, "fill", 16, b);
            outcomes.add(outcome);
            assertTrue(outcome.startsWith("status " + StatusCode.OUT_OF_RANGE) && outcome.contains("offset=40"),
                    mode + ": " + outcome);
            assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, ints(b), mode + ": every earlier store");
        }
        assertEquals(outcomes.get(0), outcomes.get(1), "status, message and backtrace, interpreted vs compiled");
        for (ExecutionMode mode : MODES) {
            VmBuffer b = buffer(64);
            // The exit compare's result is read after the loop: still stored although fused.
            assertEquals("ok [i32=9, i32=0]", call(mode, "fill", 8, b), mode.name());
            assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0}, ints(b), mode.name());
        }
    }

    @Test
    void aStoreToAReadOnlyBufferInALoopIsRefusedAsInTheInterpreter() {
        List<String> outcomes = new ArrayList<>();
        for (ExecutionMode mode : MODES) {
            MemorySegment memory = Arena.ofAuto().allocate(64);
            VmBuffer readOnly = VmBuffer.wrap(VmBuffer.ACCESS_ORIGIN_HOST, memory, null);
            String outcome = call(mode, "fill", 4, readOnly);
            assertTrue(outcome.startsWith("status " + StatusCode.PERMISSION_DENIED), mode + ": " + outcome);
            outcomes.add(outcome);
        }
        assertEquals(outcomes.get(0), outcomes.get(1));
    }

    @Test
    void twoRegistersHoldingOneBufferSeeEachOthersStores() {
        for (ExecutionMode mode : MODES) {
            VmBuffer b = buffer(64);
            for (int k = 0; k < 16; k++) {
                b.segment().set(I32, 4L * k, 1);
            }
            assertEquals("ok [i32=16]", call(mode, "prefix", 16, b, b), mode.name());
            int[] expected = new int[16];
            for (int k = 0; k < 16; k++) {
                expected[k] = k + 1;
            }
            assertArrayEquals(expected, ints(b), mode + ": prefix sums through the other register");
        }
    }

    @Test
    void aBufferRegisterThatChangesInTheLoopIsReadAtEveryAccess() {
        for (ExecutionMode mode : MODES) {
            VmBuffer a = buffer(32);
            VmBuffer b = buffer(32);
            assertEquals("ok [i32=9]", call(mode, "alternate", 8, a, b), mode.name());
            assertArrayEquals(new int[] {1, 0, 3, 0, 5, 0, 7, 0}, ints(a), mode.name());
            assertArrayEquals(new int[] {0, 2, 0, 4, 0, 6, 0, 8}, ints(b), mode.name());
        }
        List<String> outcomes = new ArrayList<>();
        for (ExecutionMode mode : MODES) {
            VmBuffer a = buffer(32);
            String outcome = call(mode, "alternate", 8, a, null);
            assertTrue(outcome.startsWith("status " + StatusCode.INVALID_ARGUMENT), mode + ": " + outcome);
            assertArrayEquals(new int[] {1, 0, 0, 0, 0, 0, 0, 0}, ints(a), mode.name());
            outcomes.add(outcome);
        }
        assertEquals(outcomes.get(0), outcomes.get(1));
    }

    @Test
    void aNullBufferReadInOneIterationOfALoopTrapsThere() {
        List<String> outcomes = new ArrayList<>();
        for (ExecutionMode mode : MODES) {
            VmBuffer a = buffer(32);
            String outcome = call(mode, "late", 8, a, null);
            assertTrue(outcome.startsWith("status " + StatusCode.INVALID_ARGUMENT), mode + ": " + outcome);
            float[] got = new float[8];
            for (int k = 0; k < 8; k++) {
                got[k] = a.segment().get(F32, 4L * k);
            }
            assertArrayEquals(new float[] {1, 2, 3, 4, 0, 0, 0, 0}, got, mode + ": the stores of k = 0..3");
            outcomes.add(outcome);
        }
        assertEquals(outcomes.get(0), outcomes.get(1));
        for (ExecutionMode mode : MODES) {
            assertEquals("ok [f32=9.0]", call(mode, "late", 8, buffer(32), buffer(16)), mode.name());
        }
    }

    /**
     * The cache keeps native memory only (so C2 knows the segment's kind); a buffer over a heap
     * array or a mapped file must still give the interpreter's results and traps.
     */
    @Test
    void buffersOverHeapArraysAndMappedFilesGiveTheInterpretersResultsAndTraps(@TempDir Path dir)
            throws IOException {
        for (String kind : List.of("heap", "mapped", "native")) {
            List<String> outcomes = new ArrayList<>();
            for (ExecutionMode mode : MODES) {
                VmBuffer b = memoryOfKind(kind, 64, dir.resolve(kind + mode));
                for (int k = 0; k < 16; k++) {
                    b.segment().set(I32, 4L * k, 1);
                }
                assertEquals("ok [i32=16]", call(mode, "prefix", 16, b, b), kind + " " + mode);
                int[] expected = new int[16];
                for (int k = 0; k < 16; k++) {
                    expected[k] = k + 1;
                }
                assertArrayEquals(expected, ints(b), kind + " " + mode);
                VmBuffer small = memoryOfKind(kind, 40, dir.resolve(kind + mode + "-small"));
                String outcome = call(mode, "fill", 16, small);
                assertTrue(outcome.startsWith("status " + StatusCode.OUT_OF_RANGE) && outcome.contains("offset=40"),
                        kind + " " + mode + ": " + outcome);
                assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, ints(small), kind + " " + mode);
                outcomes.add(outcome);
            }
            assertEquals(outcomes.get(0), outcomes.get(1), kind + ": interpreted vs compiled");
        }
    }

    private static VmBuffer memoryOfKind(String kind, int bytes, Path file) throws IOException {
        MemorySegment memory = switch (kind) {
            case "heap" -> MemorySegment.ofArray(new byte[bytes]);
            case "mapped" -> {
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    yield channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes, Arena.ofAuto());
                }
            }
            default -> Arena.ofAuto().allocate(bytes, 16);
        };
        return VmBuffer.wrap(VmBuffer.ACCESS_MUTABLE, memory, null);
    }

    @Test
    void theCacheIsUsedForLoopInvariantBufferRegistersOnly() {
        BytecodeModule m = load(new Instance(), ExecutionMode.OFF);
        byte[] bytes = Compiler.generate(m).classBytes();
        assertNotNull(bytes);
        ClassModel model = ClassFile.of().parse(bytes);
        // fill: r0; prefix: r0 and r1; alternate: none (both registers change); late: r0 and r1.
        assertEquals(List.of(1, 2, 0, 2), List.of(caches(model, "f0"), caches(model, "f1"), caches(model, "f2"),
                caches(model, "f3")));
    }

    private static int caches(ClassModel model, String method) {
        int n = 0;
        for (MethodModel mm : model.methods()) {
            if (mm.methodName().equalsString(method)) {
                for (var e : mm.code().orElseThrow()) {
                    if (e instanceof InvokeInstruction i && i.name().equalsString("cachedSegment")) {
                        n++;
                    }
                }
            }
        }
        return n;
    }
}
