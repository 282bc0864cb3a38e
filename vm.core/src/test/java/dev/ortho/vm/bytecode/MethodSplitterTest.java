package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.base.StatusException;
import dev.ortho.vm.AbstractRefObject;
import dev.ortho.vm.Call;
import dev.ortho.vm.Context;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Invocation;
import dev.ortho.vm.Stack;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.asm.Assembler;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Functions whose JVM method would reach HotSpot's 8,000-byte {@code HugeMethodLimit} are split
 * into several methods ({@link MethodSplitter}) and still behave exactly as interpreted: results,
 * trap status, message and backtrace, ref counts.
 */
class MethodSplitterTest {

    /** A function far over the limit: a loop whose body alone is larger, then straight-line code, a trap path. */
    static String bigModule() {
        StringBuilder loop = new StringBuilder();
        StringBuilder tail = new StringBuilder();
        for (int k = 0; k < 700; k++) {
            loop.append("  %i3 = vm.add.i32 %i3, %i2\n  %i3 = vm.xor.i32 %i3, %i5\n");
            loop.append("  %i6 = vm.mul.f32 %i6, %i7\n  %i6 = vm.add.f32 %i6, %i7\n");
            if (k % 50 == 0) {
                loop.append("  vm.buffer.store.i32 %i3, %r0, %i8:9\n  %i5 = vm.buffer.load.i32 %r0, %i8:9\n");
            }
            tail.append("  %i10:11 = vm.add.i64 %i10:11, %i12:13\n  %i10:11 = vm.mul.i64 %i10:11, %i12:13\n");
        }
        return """
                vm.module @big version 0
                vm.type i32
                vm.type i64
                vm.type f32
                vm.type !vm.buffer

                vm.export @small
                vm.func @small(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 2
                  %i0 = vm.mul.i32 %i0, %i1
                  vm.return %i0
                }

                vm.func @large(%i0: i32, %r0: !vm.buffer) -> (i32, i64) {
                ^bb0:
                  %i1 = vm.const.i32 1
                  %i2 = vm.const.i32.zero
                  %i3 = vm.const.i32 7
                  %i5 = vm.const.i32 3
                  %i6 = vm.const.f32 1.5
                  %i7 = vm.const.f32 0.25
                  %i8:9 = vm.const.i64 4
                  %i10:11 = vm.const.i64 1
                  %i12:13 = vm.const.i64 3
                  %r1 = vm.assign.ref %r0
                  vm.br ^bb1()
                ^bb1:
                """ + loop + """
                  %i2 = vm.add.i32 %i2, %i1
                  %i4 = vm.cmp.lt.i32.s %i2, %i0
                  vm.cond_br %i4, ^bb1(), ^bb2()
                ^bb2:
                """ + tail + """
                  %i4 = vm.call @big:0(%i3)
                  %i14 = vm.cast.f32.si32 %i6
                  %i4 = vm.add.i32 %i4, %i14
                  %i15 = vm.const.i32 5
                  %i15 = vm.sub.i32 %i0, %i15
                  %i4 = vm.div.i32.s %i4, %i15
                  vm.return %i4, %i10:11
                }

                vm.export @run
                vm.func @run(%i0: i32) -> (i32, i64) {
                ^bb0:
                  %i2:3 = vm.const.i64 64
                  %i4 = vm.const.i32 16
                  %r0 = vm.buffer.alloc %i2:3, %i4
                  %i6, %i8:9 = vm.call @big:1(%i0, %r0)
                  vm.return %i6, %i8:9
                }
                """;
    }

    private static String run(Instance instance, BytecodeModule module, int n) {
        try (Context context = Context.create(instance, module)) {
            VmList in = VmList.ofVariants(1);
            in.pushI32(n);
            VmList out = VmList.ofVariants(2);
            try {
                Invocation.invoke(context, module.lookupExport("run"), in, out);
                return "ok " + out.getVariant(0) + " " + out.getVariant(1);
            } catch (StatusException e) {
                return "status " + e;
            }
        }
    }

    @Test
    void aFunctionOverTheHugeMethodLimitIsSplitAndGivesTheInterpretersResultsAndTraps() {
        bigFunction(); // at the default limit, whatever a Surefire run gives VmasmFixture's modules
    }

