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
        BytecodeModule lib = BytecodeModule.create(instance, asm.assemble(LIB, "lib.vmasm"), VmasmFixture.EXTENSIONS);
        BytecodeModule app = BytecodeModule.create(instance, asm.assemble(APP, "app.vmasm"), VmasmFixture.EXTENSIONS);
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
        BytecodeModule lib = BytecodeModule.create(instance, asm.assemble(LIB, "lib.vmasm"), VmasmFixture.EXTENSIONS);
        BytecodeModule app = BytecodeModule.create(instance, asm.assemble(APP, "app.vmasm"), VmasmFixture.EXTENSIONS);
        try (Context context = Context.create(instance, lib, app)) {
            StatusException e = ModuleTestRunner.invoke(context, context.resolveFunction("app.propagate"), new int[1]);
            assertEquals(StatusCode.ABORTED, e.code());
            assertTrue(e.getMessage().contains("lib failed"), e.getMessage());
            assertTrue(e.getMessage().contains("lib.boom"), e.getMessage());
            assertTrue(e.getMessage().contains("app.propagate"), e.getMessage());
        }
    }

    @Test
    void moduleRunnerCountsResumes() {
        Instance instance = new Instance();
        Assembler asm = new Assembler(VmasmFixture.EXTENSIONS);
        BytecodeModule lib = BytecodeModule.create(instance, asm.assemble(LIB, "lib.vmasm"), VmasmFixture.EXTENSIONS);
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
}
