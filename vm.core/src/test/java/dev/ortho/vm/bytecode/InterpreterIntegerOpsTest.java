package dev.ortho.vm.bytecode;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every core integer op (i32 and i64 forms) with IREE's numerics, through VMASM. */
class InterpreterIntegerOpsTest {
    static final List<String> BINARY_I32 = List.of("add.i32", "sub.i32", "mul.i32", "div.i32.s", "div.i32.u",
            "rem.i32.s", "rem.i32.u", "and.i32", "or.i32", "xor.i32", "shl.i32", "shr.i32.s", "shr.i32.u",
            "min.i32.s", "min.i32.u", "max.i32.s", "max.i32.u", "cmp.eq.i32", "cmp.ne.i32", "cmp.lt.i32.s",
            "cmp.lt.i32.u");
    static final List<String> UNARY_I32 = List.of("not.i32", "ctlz.i32", "abs.i32", "trunc.i32.i8", "trunc.i32.i16",
            "ext.i8.i32.s", "ext.i8.i32.u", "ext.i16.i32.s", "ext.i16.i32.u", "cmp.nz.i32");
    static final List<String> BINARY_I64 = List.of("add.i64", "sub.i64", "mul.i64", "div.i64.s", "div.i64.u",
            "rem.i64.s", "rem.i64.u", "and.i64", "or.i64", "xor.i64", "min.i64.s", "min.i64.u", "max.i64.s",
            "max.i64.u");
    static final List<String> SHIFT_I64 = List.of("shl.i64", "shr.i64.s", "shr.i64.u");
    static final List<String> CMP_I64 = List.of("cmp.eq.i64", "cmp.ne.i64", "cmp.lt.i64.s", "cmp.lt.i64.u");
    static final List<String> UNARY_I64 = List.of("not.i64", "ctlz.i64", "abs.i64");

    static VmasmFixture vm;

    static String name(String op) {
        return op.replace('.', '_');
    }