    private static void bigFunction() {
        ModuleDef def = new Assembler(VmasmFixture.EXTENSIONS).assemble(bigModule(), "big.vmasm");
        Instance instance = new Instance();
        BytecodeModule interpreted = BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS);
        BytecodeModule compiled = BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS,
                BytecodeModule.Options.DEFAULT.withExecution(ExecutionMode.EAGER));
        List<String> report = compiled.compilationReport();
        assertEquals(java.util.Arrays.asList(null, null, null), report, "every function compiles");
        Compiler.Generated g = Compiler.generate(compiled);
        assertEquals(1, g.methods()[0], "small is one method");
        assertTrue(g.methods()[1] > 2, "large is a dispatcher and regions: " + g.methods()[1]);
        Map<String, Integer> sizes = GeneratedMethodSizeTest.methodSizes(compiled);
        sizes.forEach((method, size) -> assertTrue(size < MethodSplitter.C1_METHOD_LIMIT, method + ": " + size));
        for (int n : new int[] {1, 3, 5, 0, -2}) {
            String expected = run(instance, interpreted, n);
            assertEquals(expected, run(instance, compiled, n), "run(" + n + ")");
            if (n == 5) {
                assertTrue(expected.contains("division by zero"), expected);
            }
        }
    }

    /**
     * A split function's dispatcher took two new register arrays on every call (a kernel's
     * workgroup function ran per workgroup); it now reuses its call environment's, zeroed and
     * emptied, so calls allocate nothing, give the interpreter's results and leave ref counts as
     * they were.
     */
    @Test
    void callsOfASplitFunctionAllocateNothingAndKeepRefCounts() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean,
                "thread allocation counters unavailable: skipped");
        StringBuilder body = new StringBuilder();
        for (int k = 0; k < 60; k++) {
            body.append("  %i3 = vm.add.i32 %i3, %i2\n  %i3 = vm.xor.i32 %i3, %i5\n");
            if (k % 20 == 0) {
                body.append("  %i5 = vm.buffer.load.i32 %r1, %i8:9\n");
            }
        }
        String text = """
                vm.module @splitcalls version 0
                vm.type i32
                vm.type i64
                vm.type !vm.buffer

                vm.export @sum
                vm.func @sum(%i0: i32, %r0: !vm.buffer) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 1
                  %i2 = vm.const.i32.zero
                  %i3 = vm.const.i32 7
                  %i5 = vm.const.i32 3
                  %i8:9 = vm.const.i64 4
                  %r1 = vm.assign.ref %r0
                  vm.br ^bb1()
                ^bb1:
                """ + body + """
                  %i2 = vm.add.i32 %i2, %i1
                  %i4 = vm.cmp.lt.i32.s %i2, %i0
                  vm.cond_br %i4, ^bb1(), ^bb2()
                ^bb2:
                  vm.discard.refs %r1
                  vm.discard.refs %r0
                  vm.return %i3
                }
                """;
        ModuleDef def = new Assembler(VmasmFixture.EXTENSIONS).assemble(text, "splitcalls.vmasm");
        Instance instance = new Instance();
        BytecodeModule interpreted = BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS);
        BytecodeModule compiled = BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS,
                BytecodeModule.Options.DEFAULT.withExecution(ExecutionMode.EAGER), 600);
        assertTrue(Compiler.generate(compiled).methods()[0] > 2, "sum is split");
        VmBuffer buffer = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST, 64, 16);
        try (Context ci = Context.create(instance, interpreted); Context cc = Context.create(instance, compiled)) {
            int counts = buffer.refCount();
            int expected = sum(ci, interpreted, buffer, 9);
            assertEquals(counts, buffer.refCount(), "the interpreter leaves the counts as they were");
            for (int i = 0; i < 2_000; i++) {
                assertEquals(expected, sum(cc, compiled, buffer, 9));
            }
            long before = InterpreterAllocationTest.allocatedBytes();
            for (int i = 0; i < 10_000; i++) {
                sum(cc, compiled, buffer, 9);
            }
            long allocated = InterpreterAllocationTest.allocatedBytes() - before;
            assertTrue(allocated < 16 * 1024, allocated + " bytes allocated by 10,000 calls");
            assertEquals(counts, buffer.refCount(), "ref counts as before the calls");
        } finally {
            buffer.release();
        }
    }

    /** Calls {@code sum(n, buffer)} through a reused external frame, as a VMVX worker calls a kernel. */
    private static int sum(Context context, BytecodeModule module, VmBuffer buffer, int n) {
        Stack stack = SUM_STACKS.computeIfAbsent(context, Stack::new);
        Frame base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        Call call = base.outgoing().prepare(SUM_FUNCTIONS.computeIfAbsent(module, m -> m.lookupExport("sum")));
        call.arguments().setI32(0, n);
        call.arguments().setRef(0, buffer);
        module.beginCall(stack, call);
        int result = call.results().i32(0);
        call.arguments().reset(0, 0);
        stack.leave(base);
        return result;
    }

    private static final Map<Context, Stack> SUM_STACKS = new java.util.IdentityHashMap<>();
    private static final Map<BytecodeModule, dev.ortho.vm.Function> SUM_FUNCTIONS = new java.util.IdentityHashMap<>();

    /**
     * The split limit belongs to a module: a module split small leaves every other module at its
     * own limit. Before, one static limit served every module, and a test class run before another
     * (VmasmFixture's initializer lowering it for the split Surefire run, a test lowering it for
     * its own modules) changed what the later one compiled.
     */
    @Test
    void aModulesSplitLimitIsItsOwn() {
        String text = RandomModules.generate(RandomModules.Choices.of(new SplittableRandom(0x11317)), 0);
        ModuleDef def = new Assembler(RandomModules.EXTENSIONS).assemble(text, "own.vmasm");
        int[] before = Compiler.generate(BytecodeModule.create(new Instance(), def, RandomModules.EXTENSIONS))
                .methods();
        int[] small = Compiler.generate(BytecodeModule.create(new Instance(), def, RandomModules.EXTENSIONS,
                BytecodeModule.Options.DEFAULT, 600)).methods();
        int[] after = Compiler.generate(BytecodeModule.create(new Instance(), def, RandomModules.EXTENSIONS))
                .methods();
        assertTrue(java.util.Arrays.stream(small).sum() > java.util.Arrays.stream(before).sum(),
                "split at 600 bytes: " + java.util.Arrays.toString(small) + " vs " + java.util.Arrays.toString(before));
        assertEquals(java.util.Arrays.toString(before), java.util.Arrays.toString(after));
    }

    @Test
    void randomModulesSplitIntoTinyMethodsBehaveAsInterpreted() {
        SplittableRandom random = new SplittableRandom(0x5B117);
        int split = 0;
        int exports = 0;
        for (int n = 0; n < 60; n++) {
            String text = RandomModules.generate(RandomModules.Choices.of(random), n);
            RandomModules.Run run = RandomModules.runBoth(text, "split" + n, 600);
            assertEquals(List.of(), run.notCompiled(), "every generated function compiles:\n" + text);
            for (RandomModules.Outcome o : run.outcomes()) {
                assertEquals(o.interpreted(), o.compiled(), "module " + n + " export " + o.export() + ":\n" + text);
                exports++;
            }
            ModuleDef def = new Assembler(RandomModules.EXTENSIONS).assemble(text, "split" + n + ".vmasm");
            for (int methods : Compiler.generate(BytecodeModule.create(new Instance(), def,
                    RandomModules.EXTENSIONS, BytecodeModule.Options.DEFAULT, 600)).methods()) {
                split += methods > 1 ? 1 : 0;
            }
        }
        System.out.println("split: " + split + " functions split, " + exports + " exports compared");
        assertTrue(split > 60, "most functions are split at this limit: " + split);
    }

    @Test
    void aBridgeOverTheLimitBecomesOneMethodPerFunctionInGroups() {
        StringBuilder src = new StringBuilder("vm.module @many version 0\nvm.type i32\nvm.type i64\n");
        for (int k = 0; k < 300; k++) {
            src.append("vm.export @e").append(k).append("\nvm.func @e").append(k)
                    .append("(%i0: i32, %i2:3: i64) -> (i32, i64) {\n^bb0:\n  %i1 = vm.const.i32 ").append(k)
                    .append("\n  %i0 = vm.add.i32 %i0, %i1\n  vm.return %i0, %i2:3\n}\n");
        }
        ModuleDef def = new Assembler(VmasmFixture.EXTENSIONS).assemble(src.toString(), "many.vmasm");
        Instance instance = new Instance();
        BytecodeModule compiled = BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS,
                BytecodeModule.Options.DEFAULT.withExecution(ExecutionMode.EAGER));
        Map<String, Integer> sizes = GeneratedMethodSizeTest.methodSizes(compiled);
        assertTrue(sizes.keySet().stream().anyMatch(n -> n.startsWith("call1(")), "two bridge groups: " + sizes.keySet());
        sizes.forEach((method, size) -> assertTrue(size < MethodSplitter.C1_METHOD_LIMIT, method + ": " + size));
        try (Context context = Context.create(instance, compiled)) {
            for (int k : new int[] {0, 17, 255, 256, 299}) {
                VmList in = VmList.ofVariants(2);
                in.pushI32(5);
                in.pushI64(1L << 40);
                VmList out = VmList.ofVariants(2);
                Invocation.invoke(context, compiled.lookupExport("e" + k), in, out);
                assertEquals(5 + k, out.getI32(0), "e" + k);
                assertEquals(1L << 40, out.getI64(1), "e" + k);
            }
        }
    }

    @Test
    void refsOfASplitFunctionAreCountedAsInTheInterpreter() {
        String src = """
                vm.module @m version 0
                vm.type i32
                vm.type !vm.buffer
                vm.export @hold
                vm.func @hold(%r0: !vm.buffer, %i0: i32) -> (i32) {
                ^bb0:
                  %r1 = vm.assign.ref %r0
                  %i1 = vm.cmp.eq.ref %r0, %r1
                  %i2 = vm.const.i32 1
                """ + "      %i1 = vm.add.i32 %i1, %i2\n".repeat(40) + """
                  %i1 = vm.div.i32.s %i1, %i0
                  vm.return %i1
                }
                """;
        ModuleDef def = new Assembler(VmasmFixture.EXTENSIONS).assemble(src, "m.vmasm");
        int whole = GeneratedMethodSizeTest.methodSizes(BytecodeModule.create(new Instance(), def,
                VmasmFixture.EXTENSIONS)).get("f0(Ldev/ortho/vm/bytecode/CompiledSupport$Env;Ldev/ortho/vm/RefObject;I)I");
        int limit = whole * 3 / 5;
        for (int divisor : new int[] {1, 0}) {
            int[] counts = new int[2];
            String[] outcomes = new String[2];
            for (ExecutionMode mode : List.of(ExecutionMode.OFF, ExecutionMode.EAGER)) {
                Instance instance = new Instance();
                BytecodeModule module = BytecodeModule.create(instance, def, VmasmFixture.EXTENSIONS,
                        BytecodeModule.Options.DEFAULT.withExecution(mode), limit);
                if (mode == ExecutionMode.EAGER) {
                    assertNull(module.compilationReport().get(0));
                    assertTrue(Compiler.generate(module).methods()[0] > 2, "hold is split");
                }
                VmBuffer buffer = VmBuffer.allocate(VmBuffer.ACCESS_MUTABLE, 16, 16);
                int k = mode == ExecutionMode.OFF ? 0 : 1;
                try (Context context = Context.create(instance, module)) {
                    VmList in = VmList.ofVariants(2);
                    in.pushRefRetain(buffer);
                    in.pushI32(divisor);
                    VmList out = VmList.ofVariants(1);
                    try {
                        Invocation.invoke(context, module.lookupExport("hold"), in, out);
                        outcomes[k] = "ok " + out.getI32(0);
                    } catch (StatusException e) {
                        outcomes[k] = "status " + e;
                    }
                    counts[k] = ((AbstractRefObject) buffer).refCount();
                }
            }
            assertEquals(outcomes[0], outcomes[1], "divisor " + divisor);
            assertEquals(counts[0], counts[1], "ref count after the call, divisor " + divisor);
        }
    }
}
