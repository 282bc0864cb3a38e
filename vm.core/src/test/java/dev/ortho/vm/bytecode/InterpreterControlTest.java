package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Calls, branches, yields, failures, globals, rodata, lists, buffers and ref moves, through VMASM. */
class InterpreterControlTest {
    static final AtomicInteger HOST_CALLS = new AtomicInteger();
    static VmasmFixture vm;

    @BeforeAll
    static void load() {
        NativeModule<Void> host = NativeModule.<Void>builder("host", 1)
                .export("twice", "0i_i", (s, call) -> {
                    HOST_CALLS.incrementAndGet();
                    call.results().setI32(0, call.args().i32(0) * 2);
                    return CallOutcome.COMPLETED;
                })
                .export("length", "0r_I", (s, call) -> {
                    RefObject r = call.args().ref(0);
                    call.results().setI64(0, r instanceof VmBuffer b ? b.length() : -1);
                    return CallOutcome.COMPLETED;
                })
                .build();
        vm = new VmasmFixture(VmasmFixture.module("""
                vm.import @host.twice cconv "0i_i"
                vm.import @host.length cconv "0r_I"
                vm.import optional @host.missing cconv "0i_i"
                vm.import @yieldable_test.yield_n cconv "0ii_i"
                vm.import @yieldable_test.yield_variadic_sum cconv "0CiDi_i"

                vm.export @mixed
                vm.func @mixed(%i0:1: i64, %i2: f32, %i3: i32) -> (i64, f32, i32) {
                ^bb0:
                  %i4:5, %i6, %i7 = vm.call @callee(%i0:1, %i2, %i3)
                  vm.return %i4:5, %i6, %i7
                }
                vm.func @callee(%i0:1: i64, %i2: f32, %i3: i32) -> (i64, f32, i32) {
                ^bb0:
                  %i4:5 = vm.const.i64 1
                  %i0:1 = vm.add.i64 %i0:1, %i4:5
                  %i6 = vm.add.f32 %i2, %i2
                  %i7 = vm.add.i32 %i3, %i3
                  vm.return %i0:1, %i6, %i7
                }

                vm.export @fib
                vm.func @fib(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 2
                  %i2 = vm.cmp.lt.i32.s %i0, %i1
                  vm.cond_br %i2, ^bb1(), ^bb2()
                ^bb1:
                  vm.return %i0
                ^bb2:
                  %i3 = vm.const.i32 1
                  %i4 = vm.sub.i32 %i0, %i3
                  %i5 = vm.call @fib(%i4)
                  %i4 = vm.sub.i32 %i0, %i1
                  %i6 = vm.call @fib(%i4)
                  %i7 = vm.add.i32 %i5, %i6
                  vm.return %i7
                }

                vm.export @forever
                vm.func @forever(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.call @forever(%i0)
                  vm.return %i1
                }

                vm.export @table
                vm.func @table(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 100
                  %i2 = vm.const.i32 200
                  %i3 = vm.const.i32 -1
                  vm.br_table %i0 { default: ^bb1(%i3->%i4), 0: ^bb1(%i1->%i4), 1: ^bb1(%i2->%i4) }
                ^bb1:
                  vm.return %i4
                }

                vm.export @host_calls
                vm.func @host_calls(%i0: i32) -> (i32, i64) {
                ^bb0:
                  %i0 = vm.call @host.twice(%i0)
                  %i0 = vm.call @host.twice(%i0)
                  %r0 = vm.const.ref.rodata 0
                  %i2:3 = vm.call @host.length(%R0)
                  vm.return %i0, %i2:3
                }

                vm.export @optional_resolved
                vm.func @optional_resolved() -> (i32) {
                ^bb0:
                  %i0 = vm.import.resolved @host.missing
                  vm.return %i0
                }

                vm.export @call_missing
                vm.func @call_missing() -> (i32) {
                ^bb0:
                  %i0 = vm.const.i32 1
                  %i1 = vm.call @host.missing(%i0)
                  vm.return %i1
                }

                vm.export @yields
                vm.func @yields(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 1
                  vm.yield ^bb1()
                ^bb1:
                  %i0 = vm.add.i32 %i0, %i1
                  vm.yield ^bb2(%i0->%i2)
                ^bb2:
                  %i2 = vm.add.i32 %i2, %i1
                  vm.return %i2
                }

                vm.export @yield_imports
                vm.func @yield_imports(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 3
                  vm.call.yieldable @yieldable_test.yield_n(%i0, %i1) -> ^bb1(%i3)
                ^bb1:
                  %i4 = vm.const.i32 10
                  %i5 = vm.const.i32 20
                  vm.call.variadic.yieldable @yieldable_test.yield_variadic_sum segments[2, 1](%i4, %i5, %i1) -> ^bb2(%i7)
                ^bb2:
                  %i8 = vm.add.i32 %i3, %i7
                  vm.return %i8
                }

                vm.export @internal_yield
                vm.func @internal_yield(%i0: i32) -> (i32) {
                ^bb0:
                  vm.call.yieldable @yields(%i0) -> ^bb1(%i2)
                ^bb1:
                  vm.return %i2
                }

                vm.export @fails
                vm.func @fails(%i0: i32) -> () {
                ^bb0:
                  vm.fail %i0, "custom failure"
                }

                vm.export @globals
                vm.func @globals(%i0: i32, %i1: i32) -> (i32, i64, i32) {
                ^bb0:
                  vm.global.store.i32 %i1, .rwdata[0]
                  %i2:3 = vm.const.i64 -2
                  vm.global.store.i64 %i2:3, .rwdata[8]
                  %i4 = vm.global.load.indirect.i32 .rwdata[%i0]
                  %i6:7 = vm.global.load.i64 .rwdata[8]
                  %i8 = vm.const.i32 16
                  vm.global.store.indirect.i32 %i1, .rwdata[%i8]
                  %i9 = vm.global.load.i32 .rwdata[16]
                  vm.return %i4, %i6:7, %i9
                }

                vm.export @ref_globals
                vm.func @ref_globals() -> (i32, i64) {
                ^bb0:
                  %r0 = vm.const.ref.rodata 0
                  vm.global.store.ref %R0, .refs[0] : !vm.buffer
                  %r1 = vm.global.load.ref .refs[0] : !vm.buffer
                  %i0 = vm.cmp.nz.ref %r0
                  %i2:3 = vm.buffer.length %r1
                  vm.discard.refs %r1
                  vm.return %i0, %i2:3
                }

                vm.export @ref_global_type_mismatch
                vm.func @ref_global_type_mismatch() -> () {
                ^bb0:
                  %r0 = vm.const.ref.rodata 0
                  vm.global.store.ref %R0, .refs[0] : !vm.list<?>
                  vm.return
                }

                vm.export @lists
                vm.func @lists() -> (i32, i32, i64, f32, i32, i32) {
                ^bb0:
                  %i0 = vm.const.i32 2
                  %r0 = vm.list.alloc %i0 : !vm.list<?>
                  %i1 = vm.const.i32 4
                  vm.list.reserve %r0, %i1
                  vm.list.resize %r0, %i1
                  %i2 = vm.const.i32 0
                  %i3 = vm.const.i32 1
                  %i4 = vm.const.i32 -5
                  vm.list.set.i32 %r0, %i2, %i4
                  %i6:7 = vm.const.i64 4294967296
                  vm.list.set.i64 %r0, %i3, %i6:7
                  %i8 = vm.const.f32 2.5
                  vm.list.set.f32 %r0, %i0, %i8
                  %r1 = vm.const.ref.rodata 0
                  %i9 = vm.const.i32 3
                  vm.list.set.ref %r0, %i9, %R1
                  %i10 = vm.list.size %r0
                  %i11 = vm.list.get.i32 %r0, %i2
                  %i12:13 = vm.list.get.i64 %r0, %i3
                  %i14 = vm.list.get.f32 %r0, %i0
                  %r2 = vm.list.get.ref %r0, %i9 : !vm.buffer
                  %i15 = vm.cmp.nz.ref %r2
                  %r3 = vm.list.get.ref %r0, %i9 : !vm.list<?>
                  %i16 = vm.cmp.nz.ref %r3
                  vm.discard.refs %r0, %r2, %r3
                  vm.return %i10, %i11, %i12:13, %i14, %i15, %i16
                }

                vm.export @list_out_of_range
                vm.func @list_out_of_range(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 1
                  %r0 = vm.list.alloc %i1 : !vm.list<i32>
                  vm.list.resize %r0, %i1
                  %i2 = vm.list.get.i32 %r0, %i0
                  vm.discard.refs %r0
                  vm.return %i2
                }

                vm.export @null_list
                vm.func @null_list() -> (i32) {
                ^bb0:
                  %r0 = vm.const.ref.zero
                  %i0 = vm.list.size %r0
                  vm.return %i0
                }

                vm.export @buffers
                vm.func @buffers() -> (i32, i32, i32, i32, i64, i32, i64, i64) {
                ^bb0:
                  %r0 = vm.const.ref.rodata 0
                  %i0:1 = vm.const.i64 0
                  %i2:3 = vm.const.i64 8
                  %i4 = vm.const.i32 16
                  %r1 = vm.buffer.alloc %i2:3, %i4
                  %i5 = vm.const.i32 -1
                  vm.buffer.fill.i8 %r1, %i0:1, %i2:3, %i5
                  %i6 = vm.buffer.load.i8.s %r1, %i0:1
                  %i7 = vm.buffer.load.i8.u %r1, %i0:1
                  vm.buffer.copy %r0, %i0:1, %r1, %i0:1, %i2:3
                  %i8 = vm.buffer.compare %r0, %i0:1, %r1, %i0:1, %i2:3
                  %i10:11 = vm.const.i64 1
                  %i9 = vm.buffer.load.i32 %r1, %i10:11
                  %i12:13 = vm.buffer.load.i64 %r1, %i0:1
                  vm.buffer.store.i16 %i5, %r1, %i10:11
                  %i14 = vm.buffer.load.i16.u %r1, %i10:11
                  %r2 = vm.buffer.clone %r1, %i0:1, %i2:3, %i4
                  %i16:17 = vm.buffer.length %r2
                  %i18:19 = vm.buffer.hash %r2, %i0:1, %i2:3
                  vm.discard.refs %r0, %r1, %r2
                  vm.return %i6, %i7, %i8, %i9, %i12:13, %i14, %i16:17, %i18:19
                }

                vm.export @store_rodata
                vm.func @store_rodata() -> () {
                ^bb0:
                  %r0 = vm.const.ref.rodata 0
                  %i0:1 = vm.const.i64 0
                  %i2 = vm.const.i32 1
                  vm.buffer.store.i8 %i2, %r0, %i0:1
                  vm.discard.refs %r0
                  vm.return
                }

                vm.export @moves
                vm.func @moves() -> (i32, i32, i32, i32) {
                ^bb0:
                  %r0 = vm.const.ref.rodata 0
                  %r1 = vm.assign.ref %r0
                  %i0 = vm.cmp.eq.ref %r0, %r1
                  %r2 = vm.assign.ref %R0
                  %i1 = vm.cmp.nz.ref %r0
                  %r3 = vm.cast.any.ref %R1 : !vm.ref<?> -> !vm.buffer
                  %i2 = vm.cmp.nz.ref %r1
                  vm.trace "event"(%i0, %R3)
                  %i3 = vm.cmp.nz.ref %r3
                  vm.discard.refs %r2
                  vm.return %i0, %i1, %i2, %i3
                }

                vm.export @breaks_and_ref_selects
                vm.func @breaks_and_ref_selects(%i0: i32) -> (i32, i32, i32, i32) {
                ^bb0:
                  %i1 = vm.const.i32 5
                  vm.cond_break %i0, ^bb1()
                ^bb1:
                  vm.break ^bb2(%i1->%i2)
                ^bb2:
                  %r0 = vm.const.ref.rodata 0
                  %r1 = vm.const.ref.zero
                  %r2 = vm.select.ref %i0 ? %r0 : %r1 -> !vm.buffer
                  %r3 = vm.switch.ref %i0[%r1, %r0] else %r1 : !vm.buffer
                  %i3 = vm.cmp.nz.ref %r2
                  %i4 = vm.cmp.nz.ref %r3
                  vm.print "p"(%i2, %R3)
                  %i5 = vm.cmp.nz.ref %r3
                  vm.discard.refs %r0, %r2
                  vm.return %i2, %i3, %i4, %i5
                }

                vm.export @bad_cast
                vm.func @bad_cast() -> () {
                ^bb0:
                  %r0 = vm.const.ref.rodata 0
                  %r1 = vm.cast.any.ref %R0 : !vm.ref<?> -> !vm.list<?>
                  vm.discard.refs %r1
                  vm.return
                }
                """), host);
    }

