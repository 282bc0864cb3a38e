package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every ExtF32 and ExtF64 arithmetic, compare and conversion op, with IREE's C numerics. */
class InterpreterFloatOpsTest {
    static final List<String> BINARY = List.of("add", "sub", "mul", "div", "rem", "min", "max", "atan2", "pow");
    static final List<String> UNARY = List.of("abs", "neg", "ceil", "floor", "round", "round.%s.even", "atan",
            "cos", "sin", "exp", "exp2", "expm1", "log", "log10", "log1p", "log2", "rsqrt", "sqrt", "tanh", "erf");
    static final List<String> CMP = List.of("cmp.eq.%s.o", "cmp.eq.%s.u", "cmp.ne.%s.o", "cmp.ne.%s.u",
            "cmp.lt.%s.o", "cmp.lt.%s.u", "cmp.lte.%s.o", "cmp.lte.%s.u");

    static VmasmFixture vm;

    static String op(String pattern, String t) {
        return pattern.contains("%s") ? String.format(pattern, t) : pattern + "." + t;
    }

    static String name(String op) {
        return op.replace('.', '_');
    }

    @BeforeAll
    static void load() {
        StringBuilder b = new StringBuilder();
        for (String t : List.of("f32", "f64")) {
            String a = t.equals("f32") ? "%i0" : "%i0:1";
            String c = t.equals("f32") ? "%i1" : "%i2:3";
            String r = t.equals("f32") ? "%i2" : "%i4:5";
            for (String p : BINARY) {
                String o = op(p, t);
                b.append(String.format("vm.export @%1$s%nvm.func @%1$s(%2$s: %5$s, %3$s: %5$s) -> (%5$s) {%n^bb0:%n"
                        + "  %4$s = vm.%6$s %2$s, %3$s%n  vm.return %4$s%n}%n", name(o), a, c, r, t, o));
            }
            for (String p : UNARY) {
                String o = op(p, t);
                b.append(String.format("vm.export @%1$s%nvm.func @%1$s(%2$s: %4$s) -> (%4$s) {%n^bb0:%n"
                        + "  %3$s = vm.%5$s %2$s%n  vm.return %3$s%n}%n", name(o), a, r, t, o));
            }
            for (String p : CMP) {
                String o = op(p, t);
                String res = t.equals("f32") ? "%i2" : "%i4";
                b.append(String.format("vm.export @%1$s%nvm.func @%1$s(%2$s: %5$s, %3$s: %5$s) -> (i32) {%n^bb0:%n"
                        + "  %4$s = vm.%6$s %2$s, %3$s%n  vm.return %4$s%n}%n", name(o), a, c, res, t, o));
            }
            String nan = "cmp.nan." + t;
            b.append(String.format("vm.export @%1$s%nvm.func @%1$s(%2$s: %3$s) -> (i32) {%n^bb0:%n"
                    + "  %%i4 = vm.%4$s %2$s%n  vm.return %%i4%n}%n", name(nan), a, t, nan));
        }
        b.append("""
                vm.export @fpowi_f32
                vm.func @fpowi_f32(%i0: f32, %i2:3: i64) -> (f32) {
                ^bb0:
                  %i1 = vm.fpowi.f32 %i0, %i2:3
                  vm.return %i1
                }
                vm.export @fpowi_f64
                vm.func @fpowi_f64(%i0:1: f64, %i2:3: i64) -> (f64) {
                ^bb0:
                  %i4:5 = vm.fpowi.f64 %i0:1, %i2:3
                  vm.return %i4:5
                }
                vm.export @fma_f32
                vm.func @fma_f32(%i0: f32, %i1: f32, %i2: f32) -> (f32) {
                ^bb0:
                  %i3 = vm.fma.f32 %i0, %i1, %i2
                  vm.return %i3
                }
                vm.export @fma_f64
                vm.func @fma_f64(%i0:1: f64, %i2:3: f64, %i4:5: f64) -> (f64) {
                ^bb0:
                  %i6:7 = vm.fma.f64 %i0:1, %i2:3, %i4:5
                  vm.return %i6:7
                }
                vm.export @f32_to_ints
                vm.func @f32_to_ints(%i0: f32) -> (i32, i32, i64, i64, i32) {
                ^bb0:
                  %i1 = vm.cast.f32.si32 %i0
                  %i2 = vm.cast.f32.ui32 %i0
                  %i4:5 = vm.cast.f32.si64 %i0
                  %i6:7 = vm.cast.f32.ui64 %i0
                  %i8 = vm.bitcast.f32.i32 %i0
                  vm.return %i1, %i2, %i4:5, %i6:7, %i8
                }
                vm.export @ints_to_f32
                vm.func @ints_to_f32(%i0:1: i64, %i2: i32) -> (f32, f32, f32, f32, f32) {
                ^bb0:
                  %i3 = vm.cast.si32.f32 %i2
                  %i4 = vm.cast.ui32.f32 %i2
                  %i5 = vm.cast.si64.f32 %i0:1
                  %i6 = vm.cast.ui64.f32 %i0:1
                  %i7 = vm.bitcast.i32.f32 %i2
                  vm.return %i3, %i4, %i5, %i6, %i7
                }
                vm.export @f64_to_ints
                vm.func @f64_to_ints(%i0:1: f64) -> (i32, i32, i64, i64, i64) {
                ^bb0:
                  %i2 = vm.cast.f64.si32 %i0:1
                  %i3 = vm.cast.f64.ui32 %i0:1
                  %i4:5 = vm.cast.f64.si64 %i0:1
                  %i6:7 = vm.cast.f64.ui64 %i0:1
                  %i8:9 = vm.bitcast.f64.i64 %i0:1
                  vm.return %i2, %i3, %i4:5, %i6:7, %i8:9
                }
                vm.export @ints_to_f64
                vm.func @ints_to_f64(%i0:1: i64, %i2: i32) -> (f64, f64, f64, f64, f64) {
                ^bb0:
                  %i4:5 = vm.cast.si32.f64 %i2
                  %i6:7 = vm.cast.ui32.f64 %i2
                  %i8:9 = vm.cast.si64.f64 %i0:1
                  %i10:11 = vm.cast.ui64.f64 %i0:1
                  %i12:13 = vm.bitcast.i64.f64 %i0:1
                  vm.return %i4:5, %i6:7, %i8:9, %i10:11, %i12:13
                }
                vm.export @trunc_ext
                vm.func @trunc_ext(%i0:1: f64) -> (f32, f64) {
                ^bb0:
                  %i2 = vm.trunc.f64.f32 %i0:1
                  %i4:5 = vm.ext.f32.f64 %i2
                  vm.return %i2, %i4:5
                }
                vm.export @consts_select_switch
                vm.func @consts_select_switch(%i0: i32) -> (f32, f64, f32, f64) {
                ^bb0:
                  %i1 = vm.const.f32 1.5
                  %i2 = vm.const.f32.zero
                  %i4:5 = vm.const.f64 -2.25
                  %i6:7 = vm.const.f64.zero
                  %i8 = vm.select.f32 %i0 ? %i1 : %i2
                  %i10:11 = vm.select.f64 %i0 ? %i4:5 : %i6:7
                  %i9 = vm.switch.f32 %i0[%i2, %i1] else %i1
                  %i12:13 = vm.switch.f64 %i0[%i6:7, %i4:5] else %i6:7
                  vm.return %i8, %i10:11, %i9, %i12:13
                }
                """);
        vm = new VmasmFixture(VmasmFixture.module(b.toString()));
    }

