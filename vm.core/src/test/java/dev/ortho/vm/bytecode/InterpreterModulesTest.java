package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Context;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Bytecode modules importing each other (including yields across modules) and extension memory ops. */
class InterpreterModulesTest {
    static final String LIB = """
            vm.module @lib version 3
            vm.export @slow_add
            vm.func @slow_add(%i0: i32, %i1: i32) -> (i32) {
            ^bb0:
              vm.yield ^bb1()
            ^bb1:
              %i2 = vm.add.i32 %i0, %i1
              vm.yield ^bb2()
            ^bb2:
              vm.return %i2
            }
            vm.export @boom
            vm.func @boom() -> () {
            ^bb0:
              %i0 = vm.const.i32 10
              vm.fail %i0, "lib failed"
            }
            """;
    static final String APP = """
            vm.module @app version 0
            vm.import @lib.slow_add cconv "0ii_i"
            vm.import @lib.boom cconv "0v_v"
            vm.export @run
            vm.func @run(%i0: i32) -> (i32) {
            ^bb0:
              %i1 = vm.const.i32 100
              vm.call.yieldable @lib.slow_add(%i0, %i1) -> ^bb1(%i2)
            ^bb1:
              vm.call.yieldable @lib.slow_add(%i2, %i2) -> ^bb2(%i3)
            ^bb2:
              vm.return %i3
            }
            vm.export @propagate
            vm.func @propagate() -> () {
            ^bb0:
              vm.call @lib.boom()
              vm.return
            }
            """;

    @Test
    void bytecodeImportsYieldAndResumeAcrossModules() {
        Instance instance = new Instance();
        Assembler asm = new Assembler(VmasmFixture.EXTENSIONS);
        BytecodeModule lib = VmasmFixture.create(instance, asm.assemble(LIB, "lib.vmasm"), VmasmFixture.EXTENSIONS);
        BytecodeModule app = VmasmFixture.create(instance, asm.assemble(APP, "app.vmasm"), VmasmFixture.EXTENSIONS);
        try (Context context = Context.create(instance, lib, app)) {
            VmList in = VmList.ofVariants(1);
            in.pushI32(5);
            VmList out = VmList.ofVariants(1);
            Invocation.invoke(context, context.resolveFunction("app.run"), in, out);
            assertEquals(210, out.getI32(0));
            // two calls, each yielding twice inside lib
            int[] resumes = new int[1];
            assertEquals(null, ModuleTestRunner.invoke(context, context.resolveFunction("lib.slow_add"), resumes));
            assertEquals(2, resumes[0]);
        }
    }

    @Test
    void failuresInImportedBytecodeCarryBothFrames() {
        Instance instance = new Instance();
        Assembler asm = new Assembler(VmasmFixture.EXTENSIONS);
        BytecodeModule lib = VmasmFixture.create(instance, asm.assemble(LIB, "lib.vmasm"), VmasmFixture.EXTENSIONS);
        BytecodeModule app = VmasmFixture.create(instance, asm.assemble(APP, "app.vmasm"), VmasmFixture.EXTENSIONS);
        try (Context context = Context.create(instance, lib, app)) {
            StatusException e = ModuleTestRunner.invoke(context, context.resolveFunction("app.propagate"), new int[1]);
            assertEquals(StatusCode.ABORTED, e.code());
            assertTrue(e.getMessage().contains("lib failed"), e.getMessage());
            assertTrue(e.getMessage().contains("lib.boom"), e.getMessage());
            assertTrue(e.getMessage().contains("app.propagate"), e.getMessage());
        }
    }