    @AfterAll
    static void close() {
        vm.close();
    }

    @Test
    void internalCallsPassEveryValueKind() {
        VmList out = vm.call("mixed", (1L << 40) + 5, 1.25f, 21);
        assertEquals((1L << 40) + 6, out.getI64(0));
        assertEquals(2.5f, out.getF32(1));
        assertEquals(42, out.getI32(2));
    }

    @Test
    void recursionUsesStackFramesAndOverflowFails() {
        assertEquals(6765, vm.call("fib", 20).getI32(0));
        StatusException e = vm.failure("forever", 1);
        assertNotNull(e);
        assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
    }

    /** Issue 15: a stack overflow printed a backtrace of thousands of lines. */
    @Test
    void aStackOverflowBacktraceElidesTheMiddleAsACount() {
        StatusException e = vm.failure("forever", 1);
        String trace = e.annotations().get(e.annotations().size() - 1);
        String[] lines = trace.strip().split("\\R");
        assertEquals(dev.ortho.vm.Stack.BACKTRACE_TOP_FRAMES + 1 + dev.ortho.vm.Stack.BACKTRACE_BOTTOM_FRAMES,
                lines.length, trace);
        java.util.regex.Matcher elided = java.util.regex.Pattern.compile("\\[\\.\\.\\] \\.\\.\\. ([0-9,]+) frames elided \\.\\.\\.")
                .matcher(lines[dev.ortho.vm.Stack.BACKTRACE_TOP_FRAMES]);
        assertTrue(elided.matches(), lines[dev.ortho.vm.Stack.BACKTRACE_TOP_FRAMES]);
        int top = Integer.parseInt(lines[0].substring(1, lines[0].indexOf(']')).strip());
        assertEquals(top + 1 - dev.ortho.vm.Stack.BACKTRACE_TOP_FRAMES - dev.ortho.vm.Stack.BACKTRACE_BOTTOM_FRAMES,
                Integer.parseInt(elided.group(1).replace(",", "")), "the count is every frame not printed");
        assertTrue(lines[0].contains("bytecode t.forever:"), lines[0]);
        assertTrue(lines[lines.length - 1].startsWith("[ 0]"), lines[lines.length - 1]);
        assertTrue(top > 1000, "the recursion was deep: " + top);
    }

