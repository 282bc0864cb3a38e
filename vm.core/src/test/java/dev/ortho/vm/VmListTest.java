package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import org.junit.jupiter.api.Test;

class VmListTest {
    @Test
    void i32ListStoresAndConvertsValues() {
        VmList list = VmList.ofValues(ValueType.I32, 4);
        assertTrue(list.capacity() >= 4);
        list.resize(5);
        for (int i = 0; i < 5; i++) {
            list.setI32(i, i * 10);
        }
        assertEquals(40, list.getI32(4));
        assertEquals(40L, list.getI64(4));
        assertEquals(0f, list.getF32(4), "integer to float conversion yields zero as in IREE");
        list.setI64(0, 0x1_0000_0005L);
        assertEquals(5, list.getI32(0), "i64 stored into an i32 list is truncated");
        assertEquals(Variant.i32(5), list.getValue(0));
    }

    @Test
    void outOfRangeIndexIsOutOfRangeNamingIndexAndSize() {
        VmList list = VmList.ofValues(ValueType.I32, 0);
        list.resize(3);
        var e = assertStatus(StatusCode.OUT_OF_RANGE, () -> list.getI32(7));
        assertEquals("list index 7 out of range [0, 3)", e.baseMessage());
        assertStatus(StatusCode.OUT_OF_RANGE, () -> list.setI32(-1, 0));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> list.getRef(3));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> list.getVariant(3));
    }

    @Test
    void wrongStorageKindIsFailedPrecondition() {
        VmList values = VmList.ofValues(ValueType.F32, 1);
        values.resize(1);
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> values.getRef(0));
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> values.setRefRetain(0, null));
        VmList refs = VmList.ofRefs(RefType.ANY, 1);
        refs.resize(1);
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> refs.getI32(0));
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> refs.setI32(0, 1));
        VmList variants = VmList.ofVariants(1);
        variants.resize(2);
        variants.setI32(0, 1);
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> variants.getRef(0));
        assertStatus(StatusCode.FAILED_PRECONDITION, () -> variants.getI32(1), "empty variant is not a value");
        assertNull(variants.getRef(1), "empty variant reads as a null ref");
    }

    @Test
    void refListChecksTypesAndOwnsCounts() {
        VmList list = VmList.ofRefs(TestRef.TYPE_A, 0);
        TestRef a = TestRef.a(1);
        list.pushRefRetain(a);
        assertEquals(2, a.refCount());
        TestRef b = TestRef.b(2);
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> list.setRefRetain(0, b));
        assertEquals(2, a.refCount(), "a failed set leaves the list unchanged");
        assertEquals(1, b.refCount());
        assertSame(a, list.getRef(0));
        assertEquals(2, a.refCount(), "assign borrows");
        RefObject retained = list.getRefRetain(0);
        assertEquals(3, a.refCount());
        retained.release();
        list.setRefRetain(0, null);
        assertEquals(1, a.refCount(), "replacing releases the old ref");
        a.release();
        assertEquals(1, a.destroyed);
    }

    @Test
    void moveOutClearsTheSlot() {
        VmList list = VmList.ofRefs(TestRef.TYPE_A, 1);
        list.resize(1);
        TestRef a = TestRef.a(1);
        list.setRefMove(0, a);
        assertEquals(1, a.refCount(), "move takes over the caller's count");
        assertSame(a, list.getRefMove(0));
        assertNull(list.getRef(0));
        assertEquals(1, a.refCount());
    }

    @Test
    void variantRefMoveMarksSlotEmpty() {
        VmList list = VmList.ofVariants(1);
        list.resize(1);
        list.setRefMove(0, TestRef.a(1));
        assertTrue(list.getVariant(0).isRef());
        RefObject moved = list.getRefMove(0);
        moved.release();
        assertTrue(list.getVariant(0).isEmpty());
        list.setRefMove(0, TestRef.a(2));
        Variant v = list.getVariantMove(0);
        assertTrue(v.isRef());
        v.ref().release();
        assertTrue(list.getVariant(0).isEmpty());
    }

    @Test
    void wrongTypedDerefYieldsNull() {
        VmList list = VmList.ofVariants(2);
        TestRef a = TestRef.a(1);
        list.pushRefRetain(a);
        list.pushI32(4);
        assertSame(a, list.getRefAs(0, TestRef.TYPE_A));
        assertNull(list.getRefAs(0, TestRef.TYPE_B));
        assertNull(list.getRefAs(1, TestRef.TYPE_A));
        assertSame(a, list.getRefAs(0, RefType.ANY));
    }

    @Test
    void shrinkingAndClearingReleaseRefs() {
        VmList list = VmList.ofRefs(RefType.ANY, 0);
        TestRef a = TestRef.a(1);
        TestRef b = TestRef.b(2);
        list.pushRefMove(a);
        list.pushRefMove(b);
        list.resize(1);
        assertEquals(1, b.destroyed);
        list.resize(2);
        assertNull(list.getRef(1), "regrown slots are null");
        list.clear();
        assertEquals(1, a.destroyed);
        assertEquals(0, list.size());
    }

    @Test
    void releasingTheListReleasesElements() {
        VmList list = VmList.ofVariants(0);
        TestRef a = TestRef.a(1);
        list.pushRefMove(a);
        list.release();
        assertEquals(1, a.destroyed);
    }

    @Test
    void reserveGrowsAndIsIdempotent() {
        VmList list = VmList.ofVariants(0);
        list.reserve(100);
        int cap = list.capacity();
        assertTrue(cap >= 100);
        list.resize(1);
        assertEquals(cap, list.capacity());
        list.reserve(cap);
        assertEquals(cap, list.capacity());
    }

    @Test
    void hugeReserveIsOutOfRangeAndLeavesListUsable() {
        VmList list = VmList.ofValues(ValueType.I32, 4);
        assertStatus(StatusCode.OUT_OF_RANGE, () -> list.reserve(Integer.MAX_VALUE - 32));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> list.resize(Integer.MAX_VALUE));
        assertEquals(0, list.size());
        list.resize(10);
        assertEquals(10, list.size());
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> list.resize(-1));
    }

    @Test
    void newSlotsAreZeroed() {
        VmList list = VmList.ofValues(ValueType.I64, 0);
        list.pushI64(9);
        list.resize(0);
        list.resize(3);
        assertEquals(0, list.getI64(0));
        assertEquals(0, list.getI64(2));
    }

    @Test
    void popFrontMovesFirstRef() {
        VmList list = VmList.ofRefs(RefType.ANY, 0);
        assertStatus(StatusCode.OUT_OF_RANGE, list::popFrontRefMove);
        TestRef a = TestRef.a(1);
        TestRef b = TestRef.a(2);
        list.pushRefMove(a);
        list.pushRefMove(b);
        assertSame(a, list.popFrontRefMove());
        assertEquals(1, list.size());
        assertSame(b, list.getRef(0));
    }

    @Test
    void cloneRetainsRefsAndCopiesValues() {
        VmList refs = VmList.ofRefs(TestRef.TYPE_A, 0);
        TestRef a = TestRef.a(1);
        refs.pushRefMove(a);
        VmList copy = refs.cloneList();
        assertEquals(2, a.refCount());
        assertSame(TestRef.TYPE_A, copy.elementRefType());
        copy.release();
        assertEquals(1, a.refCount());

        VmList values = VmList.ofValues(ValueType.F64, 0);
        values.pushF64(1.5);
        VmList vcopy = values.cloneList();
        values.setF64(0, 3);
        assertEquals(1.5, vcopy.getF64(0));

        VmList variants = VmList.ofVariants(0);
        variants.pushI32(7);
        variants.pushRefRetain(a);
        VmList varCopy = variants.cloneList();
        assertEquals(7, varCopy.getI32(0));
        assertSame(a, varCopy.getRef(1));
        assertEquals(VmList.ofVariants(0).cloneList().size(), 0);
    }

    @Test
    void copyChecksRangesOverlapAndTypes() {
        VmList src = VmList.ofValues(ValueType.I32, 0);
        VmList dst = VmList.ofValues(ValueType.I32, 0);
        for (int i = 0; i < 4; i++) {
            src.pushI32(i);
            dst.pushI32(10 + i);
        }
        VmList.copy(src, 100, dst, 100, 0);
        VmList.copy(src, 1, dst, 0, 2);
        assertEquals(1, dst.getI32(0));
        assertEquals(2, dst.getI32(1));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> VmList.copy(src, 3, dst, 0, 2));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> VmList.copy(src, 0, dst, 3, 2));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.copy(src, 0, src, 1, 2));
        VmList.copy(src, 0, src, 2, 2);
        assertEquals(1, src.getI32(3));
        VmList f32 = VmList.ofValues(ValueType.F32, 0);
        f32.resize(4);
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.copy(src, 0, f32, 0, 1));
    }

    @Test
    void copyBetweenRefListsOfDifferentTypesFails() {
        VmList as = VmList.ofRefs(TestRef.TYPE_A, 0);
        VmList bs = VmList.ofRefs(TestRef.TYPE_B, 0);
        as.pushRefMove(TestRef.a(1));
        bs.pushRefMove(TestRef.b(2));
        VmList.copy(as, 0, bs, 0, 0);
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.copy(as, 0, bs, 0, 1));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.copy(bs, 0, as, 0, 1));
    }

    @Test
    void copyIntoVariantsAcceptsAnythingAndFromVariantsChecksEachElement() {
        VmList refs = VmList.ofRefs(TestRef.TYPE_A, 0);
        TestRef a = TestRef.a(1);
        refs.pushRefRetain(a);
        VmList variants = VmList.ofVariants(0);
        variants.resize(2);
        VmList.copy(refs, 0, variants, 1, 1);
        assertSame(a, variants.getRef(1));
        assertEquals(3, a.refCount());
        VmList.copy(variants, 1, refs, 0, 1);
        assertSame(a, refs.getRef(0));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.copy(variants, 0, refs, 0, 1),
                "empty variant does not match a typed destination");
        VmList ints = VmList.ofValues(ValueType.I32, 0);
        ints.resize(1);
        variants.setI64(0, 5);
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.copy(variants, 0, ints, 0, 1));
        variants.setI32(0, 5);
        VmList.copy(variants, 0, ints, 0, 1);
        assertEquals(5, ints.getI32(0));
    }

    @Test
    void variantSetOfEmptyIsUnimplemented() {
        VmList list = VmList.ofVariants(1);
        list.resize(1);
        assertStatus(StatusCode.UNIMPLEMENTED, () -> list.setVariantRetain(0, Variant.empty()));
        list.setVariantRetain(0, Variant.f32(2f));
        assertEquals(ValueType.F32, list.getVariant(0).valueType());
        assertEquals(2.0, list.getF64(0));
    }

    @Test
    void swapStorageExchangesContents() {
        VmList a = VmList.ofValues(ValueType.I32, 0);
        a.pushI32(1);
        VmList b = VmList.ofRefs(RefType.ANY, 0);
        a.swapStorage(b);
        assertEquals(VmList.StorageMode.REF, a.storageMode());
        assertEquals(0, a.size());
        assertEquals(1, b.getI32(0));
        a.swapStorage(a);
        assertEquals(VmList.StorageMode.REF, a.storageMode());
    }

    @Test
    void factoryRejectsBadArguments() {
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.ofValues(ValueType.NONE, 0));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> VmList.ofVariants(-1));
    }
}