    @Test
    void backtracesShowDebugLocations() {
        Instance instance = new Instance();
        ModuleDef plain = new Assembler(VmasmFixture.EXTENSIONS).assemble(LIB, "lib.vmasm");
        int boom = plain.exports().stream().filter(e -> e.localName().equals("boom")).findFirst().orElseThrow()
                .internalOrdinal();
        ModuleDef.DebugDatabaseDef debug = new ModuleDef.DebugDatabaseDef(
                List.of(new ModuleDef.FileLineColLoc("lib.mlir", 12, 3), new ModuleDef.NameLoc("boom", 0)),
                List.of(new ModuleDef.SourceMapDef("boom", List.of(new ModuleDef.BytecodeLocation(0, 1)))));
        ModuleDef def = new ModuleDef(plain.name(), plain.version(), plain.requirements(), plain.attrs(),
                plain.types(), plain.dependencies(), plain.imports(), plain.exports(), plain.signatures(),
                plain.rodata(), plain.rwdata(), plain.state(), plain.functions(), plain.bytecodeVersion(),
                plain.bytecode(), debug);
        BytecodeModule lib = VmasmFixture.create(instance, def, VmasmFixture.EXTENSIONS);
        assertEquals("\"boom\"(lib.mlir:12:3)", lib.sourceLocation(lib.internalFunction(boom), 4));
        try (Context context = Context.create(instance, lib)) {
            StatusException e = ModuleTestRunner.invoke(context, context.resolveFunction("lib.boom"), new int[1]);
            assertTrue(e.getMessage().contains("lib.boom:") && e.getMessage().contains("lib.mlir:12:3"),
                    e.getMessage());
        }
    }

    @Test
    void moduleRunnerCountsResumes() {
        Instance instance = new Instance();
        Assembler asm = new Assembler(VmasmFixture.EXTENSIONS);
        BytecodeModule lib = VmasmFixture.create(instance, asm.assemble(LIB, "lib.vmasm"), VmasmFixture.EXTENSIONS);
        ModuleTestRunner.Report report = ModuleTestRunner.run(instance, List.of(), lib);
        assertEquals("lib", report.module());
        assertEquals(2, report.outcomes().size());
        // slow_add runs with zero arguments and passes; boom fails (and is not a fail_ test).
        assertEquals("1 passed, 1 failed", report.summary());
        assertEquals(2, report.outcomes().get(0).resumes());
    }

    @Test
    void extensionMemoryOps() {
        try (VmasmFixture vm = new VmasmFixture(VmasmFixture.module("""
                vm.export @mem
                vm.func @mem() -> (f32, f64, f32, f64, f32, f64) {
                ^bb0:
                  %i0:1 = vm.const.i64 0
                  %i2:3 = vm.const.i64 4
                  %i4 = vm.const.i32 16
                  %i6:7 = vm.const.i64 32
                  %r0 = vm.buffer.alloc %i6:7, %i4
                  %i5 = vm.const.f32 1.5
                  vm.buffer.fill.f32 %r0, %i0:1, %i2:3, %i5
                  %i8:9 = vm.const.f64 -3.25
                  %i10:11 = vm.const.i64 3
                  vm.buffer.store.f64 %i8:9, %r0, %i10:11
                  %i12 = vm.buffer.load.f32 %r0, %i2:3
                  %i14:15 = vm.buffer.load.f64 %r0, %i10:11
                  %i16 = vm.const.i32 2
                  %r1 = vm.list.alloc %i16 : !vm.list<?>
                  vm.list.resize %r1, %i16
                  %i17 = vm.const.i32 0
                  %i18 = vm.const.i32 1
                  vm.list.set.f32 %r1, %i17, %i5
                  vm.list.set.f64 %r1, %i18, %i8:9
                  %i19 = vm.list.get.f32 %r1, %i17
                  %i20:21 = vm.list.get.f64 %r1, %i18
                  vm.global.store.f32 %i5, .rwdata[0]
                  vm.global.store.f64 %i8:9, .rwdata[8]
                  %i22 = vm.global.load.f32 .rwdata[0]
                  %i23 = vm.const.i32 8
                  %i24:25 = vm.global.load.indirect.f64 .rwdata[%i23]
                  vm.global.store.indirect.f32 %i5, .rwdata[%i17]
                  vm.discard.refs %r0, %r1
                  vm.return %i12, %i14:15, %i19, %i20:21, %i22, %i24:25
                }
                """))) {
            VmList out = vm.call("mem");
            assertEquals(0f, out.getF32(0)); // elements 0..3 filled, element 4 untouched
            assertEquals(-3.25, out.getF64(1));
            assertEquals(1.5f, out.getF32(2));
            assertEquals(-3.25, out.getF64(3));
            assertEquals(1.5f, out.getF32(4));
            assertEquals(-3.25, out.getF64(5));
        }
    }