    @Test
    void branchTableTakesCasesAndDefaults() {
        assertEquals(100, vm.call("table", 0).getI32(0));
        assertEquals(200, vm.call("table", 1).getI32(0));
        assertEquals(-1, vm.call("table", 2).getI32(0));
        assertEquals(-1, vm.call("table", -1).getI32(0));
    }

    @Test
    void nativeImportsReceiveArgumentsAndReturnResults() {
        int before = HOST_CALLS.get();
        VmList out = vm.call("host_calls", 5);
        assertEquals(20, out.getI32(0));
        assertEquals(8L, out.getI64(1));
        assertEquals(before + 2, HOST_CALLS.get());
    }

    @Test
    void unresolvedOptionalImportIsReportedAndCallingItFailsNotFound() {
        assertEquals(0, vm.call("optional_resolved").getI32(0));
        StatusException e = vm.failure("call_missing");
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertTrue(e.getMessage().contains("host.missing"), e.getMessage());
    }

    @Test
    void yieldsAndYieldableImportsResume() {
        assertEquals(9, vm.call("yields", 7).getI32(0));
        assertEquals(9, vm.call("internal_yield", 7).getI32(0));
        // yield_n(4, 3) = 7; yield_variadic_sum(10, 20; 3) = 33
        assertEquals(40, vm.call("yield_imports", 4).getI32(0));
    }