    @BeforeAll
    static void load() {
        StringBuilder b = new StringBuilder();
        for (String op : BINARY_I32) {
            b.append("vm.export @").append(name(op)).append("\nvm.func @").append(name(op))
                    .append("(%i0: i32, %i1: i32) -> (i32) {\n^bb0:\n  %i2 = vm.").append(op)
                    .append(" %i0, %i1\n  vm.return %i2\n}\n");
        }
        for (String op : UNARY_I32) {
            b.append("vm.export @").append(name(op)).append("\nvm.func @").append(name(op))
                    .append("(%i0: i32) -> (i32) {\n^bb0:\n  %i1 = vm.").append(op)
                    .append(" %i0\n  vm.return %i1\n}\n");
        }
        for (String op : BINARY_I64) {
            b.append("vm.export @").append(name(op)).append("\nvm.func @").append(name(op))
                    .append("(%i0:1: i64, %i2:3: i64) -> (i64) {\n^bb0:\n  %i4:5 = vm.").append(op)
                    .append(" %i0:1, %i2:3\n  vm.return %i4:5\n}\n");
        }
        for (String op : SHIFT_I64) {
            b.append("vm.export @").append(name(op)).append("\nvm.func @").append(name(op))
                    .append("(%i0:1: i64, %i2: i32) -> (i64) {\n^bb0:\n  %i4:5 = vm.").append(op)
                    .append(" %i0:1, %i2\n  vm.return %i4:5\n}\n");
        }
        for (String op : CMP_I64) {
            b.append("vm.export @").append(name(op)).append("\nvm.func @").append(name(op))
                    .append("(%i0:1: i64, %i2:3: i64) -> (i32) {\n^bb0:\n  %i4 = vm.").append(op)
                    .append(" %i0:1, %i2:3\n  vm.return %i4\n}\n");
        }
        for (String op : UNARY_I64) {
            b.append("vm.export @").append(name(op)).append("\nvm.func @").append(name(op))
                    .append("(%i0:1: i64) -> (i64) {\n^bb0:\n  %i2:3 = vm.").append(op)
                    .append(" %i0:1\n  vm.return %i2:3\n}\n");
        }
        b.append("""
                vm.export @fma_i32
                vm.func @fma_i32(%i0: i32, %i1: i32, %i2: i32) -> (i32) {
                ^bb0:
                  %i3 = vm.fma.i32 %i0, %i1, %i2
                  vm.return %i3
                }
                vm.export @fma_i64
                vm.func @fma_i64(%i0:1: i64, %i2:3: i64, %i4:5: i64) -> (i64) {
                ^bb0:
                  %i6:7 = vm.fma.i64 %i0:1, %i2:3, %i4:5
                  vm.return %i6:7
                }
                vm.export @cmp_nz_i64
                vm.func @cmp_nz_i64(%i0:1: i64) -> (i32) {
                ^bb0:
                  %i2 = vm.cmp.nz.i64 %i0:1
                  vm.return %i2
                }
                vm.export @trunc_i64_i32
                vm.func @trunc_i64_i32(%i0:1: i64) -> (i32) {
                ^bb0:
                  %i2 = vm.trunc.i64.i32 %i0:1
                  vm.return %i2
                }
                vm.export @ext_i32_i64_s
                vm.func @ext_i32_i64_s(%i0: i32) -> (i64) {
                ^bb0:
                  %i2:3 = vm.ext.i32.i64.s %i0
                  vm.return %i2:3
                }
                vm.export @ext_i32_i64_u
                vm.func @ext_i32_i64_u(%i0: i32) -> (i64) {
                ^bb0:
                  %i2:3 = vm.ext.i32.i64.u %i0
                  vm.return %i2:3
                }
                vm.export @consts
                vm.func @consts() -> (i32, i64, i32, i64) {
                ^bb0:
                  %i0 = vm.const.i32 -7
                  %i2:3 = vm.const.i64 -81985529216486896
                  %i4 = vm.const.i32.zero
                  %i6:7 = vm.const.i64.zero
                  vm.return %i0, %i2:3, %i4, %i6:7
                }
                vm.export @select_i32
                vm.func @select_i32(%i0: i32, %i1: i32, %i2: i32) -> (i32) {
                ^bb0:
                  %i3 = vm.select.i32 %i0 ? %i1 : %i2
                  vm.return %i3
                }
                vm.export @select_i64
                vm.func @select_i64(%i0:1: i64, %i2:3: i64, %i4: i32) -> (i64) {
                ^bb0:
                  %i6:7 = vm.select.i64 %i4 ? %i0:1 : %i2:3
                  vm.return %i6:7
                }
                vm.export @switch_i32
                vm.func @switch_i32(%i0: i32) -> (i32) {
                ^bb0:
                  %i1 = vm.const.i32 10
                  %i2 = vm.const.i32 20
                  %i3 = vm.const.i32 30
                  %i4 = vm.const.i32 -1
                  %i5 = vm.switch.i32 %i0[%i1, %i2, %i3] else %i4
                  vm.return %i5
                }
                vm.export @switch_i64
                vm.func @switch_i64(%i0: i32) -> (i64) {
                ^bb0:
                  %i2:3 = vm.const.i64 4294967296
                  %i4:5 = vm.const.i64 -4294967296
                  %i6:7 = vm.const.i64 99
                  %i8:9 = vm.switch.i64 %i0[%i2:3, %i4:5] else %i6:7
                  vm.return %i8:9
                }
                """);
        vm = new VmasmFixture(VmasmFixture.module(b.toString()));
    }

    @AfterAll
    static void close() {
        vm.close();
    }

