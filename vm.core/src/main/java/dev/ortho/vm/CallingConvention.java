package dev.ortho.vm;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * A parsed and validated calling convention string ({@code 0ii_i}, {@code 0rCiD_r}, …), IREE's
 * {@code iree_vm_function_signature_t.calling_convention}.
 *
 * <p>Grammar: version {@code 0}; argument types; optionally {@code _} and result types. Types are
 * {@code i} (i32), {@code I} (i64), {@code f} (f32), {@code F} (f64), {@code r} (ref) and variadic
 * spans {@code C…D} of one or more of those (not nested). A fragment that is exactly {@code v}
 * means none. The empty string means {@code () -> ()}.
 *
 * <p>Packing into a {@link CallBuffer} (Ortho's form of IREE's argument byte buffer, split by
 * bank): every primitive takes one primitive slot in order, every ref one ref slot in order; a span
 * takes one primitive slot for its element count followed by its flattened tuples. Immutable and
 * thread-safe.
 */
public final class CallingConvention {
    /** {@code () -> ()}. */
    public static final CallingConvention VOID = parse("0v_v");

    private final String text;
    private final Fragment arguments;
    private final Fragment results;

    private CallingConvention(String text, Fragment arguments, Fragment results) {
        this.text = text;
        this.arguments = arguments;
        this.results = results;
    }