    @Test
    void yieldsCountAsResumesInTheRunner() {
        int[] resumes = new int[1];
        assertNull(ModuleTestRunner.invoke(vm.context, vm.context.resolveFunction("t.optional_resolved"), resumes));
        assertEquals(0, resumes[0]);
    }

    @Test
    void failCarriesStatusMessageAndBacktrace() {
        StatusException e = vm.failure("fails", 9);
        assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
        assertTrue(e.getMessage().contains("custom failure"), e.getMessage());
        assertTrue(e.getMessage().contains("bytecode t.fails:"), e.getMessage());
        // A zero status does not fail; running off the end of the function then does.
        StatusException off = vm.failure("fails", 0);
        assertEquals(StatusCode.FAILED_PRECONDITION, off.code());
        assertTrue(off.getMessage().contains("past the end"), off.getMessage());
    }

    @Test
    void globalsDirectAndIndirect() {
        VmList out = vm.call("globals", 0, 77);
        assertEquals(77, out.getI32(0));
        assertEquals(-2L, out.getI64(1));
        assertEquals(77, out.getI32(2));
        assertEquals(77, vm.call("globals", 16, 77).getI32(0));
        assertEquals(-1, vm.call("globals", 12, 77).getI32(0)); // high word of the i64 at 8
        StatusException e = vm.failure("globals", 1 << 20, 1);
        assertEquals(StatusCode.OUT_OF_RANGE, e.code());
        assertEquals(StatusCode.OUT_OF_RANGE, vm.failure("globals", -4, 1).code());
    }

