package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.vm.Call;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.Stack;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The dispatch loop and calls (internal and native imports) allocate nothing per instruction or
 * per call: a million loop iterations and ten thousand calls, after warm-up, allocate (almost)
 * nothing on the calling thread. Counts bytes, not time.
 */
class InterpreterAllocationTest {
    static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean())
                .getThreadAllocatedBytes(Thread.currentThread().threadId());
    }

    @Test
    void loopsAndCallsDoNotAllocate() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean,
                "thread allocation counters unavailable: skipped");
        NativeModule<Void> host = NativeModule.<Void>builder("host", 1)
                .export("inc", "0i_i", (s, call) -> {
                    call.results().setI32(0, call.args().i32(0) + 1);
                    return dev.ortho.vm.CallOutcome.COMPLETED;
                })
                .build();
        try (VmasmFixture vm = new VmasmFixture(VmasmFixture.module("""
                vm.import @host.inc cconv "0i_i"
                vm.export @count
                vm.func @count(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 1
                  %i2 = vm.const.i32.zero
                  vm.br ^bb1()
                ^bb1:
                  %i2 = vm.add.i32 %i2, %i1
                  %i3 = vm.cmp.lt.i32.s %i2, %i0
                  vm.cond_br %i3, ^bb1(), ^bb2()
                ^bb2:
                  vm.return %i2
                }
                vm.func @id(%i0: i32) -> (i32) {
                ^bb0:
                  vm.return %i0
                }
                vm.export @calls
                vm.func @calls(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32.zero
                  vm.br ^bb1()
                ^bb1:
                  %i1 = vm.call @id(%i1)
                  %i1 = vm.call @host.inc(%i1)
                  %i3 = vm.cmp.lt.i32.s %i1, %i0
                  vm.cond_br %i3, ^bb1(), ^bb2()
                ^bb2:
                  vm.return %i1
                }
                """), host)) {
            Stack stack = new Stack(vm.context);
            Frame base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
            Function count = vm.context.resolveFunction("t.count");
            Function calls = vm.context.resolveFunction("t.calls");
            for (int i = 0; i < 20; i++) {
                assertEquals(100_000, run(stack, base, count, 100_000));
                assertEquals(10_000, run(stack, base, calls, 10_000));
            }
            long before = allocatedBytes();
            assertEquals(1_000_000, run(stack, base, count, 1_000_000));
            assertEquals(10_000, run(stack, base, calls, 10_000));
            long allocated = allocatedBytes() - before;
            // One byte per instruction would be > 3 MB; allow only incidental noise.
            assertTrue(allocated < 16 * 1024, allocated + " bytes allocated");
            stack.leave(base);
        }
    }

    static int run(Stack stack, Frame base, Function f, int n) {
        Call call = base.outgoing().prepare(f);
        call.arguments().setI32(0, n);
        f.module().beginCall(stack, call);
        return call.results().i32(0);
    }
}