    @AfterAll
    static void close() {
        vm.close();
    }

    static float f(String op, float... a) {
        Object[] boxed = new Object[a.length];
        for (int i = 0; i < a.length; i++) {
            boxed[i] = a[i];
        }
        return vm.call(name(op), boxed).getF32(0);
    }

    static double d(String op, double... a) {
        Object[] boxed = new Object[a.length];
        for (int i = 0; i < a.length; i++) {
            boxed[i] = a[i];
        }
        return vm.call(name(op), boxed).getF64(0);
    }

    static int cmp(String op, double l, double r, boolean f32) {
        return f32 ? vm.call(name(op), (float) l, (float) r).getI32(0) : vm.call(name(op), l, r).getI32(0);
    }

    @Test
    void fpowiRaisesToTheTruncatedI32ExponentByBinaryExponentiation() {
        // iree-compile 3.12 lowers integer-exponent Pow to vm.fpowi (ExtF32 0x3E, ExtF64 0x40).
        assertEquals(9f, vm.call("fpowi_f32", 3f, 2L).getF32(0));
        assertEquals(1f, vm.call("fpowi_f32", Float.NaN, 0L).getF32(0));
        assertEquals(0.125f, vm.call("fpowi_f32", 2f, -3L).getF32(0));
        assertEquals(-27d, vm.call("fpowi_f64", -3d, 3L).getF64(0));
        // The builtin's exponent is a C int: 2^32 + 2 raises to the 2nd power.
        assertEquals(25d, vm.call("fpowi_f64", 5d, (1L << 32) + 2).getF64(0));
        // Binary exponentiation rounds differently from pow(): 1.1f^7 = x * x^2 * x^4 in f32.
        float x = 1.1f;
        float x2 = x * x;
        float x4 = x2 * x2;
        assertEquals(Float.floatToRawIntBits(x * x2 * x4),
                Float.floatToRawIntBits(vm.call("fpowi_f32", x, 7L).getF32(0)));
    }

