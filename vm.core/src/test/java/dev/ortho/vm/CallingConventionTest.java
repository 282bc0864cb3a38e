package dev.ortho.vm;

import static dev.ortho.vm.Assertions2.assertStatus;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CallingConventionTest {
    @ParameterizedTest
    @CsvSource({
        "'', '', ''",
        "0, '', ''",
        "0v, '', ''",
        "0ri, ri, ''",
        "0_ir, '', ir",
        "0v_ir, '', ir",
        "0iCiD_rr, iCiD, rr",
        "0iIfF_v, iIfF, ''",
    })
    void splitsIntoFragmentsLikeIree(String cconv, String args, String results) {
        CallingConvention cc = CallingConvention.parse(cconv);
        assertEquals(args, cc.arguments().types());
        assertEquals(results, cc.results().types());
    }

    @Test
    void countsFixedValuesAndSlotsPerBank() {
        CallingConvention cc = CallingConvention.parse("0irIf_rFi");
        assertEquals(4, cc.arguments().valueCount());
        assertEquals(3, cc.arguments().primitiveSlots());
        assertEquals(1, cc.arguments().refSlots());
        assertEquals(2, cc.results().primitiveSlots());
        assertEquals(1, cc.results().refSlots());
        assertFalse(cc.isVariadic());
    }

    @Test
    void variadicSpansCountSlotsPerTuple() {
        CallingConvention cc = CallingConvention.parse("0iCirDCiD_r");
        assertTrue(cc.isVariadic());
        assertTrue(cc.arguments().isVariadic());
        assertFalse(cc.results().isVariadic());
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> cc.arguments().valueCount());
        long slots = cc.arguments().slotsFor(2, 3);
        assertEquals(1 + 1 + 2 + 1 + 3, (int) slots, "i + count + 2 tuples' i + count + 3 i");
        assertEquals(2, (int) (slots >>> 32), "one ref per tuple of the first span");
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> cc.arguments().slotsFor(1));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> cc.arguments().slotsFor(1, -1));
    }

    @ParameterizedTest
    @CsvSource({
        "0rIrrrICrIID_v, 0",
        "0rIrrrICrIID_v, 3",
        "0rIIiiCID_r, 4",
        "0rCrD_v, 1",
        "0CiD_v, 7",
    })
    void oneSpanCountGivesTheSlotsOfTheGeneralForm(String cconv, int count) {
        CallingConvention.Fragment args = CallingConvention.parse(cconv).arguments();
        int[] counts = {count};
        assertEquals(args.slotsFor(counts), args.slotsFor(count));
    }

    @Test
    void oneSpanCountFailsAsTheGeneralFormDoes() {
        CallingConvention.Fragment twoSpans = CallingConvention.parse("0iCirDCiD_r").arguments();
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> twoSpans.slotsFor(1));
        CallingConvention.Fragment oneSpan = CallingConvention.parse("0rCrD_v").arguments();
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> oneSpan.slotsFor(-1));
        CallingConvention.Fragment fixed = CallingConvention.parse("0ri_v").arguments();
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> fixed.slotsFor(0));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> oneSpan.slotsFor(Integer.MAX_VALUE));
        assertEquals(1 | 1L << 32, fixed.slotsFor(new int[0]));
    }

    @Test
    void unsupportedVersionOrTypeIsUnimplemented() {
        assertStatus(StatusCode.UNIMPLEMENTED, () -> CallingConvention.parse("1i"));
        assertStatus(StatusCode.UNIMPLEMENTED, () -> CallingConvention.parse("0x"));
        assertStatus(StatusCode.UNIMPLEMENTED, () -> CallingConvention.parse("0i_q"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"0i_i_i", "0iv", "0CiCiDD", "0Ci", "0iD", "0CD", "0_vi"})
    void malformedStructureIsInvalidArgument(String cconv) {
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> CallingConvention.parse(cconv));
    }

    @Test
    void matchingIgnoresSpellingOfVoid() {
        assertTrue(CallingConvention.parse("0").matches(CallingConvention.parse("0v_v")));
        assertTrue(CallingConvention.parse("0i").matches(CallingConvention.parse("0i_v")));
        assertFalse(CallingConvention.parse("0i_i").matches(CallingConvention.parse("0I_i")));
    }

    @Test
    void callBufferChecksSlotsAndPacksValues() {
        CallBuffer b = new CallBuffer();
        b.reset(CallingConvention.parse("0iIfFr").arguments());
        b.setI32(0, -5);
        b.setI64(1, 1L << 40);
        b.setF32(2, 1.25f);
        b.setF64(3, -0.5);
        TestRef a = TestRef.a(1);
        b.setRef(0, a);
        assertEquals(-5, b.i32(0));
        assertEquals(1L << 40, b.i64(1));
        assertEquals(1.25f, b.f32(2));
        assertEquals(-0.5, b.f64(3));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> b.ref(0, TestRef.TYPE_B));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.i32(4));
        assertStatus(StatusCode.OUT_OF_RANGE, () -> b.ref(1));
        b.reset(1, 0);
        assertEquals(0, b.i32(0), "reset zeroes");
    }
}