    /**
     * Parses and validates {@code cconv}.
     *
     * @throws StatusException UNIMPLEMENTED for a version other than {@code 0} or an unknown type
     *     character (as IREE), INVALID_ARGUMENT for malformed structure (several {@code _},
     *     misplaced {@code v}, unbalanced, nested or empty spans)
     */
    public static CallingConvention parse(String cconv) {
        if (cconv == null || cconv.isEmpty()) {
            return new CallingConvention("", Fragment.EMPTY, Fragment.EMPTY);
        }
        if (cconv.charAt(0) != '0') {
            throw new StatusException(StatusCode.UNIMPLEMENTED,
                    "unsupported cconv version " + printable(String.valueOf(cconv.charAt(0))) + " in '"
                            + printable(cconv) + "'");
        }
        String body = cconv.substring(1);
        int split = body.indexOf('_');
        if (split >= 0 && body.indexOf('_', split + 1) >= 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "cconv '" + printable(cconv) + "' has more than one '_'");
        }
        String args = split < 0 ? body : body.substring(0, split);
        String res = split < 0 ? "" : body.substring(split + 1);
        return new CallingConvention(cconv, Fragment.parse(args, cconv), Fragment.parse(res, cconv));
    }

    /** The original string. */
    public String text() {
        return text;
    }

    /** The argument fragment. */
    public Fragment arguments() {
        return arguments;
    }

    /** The result fragment. */
    public Fragment results() {
        return results;
    }

    /** True if either fragment has a variadic span. */
    public boolean isVariadic() {
        return arguments.isVariadic() || results.isVariadic();
    }

    /**
     * True if the two conventions describe the same types (ignoring spelling differences such as
     * {@code 0} vs {@code 0v_v}).
     */
    public boolean matches(CallingConvention other) {
        return arguments.types.equals(other.arguments.types) && results.types.equals(other.results.types);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CallingConvention c && c.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    @Override
    public String toString() {
        return text;
    }

    /** One side (arguments or results) of a calling convention. Immutable. */
    public static final class Fragment {
        static final Fragment EMPTY = new Fragment("", false, 0, 0);

        private final String types;
        private final boolean variadic;
        private final int primitiveSlots;
        private final int refSlots;
        /** Primitive and ref slots of one tuple of the one span, or -1 unless there is exactly one span. */
        private final int spanPrims;
        private final int spanRefs;

        private Fragment(String types, boolean variadic, int primitiveSlots, int refSlots) {
            this.types = types;
            this.variadic = variadic;
            this.primitiveSlots = primitiveSlots;
            this.refSlots = refSlots;
            int start = types.indexOf('C');
            int end = types.indexOf('D');
            if (start >= 0 && types.indexOf('C', start + 1) < 0) {
                int refs = 0;
                for (int i = start + 1; i < end; i++) {
                    refs += types.charAt(i) == 'r' ? 1 : 0;
                }
                this.spanRefs = refs;
                this.spanPrims = end - start - 1 - refs;
            } else {
                this.spanPrims = -1;
                this.spanRefs = -1;
            }
        }

        static Fragment parse(String s, String whole) {
            if (s.isEmpty() || s.equals("v")) {
                return EMPTY;
            }
            boolean inSpan = false;
            boolean variadic = false;
            int spanLength = 0;
            int prims = 0;
            int refs = 0;
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case 'i', 'I', 'f', 'F' -> {
                        if (!inSpan) {
                            prims++;
                        }
                        spanLength++;
                    }
                    case 'r' -> {
                        if (!inSpan) {
                            refs++;
                        }
                        spanLength++;
                    }
                    case 'C' -> {
                        if (inSpan) {
                            throw malformed(whole, "nested variadic span at '" + s + "'[" + i + "]");
                        }
                        inSpan = true;
                        variadic = true;
                        spanLength = 0;
                        prims++; // the span's count
                    }
                    case 'D' -> {
                        if (!inSpan) {
                            throw malformed(whole, "'D' without a matching 'C'");
                        }
                        if (spanLength == 0) {
                            throw malformed(whole, "empty variadic span");
                        }
                        inSpan = false;
                    }
                    case 'v' -> throw malformed(whole, "'v' must be the whole fragment");
                    default -> throw new StatusException(StatusCode.UNIMPLEMENTED,
                            "unsupported cconv type '" + printable(String.valueOf(c)) + "' in '"
                                    + printable(whole) + "'");
                }
            }
            if (inSpan) {
                throw malformed(whole, "unterminated variadic span");
            }
            return new Fragment(s, variadic, prims, refs);
        }

        private static StatusException malformed(String whole, String what) {
            return new StatusException(StatusCode.INVALID_ARGUMENT,
                    "malformed cconv '" + printable(whole) + "': " + what);
        }

        /** The type characters (empty for none; {@code v} is normalized away). */
        public String types() {
            return types;
        }

        /** True if this fragment has a {@code C…D} span. */
        public boolean isVariadic() {
            return variadic;
        }

        /**
         * Number of values (IREE's {@code count_arguments_and_results}).
         *
         * @throws StatusException INVALID_ARGUMENT if the fragment is variadic
         */
        public int valueCount() {
            requireFixed();
            return primitiveSlots + refSlots;
        }

        /**
         * Primitive slots needed when every span is empty (each span contributes its count slot);
         * for fixed fragments, exactly the slots needed.
         */
        public int primitiveSlots() {
            return primitiveSlots;
        }

        /** Ref slots needed when every span is empty; for fixed fragments, exactly the slots needed. */
        public int refSlots() {
            return refSlots;
        }

        private void requireFixed() {
            if (variadic) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "cannot statically count cconv values with variadic value spans");
            }
        }

        /**
         * Slots needed when the spans, in order, hold {@code spanCounts[k]} tuples each.
         * Returns {@code primitiveSlots | (long) refSlots << 32}.
         *
         * @throws StatusException INVALID_ARGUMENT if {@code spanCounts} does not have one
         *     non-negative entry per span
         */
        public long slotsFor(int... spanCounts) {
            if (spanCounts.length == 1) {
                return slotsFor(spanCounts[0]);
            }
            return slotsForSpans(spanCounts);
        }

        /**
         * {@link #slotsFor(int...)} for one span count, allocation-free for a fragment with one
         * span (the variadic HAL imports: a call decodes its layout with this on every call).
         *
         * @throws StatusException as {@link #slotsFor(int...)}
         */
        public long slotsFor(int spanCount) {
            if (spanPrims < 0 || spanCount < 0) {
                return slotsForSpans(new int[] {spanCount}); // fails as the general form does
            }
            long prims = primitiveSlots + (long) spanPrims * spanCount;
            long refs = refSlots + (long) spanRefs * spanCount;
            if (prims > Integer.MAX_VALUE || refs > Integer.MAX_VALUE) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "variadic call too large");
            }
            return prims | refs << 32;
        }

        private long slotsForSpans(int[] spanCounts) {
            long prims = primitiveSlots;
            long refs = refSlots;
            int span = -1;
            boolean inSpan = false;
            int spanPrims = 0;
            int spanRefs = 0;
            for (int i = 0; i < types.length(); i++) {
                char c = types.charAt(i);
                if (c == 'C') {
                    span++;
                    inSpan = true;
                    spanPrims = 0;
                    spanRefs = 0;
                } else if (c == 'D') {
                    inSpan = false;
                    if (span >= spanCounts.length || spanCounts[span] < 0) {
                        throw new StatusException(StatusCode.INVALID_ARGUMENT,
                                "variadic argument found but segment size list is missing/underflowed");
                    }
                    prims += (long) spanPrims * spanCounts[span];
                    refs += (long) spanRefs * spanCounts[span];
                } else if (inSpan) {
                    if (c == 'r') {
                        spanRefs++;
                    } else {
                        spanPrims++;
                    }
                }
            }
            if (span + 1 != spanCounts.length) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "expected " + (span + 1)
                        + " span counts for '" + types + "' but got " + spanCounts.length);
            }
            if (prims > Integer.MAX_VALUE || refs > Integer.MAX_VALUE) {
                throw new StatusException(StatusCode.OUT_OF_RANGE, "variadic call too large");
            }
            return prims | refs << 32;
        }

        @Override
        public String toString() {
            return types;
        }
    }
}
