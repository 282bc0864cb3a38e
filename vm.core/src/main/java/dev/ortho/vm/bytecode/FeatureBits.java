package dev.ortho.vm.bytecode;

import java.util.StringJoiner;

/**
 * IREE's {@code iree.vm.FeatureBits}: optional VM features a module or function requires.
 * Values are bit masks; unknown bits are preserved as numbers when formatted.
 */
public final class FeatureBits {
    /** The f32 instruction extension (prefix 0xE0). */
    public static final int EXT_F32 = 1 << 0;
    /** The f64 instruction extension (prefix 0xE1). */
    public static final int EXT_F64 = 1 << 1;
    /** Yieldable calls and {@code vm.yield}. */
    public static final int YIELD = 1 << 2;
    /** Exception unwinding. */
    public static final int UNWIND = 1 << 3;

    private static final String[] NAMES = {"EXT_F32", "EXT_F64", "YIELD", "UNWIND"};

    private FeatureBits() {
    }

    /** Formats {@code bits} as {@code EXT_F32|YIELD}, {@code 0} when empty, unknown bits as hex. */
    public static String format(int bits) {
        if (bits == 0) {
            return "0";
        }
        StringJoiner joiner = new StringJoiner("|");
        int rest = bits;
        for (int i = 0; i < NAMES.length; i++) {
            if ((bits & (1 << i)) != 0) {
                joiner.add(NAMES[i]);
                rest &= ~(1 << i);
            }
        }
        if (rest != 0) {
            joiner.add("0x" + Integer.toHexString(rest));
        }
        return joiner.toString();
    }
}
