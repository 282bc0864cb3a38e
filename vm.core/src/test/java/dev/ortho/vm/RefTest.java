package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import org.junit.jupiter.api.Test;

class RefTest {
    @Test
    void lastReleaseDestroysExactlyOnce() {
        TestRef r = TestRef.a(1);
        r.retain();
        assertEquals(2, r.refCount());
        r.release();
        assertEquals(0, r.destroyed);
        r.release();
        assertEquals(1, r.destroyed);
        assertStatus(StatusCode.FAILED_PRECONDITION, r::release);
        assertStatus(StatusCode.FAILED_PRECONDITION, r::retain);
        assertEquals(1, r.destroyed);
    }

    @Test
    void staticHelpersAcceptNull() {
        assertNull(RefObject.retain(null));
        RefObject.release(null);
    }

    @Test
    void typeCheckAcceptsNullSameTypeAndAnyOnly() {
        TestRef a = TestRef.a(1);
        assertTrue(TestRef.TYPE_A.accepts(null));
        assertTrue(TestRef.TYPE_A.accepts(a));
        assertTrue(RefType.ANY.accepts(a));
        assertFalse(TestRef.TYPE_B.accepts(a));
        assertSame(a, TestRef.TYPE_A.check(a));
        var e = assertStatus(StatusCode.INVALID_ARGUMENT, () -> TestRef.TYPE_B.check(a));
        assertTrue(e.getMessage().contains("test.b") && e.getMessage().contains("test.a"), e.getMessage());
    }

    @Test
    void typesAreEqualByName() {
        assertEquals(RefType.of("x.y", TestRef.class), RefType.of("x.y", TestRef.class));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> RefType.of("?", TestRef.class));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> RefType.of("a b", TestRef.class));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> RefType.of("", TestRef.class));
    }

    @Test
    void instanceRegistersBuiltinsAndCountsRegistrations() {
        Instance instance = new Instance();
        assertSame(RefType.VM_BUFFER, instance.lookupType("vm.buffer"));
        assertSame(RefType.VM_LIST, instance.lookupType("vm.list"));
        assertSame(RefType.ANY, instance.lookupType("?"));
        assertNull(instance.lookupType("test.a"));
        instance.registerType(TestRef.TYPE_A);
        instance.registerType(TestRef.TYPE_A);
        instance.unregisterType(TestRef.TYPE_A);
        assertSame(TestRef.TYPE_A, instance.lookupType("test.a"));
        instance.unregisterType(TestRef.TYPE_A);
        assertNull(instance.lookupType("test.a"));
        assertStatus(StatusCode.NOT_FOUND, () -> instance.unregisterType(TestRef.TYPE_A));
    }

    @Test
    void conflictingRegistrationIsAlreadyExists() {
        Instance instance = new Instance();
        assertStatus(StatusCode.ALREADY_EXISTS,
                () -> instance.registerType(RefType.of("vm.buffer", TestRef.class)));
    }

    @Test
    void unknownTypeResolvesToPlaceholderOnlyWhenAllowed() {
        Instance instance = new Instance();
        RefType p = instance.resolveType("hal.buffer", true);
        assertTrue(p.isPlaceholder());
        assertEquals("hal.buffer", p.name());
        assertFalse(p.accepts(TestRef.a(0)));
        assertTrue(p.accepts(null));
        assertStatus(StatusCode.NOT_FOUND, () -> instance.resolveType("hal.buffer", false));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> instance.registerType(p));
    }

    @Test
    void valueConversionFollowsIreeRules() {
        assertEquals(-1, ValueType.convert(0xFFFF, ValueType.I32, ValueType.I16));
        assertEquals(-128, ValueType.convert(-128, ValueType.I8, ValueType.I64));
        assertEquals(0x89ABCDEF, (int) ValueType.convert(0x1234567_89ABCDEFL, ValueType.I64, ValueType.I32));
        assertEquals(0, ValueType.convert(5, ValueType.I32, ValueType.F32));
        assertEquals(0, ValueType.convert(Double.doubleToRawLongBits(2.5), ValueType.F64, ValueType.I32));
        assertEquals(2.5, Variant.f32(2.5f).asF64());
        assertEquals(1.5f, Variant.f64(1.5).asF32());
        assertEquals(0, Variant.f32(7f).asI32());
        assertEquals(-2, Variant.i8(0xFE).asI64());
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> ValueType.fromValue(9));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> Variant.ofBits(ValueType.NONE, 0));
    }

    @Test
    void variantKindsAreDistinct() {
        assertTrue(Variant.empty().isEmpty());
        assertTrue(Variant.i32(3).isValue());
        assertTrue(Variant.ref(null).isRef());
        assertFalse(Variant.ref(null).isEmpty());
        TestRef a = TestRef.a(1);
        assertSame(TestRef.TYPE_A, Variant.ref(a).refType());
        assertEquals(Variant.i32(3), Variant.i32(3));
        assertEquals("i32=3", Variant.i32(3).toString());
    }
}