    @Test
    void remainingGlobalAndBufferForms() {
        try (VmasmFixture vm = new VmasmFixture(VmasmFixture.module("""
                vm.export @more
                vm.func @more() -> (i64, i32, i32, i32, i64, i32, i64, f32, f32, f64, f64) {
                ^bb0:
                  %i0 = vm.const.i32 8
                  %i2:3 = vm.const.i64 -81985529216486896
                  vm.global.store.indirect.i64 %i2:3, .rwdata[%i0]
                  %i4:5 = vm.global.load.indirect.i64 .rwdata[%i0]
                  %r2 = vm.const.ref.zero
                  vm.global.store.ref %r2, .refs[0] : !vm.buffer
                  %r0 = vm.const.ref.rodata 0
                  %i6 = vm.const.i32 0
                  vm.global.store.indirect.ref %r0, .refs[%i6] : !vm.buffer
                  %r1 = vm.global.load.indirect.ref .refs[%i6] : !vm.buffer
                  %i7 = vm.cmp.ne.ref %r1, %r2
                  %i8:9 = vm.const.i64 0
                  %i10:11 = vm.const.i64 4
                  %i12 = vm.const.i32 8
                  %i14:15 = vm.const.i64 64
                  %r3 = vm.buffer.alloc %i14:15, %i12
                  %i13 = vm.const.i32 -2
                  vm.buffer.fill.i16 %r3, %i8:9, %i10:11, %i13
                  %i16 = vm.buffer.load.i16.s %r3, %i8:9
                  vm.buffer.fill.i32 %r3, %i10:11, %i10:11, %i13
                  %i17 = vm.buffer.load.i32 %r3, %i10:11
                  vm.buffer.fill.i64 %r3, %i10:11, %i10:11, %i2:3
                  %i18:19 = vm.buffer.load.i64 %r3, %i10:11
                  vm.buffer.store.i32 %i12, %r3, %i8:9
                  %i22 = vm.buffer.load.i32 %r3, %i8:9
                  vm.buffer.store.i64 %i2:3, %r3, %i8:9
                  %i24:25 = vm.buffer.load.i64 %r3, %i8:9
                  %i26 = vm.const.f32 0.5
                  %i27 = vm.const.i32 16
                  vm.global.store.f32 %i26, .rwdata[16]
                  %i28 = vm.global.load.indirect.f32 .rwdata[%i27]
                  vm.buffer.store.f32 %i26, %r3, %i8:9
                  %i29 = vm.buffer.load.f32 %r3, %i8:9
                  %i30:31 = vm.const.f64 0.25
                  %i32 = vm.const.i32 24
                  vm.global.store.indirect.f64 %i30:31, .rwdata[%i32]
                  %i34:35 = vm.global.load.f64 .rwdata[24]
                  vm.buffer.fill.f64 %r3, %i8:9, %i10:11, %i30:31
                  %i38:39 = vm.const.i64 3
                  %i36:37 = vm.buffer.load.f64 %r3, %i38:39
                  vm.discard.refs %r0, %r1, %r3
                  vm.return %i4:5, %i7, %i16, %i17, %i18:19, %i22, %i24:25, %i28, %i29, %i34:35, %i36:37
                }
                """))) {
            VmList out = vm.call("more");
            assertEquals(-81985529216486896L, out.getI64(0));
            assertEquals(1, out.getI32(1));
            assertEquals(-2, out.getI32(2));
            assertEquals(-2, out.getI32(3));
            assertEquals(-81985529216486896L, out.getI64(4));
            assertEquals(8, out.getI32(5));
            assertEquals(-81985529216486896L, out.getI64(6));
            assertEquals(0.5f, out.getF32(7));
            assertEquals(0.5f, out.getF32(8));
            assertEquals(0.25, out.getF64(9));
            assertEquals(0.25, out.getF64(10));
        }
    }
}
