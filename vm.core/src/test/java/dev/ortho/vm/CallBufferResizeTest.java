package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.ortho.base.StatusCode;
import org.junit.jupiter.api.Test;

/**
 * {@link CallBuffer#resize} and {@link Call#prepareToFill}: the sizing the interpreter uses for
 * import arguments it then writes slot by slot, so that each import call does not zero slots it
 * overwrites anyway; refs are still cleared, results still reset.
 */
class CallBufferResizeTest {
    @Test
    void resizeKeepsPrimitivesAndClearsRefsWithoutReleasing() {
        CallBuffer b = new CallBuffer();
        b.reset(3, 2);
        b.setI64(2, 42);
        TestRef r = TestRef.a(1);
        b.setRef(1, r);
        b.resize(3, 2);
        assertEquals(3, b.primitiveCount());
        assertEquals(2, b.refCount());
        assertEquals(42, b.i64(2), "resize does not zero primitive slots");
        assertNull(b.ref(1));
        assertEquals(1, r.refCount(), "cleared, not released");
        assertEquals(0, r.destroyed);
        b.reset(3, 2);
        assertEquals(0, b.i64(2), "reset still zeroes");
    }

    @Test
    void resetZeroesSlotsAShrinkingResizeLeftBehind() {
        CallBuffer b = new CallBuffer();
        b.resize(3, 0);
        b.setBits(2, 99);
        b.resize(1, 0); // slot 2 keeps its value, out of range now
        b.resize(1, 0);
        b.reset(3, 0);
        assertEquals(0, b.bits(2), "reset zeroes every slot a caller may have written");
        b.resize(3, 0);
        assertEquals(0, b.bits(2));
    }

    @Test
    void resizeGrowsAndChecksBounds() {
        CallBuffer b = new CallBuffer();
        b.resize(40, 9);
        b.setBits(39, 7);
        b.setRef(8, null);
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.bits(40));
        b.resize(1, 0);
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.bits(1));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.ref(0));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> b.resize(-1, 0));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> b.resize(0, -1));
    }

    @Test
    void prepareToFillSizesLikePrepareButLeavesArgumentPrimitives() {
        Function f = NativeModule.<Object>builder("m", 1)
                .export("f", "0irI_ir", (state, call) -> CallOutcome.COMPLETED).build().lookupExport("f");
        Call call = new Call();
        call.prepare(f);
        call.arguments().setI32(0, 5);
        call.arguments().setI64(1, 6);
        call.results().setI32(0, 9);
        call.prepareToFill(f);
        assertEquals(2, call.arguments().primitiveCount());
        assertEquals(1, call.arguments().refCount());
        assertEquals(6, call.arguments().i64(1), "argument primitives are the caller's to overwrite");
        assertEquals(0, call.results().i32(0), "results are reset as by prepare");
        assertEquals(1, call.results().refCount());
        call.prepare(f);
        assertEquals(0, call.arguments().i64(1), "prepare still zeroes");
    }
}
