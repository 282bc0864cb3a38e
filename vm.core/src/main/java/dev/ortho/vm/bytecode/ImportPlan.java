package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Interpreter.rl;
import static dev.ortho.vm.bytecode.Interpreter.u16;

import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.RefObject;

/**
 * How the interpreter marshals the arguments of calls to one import, worked out once from the
 * import's argument types: the argument positions of its refs, 32-bit and 64-bit values, each
 * with its slot in the call buffer, so that a call runs one branch-free loop per kind instead of
 * decoding the type string argument by argument (whose kind changes from one argument to the
 * next, a mispredicted branch per argument on every import call). A variadic import is planned
 * when its one span ends the argument list ({@code 0rIIiiCID_r}, {@code 0iICrD_i}, …): the
 * leading arguments, then the span's tuple, repeated as often as the call site's segment says.
 *
 * <p>What it does not plan (two spans, arguments after the span) gets a plan that is not
 * {@link #usable}; the interpreter then decodes the type string as before. Immutable and
 * thread-safe.
 */
final class ImportPlan {
    private static final int[] NONE = {};

    /** The argument types this plan was made from (compared by identity to find a stale plan). */
    final String types;
    /** False for argument lists this class does not plan: the caller decodes the type string. */
    final boolean usable;
    /** Whether the arguments end in a span. */
    final boolean variadic;
    /** Arguments before the span (all, without one). */
    final int fixedCount;
    /** Primitive and ref slots of the fixed arguments. */
    final int fixedPrims;
    final int fixedRefs;
    private final int[] refArg;
    private final int[] i32Arg;
    private final int[] i32Slot;
    private final int[] i64Arg;
    private final int[] i64Slot;
    /** The span's tuple: its length, slots, and per kind the element index and slot within a tuple. */
    final int tupleLength;
    final int tuplePrims;
    final int tupleRefs;
    private final int[] tupleRefArg;
    private final int[] tupleI32Arg;
    private final int[] tupleI32Slot;
    private final int[] tupleI64Arg;
    private final int[] tupleI64Slot;

    private ImportPlan(String types, boolean usable, boolean variadic, Kinds fixed, Kinds tuple) {
        this.types = types;
        this.usable = usable;
        this.variadic = variadic;
        this.fixedCount = fixed.count;
        this.fixedPrims = fixed.i32Arg.length + fixed.i64Arg.length;
        this.fixedRefs = fixed.refArg.length;
        this.refArg = fixed.refArg;
        this.i32Arg = fixed.i32Arg;
        this.i32Slot = fixed.i32Slot;
        this.i64Arg = fixed.i64Arg;
        this.i64Slot = fixed.i64Slot;
        this.tupleLength = tuple.count;
        this.tuplePrims = tuple.i32Arg.length + tuple.i64Arg.length;
        this.tupleRefs = tuple.refArg.length;
        this.tupleRefArg = tuple.refArg;
        this.tupleI32Arg = tuple.i32Arg;
        this.tupleI32Slot = tuple.i32Slot;
        this.tupleI64Arg = tuple.i64Arg;
        this.tupleI64Slot = tuple.i64Slot;
    }

    /** The plan for argument types {@code types} (a calling convention's argument fragment). */
    static ImportPlan of(String types) {
        int open = types.indexOf('C');
        if (open < 0) {
            return new ImportPlan(types, true, false, Kinds.of(types), Kinds.of(""));
        }
        int close = types.indexOf('D', open);
        if (close != types.length() - 1 || types.indexOf('C', open + 1) >= 0) {
            return new ImportPlan(types, false, true, Kinds.of(""), Kinds.of(""));
        }
        return new ImportPlan(types, true, true, Kinds.of(types.substring(0, open)),
                Kinds.of(types.substring(open + 1, close)));
    }

    /**
     * Writes the fixed arguments, read from the register list at {@code args} (which holds at
     * least {@link #fixedCount} registers), into {@code out}, whose slots are sized already.
     */
    void marshalFixed(byte[] c, int args, int[] r, RefObject[] refs, CallBuffer out) {
        int list = args + 2;
        for (int q = 0; q < refArg.length; q++) {
            InterpreterCalls.passArgRef(refs, u16(c, list + 2 * refArg[q]), out, q);
        }
        for (int k = 0; k < i32Arg.length; k++) {
            out.setBits(i32Slot[k], r[u16(c, list + 2 * i32Arg[k])]);
        }
        for (int k = 0; k < i64Arg.length; k++) {
            out.setBits(i64Slot[k], rl(r, u16(c, list + 2 * i64Arg[k])));
        }
    }

    /**
     * Writes {@code count} tuples of the span, read from the register list at {@code args} after
     * the fixed arguments, into {@code out} after the fixed slots and the span count (which the
     * caller writes).
     */
    void marshalSpan(byte[] c, int args, int count, int[] r, RefObject[] refs, CallBuffer out) {
        int list = args + 2 + 2 * fixedCount;
        int prim = fixedPrims + 1;
        int ref = fixedRefs;
        for (int t = 0; t < count; t++) {
            for (int q = 0; q < tupleRefArg.length; q++) {
                InterpreterCalls.passArgRef(refs, u16(c, list + 2 * tupleRefArg[q]), out, ref + q);
            }
            for (int k = 0; k < tupleI32Arg.length; k++) {
                out.setBits(prim + tupleI32Slot[k], r[u16(c, list + 2 * tupleI32Arg[k])]);
            }
            for (int k = 0; k < tupleI64Arg.length; k++) {
                out.setBits(prim + tupleI64Slot[k], rl(r, u16(c, list + 2 * tupleI64Arg[k])));
            }
            list += 2 * tupleLength;
            prim += tuplePrims;
            ref += tupleRefs;
        }
    }

    /** Per kind, the argument index and the slot of each argument of a run of plain types. */
    private record Kinds(int count, int[] refArg, int[] i32Arg, int[] i32Slot, int[] i64Arg, int[] i64Slot) {
        static Kinds of(String types) {
            int n = types.length();
            int refs = 0;
            int wide = 0;
            for (int i = 0; i < n; i++) {
                char t = types.charAt(i);
                refs += t == 'r' ? 1 : 0;
                wide += t == 'I' || t == 'F' ? 1 : 0;
            }
            int[] refArg = refs == 0 ? NONE : new int[refs];
            int[] i32Arg = new int[n - refs - wide];
            int[] i32Slot = new int[i32Arg.length];
            int[] i64Arg = new int[wide];
            int[] i64Slot = new int[wide];
            int p = 0;
            int q = 0;
            int a = 0;
            int b = 0;
            for (int i = 0; i < n; i++) {
                switch (types.charAt(i)) {
                    case 'r' -> refArg[q++] = i;
                    case 'I', 'F' -> {
                        i64Arg[b] = i;
                        i64Slot[b++] = p++;
                    }
                    default -> {
                        i32Arg[a] = i;
                        i32Slot[a++] = p++;
                    }
                }
            }
            return new Kinds(n, refArg, i32Arg, i32Slot, i64Arg, i64Slot);
        }
    }
}