    @Test
    void arithmeticAndIeeeRemainder() {
        assertEquals(3.5f, f("add.f32", 1.25f, 2.25f));
        assertEquals(-1f, f("sub.f32", 1.25f, 2.25f));
        assertEquals(6f, f("mul.f32", 2f, 3f));
        assertEquals(Float.POSITIVE_INFINITY, f("div.f32", 1f, 0f));
        assertEquals(-1f, f("rem.f32", 5f, 3f)); // remainder(), not fmod(): 5 - 2*3
        assertEquals(1f, f("rem.f32", 7f, 3f));
        assertEquals(-1.0, d("rem.f64", 5.0, 3.0));
        assertEquals(0.5, d("rem.f64", 2.5, 2.0) + 0.0);
        assertEquals(7f, f("fma.f32", 2f, 3f, 1f));
        assertEquals(7.0, d("fma.f64", 2.0, 3.0, 1.0));
        assertEquals(1e16, d("add.f64", 1e16, 0.5));
    }

    @Test
    void minMaxKeepIreeOperandOrderForNaN() {
        assertEquals(1f, f("min.f32", 1f, 2f));
        assertEquals(2f, f("max.f32", 1f, 2f));
        // min(l, r) = r < l ? r : l, so a NaN on the left survives and one on the right does not.
        assertEquals(Float.NaN, f("min.f32", Float.NaN, 1f));
        assertEquals(1f, f("min.f32", 1f, Float.NaN));
        assertEquals(Double.NaN, d("max.f64", Double.NaN, 1.0));
        assertEquals(1.0, d("max.f64", 1.0, Double.NaN));
        assertEquals(-0.0f, f("min.f32", -0.0f, 0.0f));
        assertEquals(0.0f, f("min.f32", 0.0f, -0.0f));
    }

    @Test
    void roundingFunctions() {
        assertEquals(3f, f("round.f32", 2.5f));
        assertEquals(-3f, f("round.f32", -2.5f));
        assertEquals(2f, f("round.f32.even", 2.5f));
        assertEquals(-4f, f("round.f32.even", -3.5f));
        assertEquals(3.0, d("round.f64", 2.5));
        assertEquals(0.0, d("round.f64", 0.49999999999999994));
        assertEquals(2.0, d("round.f64.even", 2.5));
        assertEquals(-2f, f("ceil.f32", -2.5f));
        assertEquals(-3.0, d("floor.f64", -2.5));
        assertEquals(2.5f, f("abs.f32", -2.5f));
        assertEquals(-2.5, d("neg.f64", 2.5));
    }

    @Test
    void transcendentalFunctions() {
        assertEquals((float) Math.atan(1.0), f("atan.f32", 1f));
        assertEquals(Math.atan2(1.0, -1.0), d("atan2.f64", 1.0, -1.0));
        assertEquals(1.0, d("cos.f64", 0.0));
        assertEquals(0f, f("sin.f32", 0f));
        assertEquals((float) Math.E, f("exp.f32", 1f));
        assertEquals(8.0, d("exp2.f64", 3.0));
        assertEquals(0.0, d("expm1.f64", 0.0));
        assertEquals(0.0, d("log.f64", 1.0));
        assertEquals(3f, f("log10.f32", 1000f));
        assertEquals(0.0, d("log1p.f64", 0.0));
        assertEquals(10f, f("log2.f32", 1024f));
        assertEquals(3.321928094887362, d("log2.f64", 10.0));
        assertEquals(0.5f, f("rsqrt.f32", 4f));
        assertEquals(3.0, d("sqrt.f64", 9.0));
        assertEquals(0f, f("tanh.f32", 0f));
        assertEquals(81f, f("pow.f32", 3f, 4f));
    }

    @Test
    void erfMatchesReferenceValues() {
        assertEquals(0.0, d("erf.f64", 0.0));
        assertEquals(0.8427007929497149, d("erf.f64", 1.0), 2e-16);
        assertEquals(-0.9953222650189527, d("erf.f64", -2.0), 2e-16);
        assertEquals(0.5204998778130465, d("erf.f64", 0.5), 2e-16);
        assertEquals(0.9999779095030014, d("erf.f64", 3.0), 2e-16);
        assertEquals(1.0, d("erf.f64", 10.0));
        assertEquals(0.84270079f, f("erf.f32", 1f));
    }

