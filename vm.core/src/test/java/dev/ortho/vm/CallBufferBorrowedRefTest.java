package dev.ortho.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/**
 * Borrowed argument refs ({@link CallBuffer#setBorrowedRef}): what the interpreter passes for an
 * import argument register it does not move. The buffer holds no count for them, so releasing the
 * arguments after the call leaves the caller's counts alone, and a callee that takes one gets a
 * count of its own; owned refs in the same buffer are released as before.
 */
class CallBufferBorrowedRefTest {
    @Test
    void releaseRefsReleasesOwnedRefsOnly() {
        TestRef borrowed = TestRef.a(1);
        TestRef owned = TestRef.a(2);
        CallBuffer b = new CallBuffer();
        b.resize(0, 2);
        b.setBorrowedRef(0, borrowed);
        b.setRef(1, owned);
        b.releaseRefs();
        assertEquals(1, borrowed.refCount(), "a borrowed ref is not released");
        assertEquals(0, borrowed.destroyed);
        assertEquals(1, owned.destroyed, "an owned ref is");
        assertNull(b.ref(0));
    }

    @Test
    void takingABorrowedRefRetainsItForTheTaker() {
        TestRef r = TestRef.a(1);
        CallBuffer b = new CallBuffer();
        b.reset(0, 1);
        b.setBorrowedRef(0, r);
        assertSame(r, b.takeRef(0));
        assertEquals(2, r.refCount(), "the taker owns a count of its own");
        b.releaseRefs();
        assertEquals(2, r.refCount());
    }

    @Test
    void overwritingOrResizingForgetsTheBorrowedMark() {
        TestRef borrowed = TestRef.a(1);
        TestRef owned = TestRef.a(2);
        CallBuffer b = new CallBuffer();
        b.reset(0, 1);
        b.setBorrowedRef(0, borrowed);
        b.setRef(0, owned); // now an owned ref
        b.releaseRefs();
        assertEquals(1, owned.destroyed);
        b.setBorrowedRef(0, borrowed);
        b.resize(0, 1);
        TestRef second = TestRef.a(3);
        b.setRef(0, second);
        b.releaseRefs();
        assertEquals(1, second.destroyed, "resize cleared the mark with the slot");
        assertEquals(1, borrowed.refCount());
    }

    @Test
    void slotsBeyondSixtyThreeRetainWhatTheyBorrow() {
        TestRef r = TestRef.a(1);
        CallBuffer b = new CallBuffer();
        b.reset(0, 70);
        b.setBorrowedRef(65, r);
        assertEquals(2, r.refCount());
        b.releaseRefs();
        assertEquals(1, r.refCount());
        assertEquals(0, r.destroyed);
    }
}