    @Test
    void refGlobalsAreTypeChecked() {
        VmList out = vm.call("ref_globals");
        assertEquals(0, out.getI32(0)); // moved into the global
        assertEquals(8L, out.getI64(1));
        assertEquals(StatusCode.INVALID_ARGUMENT, vm.failure("ref_global_type_mismatch").code());
    }

    @Test
    void listsOfVariants() {
        VmList out = vm.call("lists");
        assertEquals(4, out.getI32(0));
        assertEquals(-5, out.getI32(1));
        assertEquals(4294967296L, out.getI64(2));
        assertEquals(2.5f, out.getF32(3));
        assertEquals(1, out.getI32(4));
        assertEquals(0, out.getI32(5)); // wrong type requested: null
        assertEquals(StatusCode.OUT_OF_RANGE, vm.failure("list_out_of_range", 1).code());
        assertEquals(StatusCode.OUT_OF_RANGE, vm.failure("list_out_of_range", -1).code());
        StatusException e = vm.failure("null_list");
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("list is null"), e.getMessage());
    }

    @Test
    void buffersLoadStoreCopyCompareHash() {
        VmList out = vm.call("buffers");
        assertEquals(-1, out.getI32(0));
        assertEquals(255, out.getI32(1));
        assertEquals(1, out.getI32(2));
        assertEquals(0x08070605, out.getI32(3));
        assertEquals(0x0807060504030201L, out.getI64(4));
        assertEquals(0xFFFF, out.getI32(5));
        assertEquals(8L, out.getI64(6));
        VmBuffer expected = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE, 8, 8);
        expected.storeI64(0, 0x08070605FFFF0201L);
        assertEquals(expected.hash(0, 8), out.getI64(7));
        expected.release();
        assertEquals(StatusCode.PERMISSION_DENIED, vm.failure("store_rodata").code());
    }

    @Test
    void refMovesClearTheSourceAndCastsCheckTypes() {
        VmList out = vm.call("moves");
        assertEquals(1, out.getI32(0));
        assertEquals(0, out.getI32(1));
        assertEquals(0, out.getI32(2));
        assertEquals(0, out.getI32(3)); // vm.trace released the moved operand
        assertEquals(StatusCode.INVALID_ARGUMENT, vm.failure("bad_cast").code());
    }

    @Test
    void breaksBranchAndRefSelectsRetain() {
        VmList out = vm.call("breaks_and_ref_selects", 1);
        assertEquals(5, out.getI32(0));
        assertEquals(1, out.getI32(1));
        assertEquals(1, out.getI32(2));
        assertEquals(0, out.getI32(3)); // vm.print released the moved operand
        out = vm.call("breaks_and_ref_selects", 0);
        assertEquals(5, out.getI32(0));
        assertEquals(0, out.getI32(1));
        assertEquals(0, out.getI32(2));
    }

    @Test
    void tracingRunsTheSameProgram() {
        try (VmasmFixture traced = new VmasmFixture(VmasmFixture.module("""
                vm.export @f
                vm.func @f(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.add.i32 %i0, %i0
                  vm.return %i1
                }
                """))) {
            BytecodeModule module = BytecodeModule.create(traced.instance, traced.module.def(),
                    VmasmFixture.EXTENSIONS, new BytecodeModule.Options(true, false));
            try (var context = dev.ortho.vm.Context.create(traced.instance, module)) {
                VmList in = VmList.ofVariants(1);
                in.pushI32(21);
                VmList out = VmList.ofVariants(1);
                dev.ortho.vm.Invocation.invoke(context, context.resolveFunction("t.f"), in, out);
                assertEquals(42, out.getI32(0));
            }
        }
    }
}