    static int i32(String op, int... args) {
        Object[] boxed = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            boxed[i] = args[i];
        }
        return vm.call(name(op), boxed).getI32(0);
    }

    static long i64(String op, Object... args) {
        return vm.call(name(op), args).getI64(0);
    }

    @Test
    void i32ArithmeticWrapsAndDividesTowardZero() {
        assertEquals(Integer.MIN_VALUE, i32("add.i32", Integer.MAX_VALUE, 1));
        assertEquals(-5, i32("sub.i32", 2, 7));
        assertEquals(-2147483648, i32("mul.i32", 65536, 32768));
        assertEquals(-3, i32("div.i32.s", -7, 2));
        assertEquals(0x7FFFFFFC, i32("div.i32.u", -8, 2));
        assertEquals(-1, i32("rem.i32.s", -7, 2));
        assertEquals(1, i32("rem.i32.u", -7, 2));
        assertEquals(Integer.MIN_VALUE, i32("div.i32.s", Integer.MIN_VALUE, -1));
        assertEquals(7, i32("fma.i32", 2, 3, 1));
    }

    @Test
    void divisionByZeroFailsInsteadOfCrashing() {
        StatusException e = vm.failure("div_i32_s", 1, 0);
        assertNotNull(e);
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("t.div_i32_s"), e.getMessage());
        assertEquals(StatusCode.INVALID_ARGUMENT, vm.failure("rem_i64_u", 1L, 0L).code());
    }

    @Test
    void i32BitwiseShiftsMaskTheAmount() {
        assertEquals(0b1000, i32("and.i32", 0b1100, 0b1010));
        assertEquals(0b1110, i32("or.i32", 0b1100, 0b1010));
        assertEquals(0b0110, i32("xor.i32", 0b1100, 0b1010));
        assertEquals(~5, i32("not.i32", 5));
        assertEquals(2, i32("shl.i32", 1, 33));
        assertEquals(-1, i32("shr.i32.s", -2, 32 + 1));
        assertEquals(0x7FFFFFFF, i32("shr.i32.u", -1, 1));
        assertEquals(-1, i32("shr.i32.u", -1, 32));
    }

    @Test
    void i32CountsAbsMinMax() {
        assertEquals(32, i32("ctlz.i32", 0));
        assertEquals(0, i32("ctlz.i32", -1));
        assertEquals(31, i32("ctlz.i32", 1));
        assertEquals(5, i32("abs.i32", -5));
        assertEquals(Integer.MIN_VALUE, i32("abs.i32", Integer.MIN_VALUE));
        assertEquals(-1, i32("min.i32.s", -1, 1));
        assertEquals(1, i32("min.i32.u", -1, 1));
        assertEquals(1, i32("max.i32.s", -1, 1));
        assertEquals(-1, i32("max.i32.u", -1, 1));
    }

    @Test
    void i32TruncationsAndExtensions() {
        assertEquals(0xFF, i32("trunc.i32.i8", -1));
        assertEquals(0xFFFF, i32("trunc.i32.i16", -1));
        assertEquals(-128, i32("ext.i8.i32.s", 0x180));
        assertEquals(0x80, i32("ext.i8.i32.u", 0x180));
        assertEquals(-32768, i32("ext.i16.i32.s", 0x18000));
        assertEquals(0x8000, i32("ext.i16.i32.u", 0x18000));
    }

    @Test
    void i32ComparesSignedAndUnsigned() {
        assertEquals(1, i32("cmp.eq.i32", 3, 3));
        assertEquals(0, i32("cmp.ne.i32", 3, 3));
        assertEquals(1, i32("cmp.lt.i32.s", -1, 0));
        assertEquals(0, i32("cmp.lt.i32.u", -1, 0));
        assertEquals(1, i32("cmp.nz.i32", Integer.MIN_VALUE));
        assertEquals(0, i32("cmp.nz.i32", 0));
    }

    @Test
    void i64OpsUseWholeRegisterPairs() {
        long big = 0x1_0000_0001L;
        assertEquals(0x2_0000_0002L, i64("add.i64", big, big));
        assertEquals(-1L, i64("sub.i64", 0L, 1L));
        assertEquals(0x1_0000_0000L, i64("mul.i64", 0x10000L, 0x10000L));
        assertEquals(-3L, i64("div.i64.s", -7L, 2L));
        assertEquals(0x7FFF_FFFF_FFFF_FFFCL, i64("div.i64.u", -8L, 2L));
        assertEquals(-1L, i64("rem.i64.s", -7L, 2L));
        assertEquals(1L, i64("rem.i64.u", -7L, 2L));
        assertEquals(big & 0xFFFF_0000_0000L, i64("and.i64", big, 0xFFFF_0000_0000L));
        assertEquals(0x1_0000_0003L, i64("or.i64", big, 2L));
        assertEquals(0L, i64("xor.i64", big, big));
        assertEquals(~big, i64("not.i64", big));
        assertEquals(Long.MIN_VALUE, i64("abs.i64", Long.MIN_VALUE));
        assertEquals(64L, i64("ctlz.i64", 0L));
        assertEquals(31L, i64("ctlz.i64", big));
        assertEquals(-1L, i64("min.i64.s", -1L, 1L));
        assertEquals(1L, i64("min.i64.u", -1L, 1L));
        assertEquals(1L, i64("max.i64.s", -1L, 1L));
        assertEquals(-1L, i64("max.i64.u", -1L, 1L));
        assertEquals(7L + (1L << 40), i64("fma.i64", 1L << 20, 1L << 20, 7L));
    }

    @Test
    void i64ShiftsMaskTheAmountTo63() {
        assertEquals(2L, i64("shl.i64", 1L, 65));
        assertEquals(1L << 32, i64("shl.i64", 1L, 32));
        assertEquals(-1L, i64("shr.i64.s", Long.MIN_VALUE, 63));
        assertEquals(1L, i64("shr.i64.u", Long.MIN_VALUE, 63));
        assertEquals(Long.MIN_VALUE, i64("shr.i64.u", Long.MIN_VALUE, 64));
    }

    @Test
    void i64ComparesAndConversions() {
        assertEquals(1, vm.call("cmp_eq_i64", 1L << 33, 1L << 33).getI32(0));
        assertEquals(1, vm.call("cmp_ne_i64", 1L << 33, 1L << 34).getI32(0));
        assertEquals(1, vm.call("cmp_lt_i64_s", -1L, 0L).getI32(0));
        assertEquals(0, vm.call("cmp_lt_i64_u", -1L, 0L).getI32(0));
        assertEquals(1, vm.call("cmp_nz_i64", 1L << 40).getI32(0));
        assertEquals(0x89ABCDEF, vm.call("trunc_i64_i32", 0x01234567_89ABCDEFL).getI32(0));
        assertEquals(-1L, vm.call("ext_i32_i64_s", -1).getI64(0));
        assertEquals(0xFFFF_FFFFL, vm.call("ext_i32_i64_u", -1).getI64(0));
    }

    @Test
    void constantsSelectsAndSwitches() {
        var out = vm.call("consts");
        assertEquals(-7, out.getI32(0));
        assertEquals(-81985529216486896L, out.getI64(1));
        assertEquals(0, out.getI32(2));
        assertEquals(0L, out.getI64(3));
        assertEquals(5, vm.call("select_i32", 2, 5, 6).getI32(0));
        assertEquals(6, vm.call("select_i32", 0, 5, 6).getI32(0));
        assertEquals(1L << 40, vm.call("select_i64", 1L << 40, 3L, 1).getI64(0));
        assertEquals(3L, vm.call("select_i64", 1L << 40, 3L, 0).getI64(0));
        assertEquals(10, vm.call("switch_i32", 0).getI32(0));
        assertEquals(30, vm.call("switch_i32", 2).getI32(0));
        assertEquals(-1, vm.call("switch_i32", 3).getI32(0));
        assertEquals(-1, vm.call("switch_i32", -1).getI32(0));
        assertEquals(-4294967296L, vm.call("switch_i64", 1).getI64(0));
        assertEquals(99L, vm.call("switch_i64", 2).getI64(0));
    }
}