    @Test
    void orderedAndUnorderedCompares() {
        for (boolean f32 : new boolean[] {true, false}) {
            String t = f32 ? "f32" : "f64";
            double nan = Double.NaN;
            assertEquals(1, cmp(op("cmp.eq.%s.o", t), 1, 1, f32));
            assertEquals(0, cmp(op("cmp.eq.%s.o", t), nan, nan, f32));
            assertEquals(1, cmp(op("cmp.eq.%s.u", t), nan, 1, f32));
            assertEquals(0, cmp(op("cmp.ne.%s.o", t), 1, 1, f32));
            // C's != is true for NaN operands, so IREE's ordered "ne" is too.
            assertEquals(1, cmp(op("cmp.ne.%s.o", t), nan, 1, f32));
            assertEquals(1, cmp(op("cmp.ne.%s.u", t), nan, nan, f32));
            assertEquals(1, cmp(op("cmp.lt.%s.o", t), 1, 2, f32));
            assertEquals(0, cmp(op("cmp.lt.%s.o", t), nan, 2, f32));
            assertEquals(1, cmp(op("cmp.lt.%s.u", t), nan, 2, f32));
            assertEquals(0, cmp(op("cmp.lt.%s.u", t), 2, 1, f32));
            assertEquals(1, cmp(op("cmp.lte.%s.o", t), 2, 2, f32));
            assertEquals(0, cmp(op("cmp.lte.%s.o", t), 2, nan, f32));
            assertEquals(1, cmp(op("cmp.lte.%s.u", t), 2, nan, f32));
            assertEquals(0, cmp(op("cmp.lte.%s.u", t), 3, 2, f32));
        }
        assertEquals(1, vm.call("cmp_nan_f32", Float.NaN).getI32(0));
        assertEquals(0, vm.call("cmp_nan_f64", 1.0).getI32(0));
    }

    @Test
    void castsRoundHalfAwayFromZero() {
        var out = vm.call("f32_to_ints", 2.5f);
        assertEquals(3, out.getI32(0));
        assertEquals(3, out.getI32(1));
        assertEquals(3L, out.getI64(2));
        assertEquals(3L, out.getI64(3));
        assertEquals(Float.floatToRawIntBits(2.5f), out.getI32(4));
        out = vm.call("f32_to_ints", -2.5f);
        assertEquals(-3, out.getI32(0));
        assertEquals(-3L, out.getI64(2));
        out = vm.call("f32_to_ints", 3.0e9f);
        assertEquals((int) 3_000_000_000L, out.getI32(1));
        assertEquals(3_000_000_000L, out.getI64(3));
        out = vm.call("f64_to_ints", -1.5);
        assertEquals(-2, out.getI32(0));
        assertEquals(-2L, out.getI64(2));
        assertEquals(Double.doubleToRawLongBits(-1.5), out.getI64(4));
        out = vm.call("f64_to_ints", 1e19);
        assertEquals(Long.MAX_VALUE, out.getI64(2));
    }

    @Test
    void intToFloatConversionsIncludingUnsigned() {
        var out = vm.call("ints_to_f32", -1L, -1);
        assertEquals(-1f, out.getF32(0));
        assertEquals(4294967296f, out.getF32(1));
        assertEquals(-1f, out.getF32(2));
        assertEquals(18446744073709551616f, out.getF32(3));
        assertEquals(Float.intBitsToFloat(-1), out.getF32(4));
        out = vm.call("ints_to_f64", Long.MIN_VALUE + 1, 7);
        assertEquals(7.0, out.getF64(0));
        assertEquals(7.0, out.getF64(1));
        assertEquals(-9.223372036854775807E18, out.getF64(2));
        assertEquals(9.223372036854775808E18, out.getF64(3));
        out = vm.call("ints_to_f64", 1L, -1);
        assertEquals(-1.0, out.getF64(0));
        assertEquals(4294967295.0, out.getF64(1));
    }

    @Test
    void truncExtConstantsSelectsSwitches() {
        var out = vm.call("trunc_ext", 1.1);
        assertEquals(1.1f, out.getF32(0));
        assertEquals((double) 1.1f, out.getF64(1));
        out = vm.call("consts_select_switch", 1);
        assertEquals(1.5f, out.getF32(0));
        assertEquals(-2.25, out.getF64(1));
        assertEquals(1.5f, out.getF32(2));
        assertEquals(-2.25, out.getF64(3));
        out = vm.call("consts_select_switch", 0);
        assertEquals(0f, out.getF32(0));
        assertEquals(0.0, out.getF64(1));
        assertEquals(0f, out.getF32(2));
        assertEquals(0.0, out.getF64(3));
        out = vm.call("consts_select_switch", 5);
        assertEquals(1.5f, out.getF32(2));
        assertEquals(0.0, out.getF64(3));
    }
}
