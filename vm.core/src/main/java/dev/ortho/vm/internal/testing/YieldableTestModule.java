package dev.ortho.vm.internal.testing;

import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.NativeModule;

/**
 * The native {@code yieldable_test} module that IREE's {@code async_ops} conformance suite imports
 * (semantics in {@code conformance/vm/README.md}):
 * <ul>
 *   <li>{@code yield_n(arg, n)}, cconv {@code 0ii_i}: yields {@code n} times, adding 1 to an
 *       accumulator starting at {@code arg} on each yield, then returns it ({@code arg + n});
 *   <li>{@code yield_variadic_sum(values..., n)}, cconv {@code 0CiDi_i}: like {@code yield_n}
 *       with the accumulator starting at the sum of {@code values}.
 * </ul>
 * Stateless; a negative {@code n} is treated as zero. Kept here so the conformance runner and
 * tools can register it before a module under test.
 */
public final class YieldableTestModule {
    private static final int ACC = 0;
    private static final int REMAINING = 1;

    private YieldableTestModule() {
    }

    /** Builds a new instance of the module (version 1). */
    public static NativeModule<Void> create() {
        return NativeModule.<Void>builder("yieldable_test", 1)
                .export("yield_n", "0ii_i", (state, call) -> {
                    if (!call.isResume()) {
                        call.locals()[ACC] = call.args().i32(0);
                        call.locals()[REMAINING] = call.args().i32(1);
                    }
                    return step(call);
                })
                .export("yield_variadic_sum", "0CiDi_i", (state, call) -> {
                    if (!call.isResume()) {
                        int count = call.args().i32(0);
                        int sum = 0;
                        for (int i = 0; i < count; i++) {
                            sum += call.args().i32(1 + i);
                        }
                        call.locals()[ACC] = sum;
                        call.locals()[REMAINING] = call.args().i32(1 + count);
                    }
                    return step(call);
                })
                .build();
    }

    private static CallOutcome step(NativeCall call) {
        int[] locals = call.locals();
        if (call.isResume()) {
            locals[ACC]++;
            locals[REMAINING]--;
        }
        if (locals[REMAINING] > 0) {
            return call.yieldNow();
        }
        call.results().setI32(0, locals[ACC]);
        return CallOutcome.COMPLETED;
    }
}
