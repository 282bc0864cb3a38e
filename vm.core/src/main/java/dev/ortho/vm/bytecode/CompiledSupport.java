package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;
import static dev.ortho.vm.bytecode.Interpreter.REF_MASK;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.Stack;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Run-time support of the classes {@link Compiler} generates: the per-call environment and the
 * small static helpers the generated code calls (C2 inlines them). Every helper computes exactly
 * what the interpreter computes for the same op; ops the compiler does not emit inline run the
 * interpreter's own op helpers on spilled registers ({@link #op}).
 */
final class CompiledSupport {
    private CompiledSupport() {
    }

    /** Implemented by each generated class: runs compiled function {@code fn} for an external call. */
    interface Entry {
        void call(int fn, Env env, CallBuffer arguments, CallBuffer results);
    }

    /** State of one external call into compiled code. Not thread-safe; one per call. */
    static final class Env {
        final BytecodeModule m;
        final BytecodeModule.State st;
        final Stack stack;
        /** Results of calls returning more than one value: 32/64-bit bits and refs. */
        final long[] rb;
        final RefObject[] rr;
        Machine mach;
        /** Backtrace of a trap, innermost first: function ordinal and pc pairs. */
        int[] trace = new int[8];
        int traceSize;
        /** The reusable call of import calls (as an interpreter frame's outgoing call). */
        final Call outgoing = new Call();
        /** Frames a failed import left above the compiled activations, top first (see {@link #invokeImport}). */
        final List<Detached> detached = new ArrayList<>();
        /**
         * The register arrays through which compiled code runs ops in their interpreter form
         * ({@link #op}): registers are copied in just before such an op and out just after it, so
         * the arrays hold nothing between ops and every activation on this environment (a workgroup
         * call of a kernel, the internal calls it makes) shares one pair instead of allocating its
         * own on entry.
         */
        private int[] scratch32 = new int[0];
        private RefObject[] scratchRefs = new RefObject[0];
        /**
         * The register arrays of split functions ({@link MethodSplitter}) by function ordinal,
         * made on a function's first activation on this environment and reused by the later
         * ones: a function is active at most once at a time on one environment (recursion stays
         * interpreted, and an external call nested in an import gets an environment of its own).
         */
        private long[][] splitBits;
        private RefObject[][] splitRefs;

        Env(BytecodeModule m, BytecodeModule.State st, Stack stack, int maxResults) {
            this.m = m;
            this.st = st;
            this.stack = stack;
            this.rb = new long[maxResults];
            this.rr = new RefObject[maxResults];
        }

        /** The shared i32 register array, at least {@code count} long (called on entry of a function with ops in interpreter form). */
        int[] i32Scratch(int count) {
            int[] a = scratch32;
            if (a.length < count) {
                a = new int[count];
                scratch32 = a;
            }
            return a;
        }

        /** Split function {@code f}'s register bits, {@code count} long, all zero (its registers on entry). */
        long[] splitBits(int f, int count) {
            long[][] all = splitBits;
            if (all == null) {
                all = new long[m.functionCount][];
                splitBits = all;
            }
            long[] a = all[f];
            if (a == null || a.length != count) {
                a = new long[count];
                all[f] = a;
            } else {
                java.util.Arrays.fill(a, 0L);
            }
            return a;
        }

        /**
         * Split function {@code f}'s ref registers, {@code count} long, all null: the dispatcher
         * empties it when the function returns ({@link #clearRefs}) and when it fails
         * ({@link #releaseAll}).
         */
        RefObject[] splitRefs(int f, int count) {
            RefObject[][] all = splitRefs;
            if (all == null) {
                all = new RefObject[m.functionCount][];
                splitRefs = all;
            }
            RefObject[] a = all[f];
            if (a == null || a.length != count) {
                a = new RefObject[count];
                all[f] = a;
            }
            return a;
        }

        /** The shared ref register array, at least {@code count} long; all null between ops. */
        RefObject[] refScratch(int count) {
            RefObject[] a = scratchRefs;
            if (a.length < count) {
                a = new RefObject[count];
                scratchRefs = a;
            }
            return a;
        }
    }

    /** A frame detached by a failed import call: pushed back (without registers) for the backtrace. */
    record Detached(FrameType type, Function function, long pc) {
    }

    static RefObject retain(RefObject v) {
        return RefObject.retain(v);
    }

    static void release(RefObject v) {
        RefObject.release(v);
    }

    /**
     * Empties a split function's ref array when it returns, without releasing: what is left there
     * the returning function no longer owns, as an unsplit method's dead locals.
     */
    static void clearRefs(RefObject[] refs) {
        java.util.Arrays.fill(refs, null);
    }

    /** Releases and clears every ref of a split function's ref array ({@link MethodSplitter}). */
    static void releaseAll(RefObject[] refs) {
        for (int k = 0; k < refs.length; k++) {
            RefObject v = refs[k];
            refs[k] = null;
            release(v);
        }
    }

    /** Converts whatever a compiled function threw as the interpreter's loop does, and records its frame. */
    static Throwable trap(Env env, Throwable t, int pc, int fn) {
        // An op in interpreter form that failed left the refs it was given in the shared array.
        java.util.Arrays.fill(env.scratchRefs, null);
        StatusException e;
        if (t instanceof StatusException s) {
            e = s;
        } else if (t instanceof ArithmeticException) {
            e = new StatusException(StatusCode.INVALID_ARGUMENT, "integer division by zero", t);
        } else if (t instanceof RuntimeException || t instanceof StackOverflowError) {
            e = new StatusException(StatusCode.INTERNAL, "compiled code fault at " + printable(env.m.name) + "."
                    + printable(env.m.internal[fn].name()) + "+" + String.format("%08X", pc) + ": " + t, t);
        } else {
            return t;
        }
        if (env.traceSize + 2 > env.trace.length) {
            env.trace = java.util.Arrays.copyOf(env.trace, env.trace.length * 2);
        }
        env.trace[env.traceSize++] = fn;
        env.trace[env.traceSize++] = pc;
        return e;
    }

    /** Prepares the call of import {@code ordinal}; returns its argument buffer. */
    static CallBuffer importCall(Env env, int ordinal) {
        Function f = env.st.imports[ordinal];
        if (f == null) {
            Function decl = env.m.imports().get(ordinal);
            throw new StatusException(StatusCode.NOT_FOUND, "optional import `" + printable(decl.name())
                    + "` (ordinal " + ordinal + ") not resolved");
        }
        return env.outgoing.prepare(f).arguments();
    }

    /**
     * As {@link #importCall}, for a call site that writes every argument slot itself: the
     * primitive slots are not zeroed first ({@link Call#prepareToFill}).
     */
    static CallBuffer importCallToFill(Env env, int ordinal) {
        Function f = env.st.imports[ordinal];
        if (f == null) {
            return importCall(env, ordinal); // fails as importCall does
        }
        return env.outgoing.prepareToFill(f).arguments();
    }

    /**
     * Calls the prepared import through the module's ordinary call path; returns its results.
     * A failure leaves the callee's frames (the interpreter's backtrace shows them above the
     * caller): they are detached here, their refs released, and pushed back above the compiled
     * frames when the trap reaches the entry ({@code BytecodeModule.runCompiled}).
     *
     * @throws StatusException what the import threw, annotated as the interpreter does;
     *     FAILED_PRECONDITION if it deferred (IREE: deferred calls must use vm.call.yieldable,
     *     which is never compiled)
     */
    static CallBuffer invokeImport(Env env) {
        Call out = env.outgoing;
        Stack stack = env.stack;
        int depth = stack.depth();
        CallOutcome outcome;
        try {
            outcome = InterpreterCalls.beginImport(env.m.name(), stack, out);
        } catch (StatusException e) {
            detach(env, depth);
            throw e.annotate("while calling import");
        }
        if (outcome == CallOutcome.DEFERRED) {
            detach(env, depth);
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "import `" + printable(out.function().name())
                    + "` deferred on vm.call in a compiled function; deferred calls must use vm.call.yieldable");
        }
        out.arguments().releaseRefs();
        return out.results();
    }

    private static void detach(Env env, int depth) {
        env.detached.clear();
        Stack stack = env.stack;
        while (stack.depth() > depth) {
            Frame top = stack.top();
            RefObject[] refs = top.refRegisters();
            for (int k = 0; refs != null && k < refs.length; k++) {
                RefObject v = refs[k];
                refs[k] = null;
                release(v);
            }
            env.detached.add(new Detached(top.type(), top.function(), top.pc()));
            stack.leave(top);
        }
    }

    static StatusException fail(int code, String message) {
        return new StatusException(StatusCode.fromValue(code), message);
    }

    static StatusException pastEnd() {
        return new StatusException(StatusCode.FAILED_PRECONDITION,
                "vm.fail with an OK status ran past the end of the function");
    }

    static VmBuffer buffer(RefObject v, String what) {
        if (v instanceof VmBuffer b) {
            return b;
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, v == null ? what + " is null"
                : "ref register holds " + v.refType().name() + " where a vm.buffer is required");
    }

    /** An op not emitted inline: the interpreter's helper on the spilled registers. */
    static void op(Env env, int pc, int base, int[] r, RefObject[] refs) {
        BytecodeModule m = env.m;
        byte[] c = m.code;
        int op = c[pc] & 0xFF;
        switch (op) {
            case CoreOps.GLOBAL_LOAD_I32, CoreOps.GLOBAL_STORE_I32, CoreOps.GLOBAL_LOAD_I64,
                 CoreOps.GLOBAL_STORE_I64 -> globalDirect(env, c, pc, r);
            case CoreOps.GLOBAL_LOAD_INDIRECT_I32, CoreOps.GLOBAL_STORE_INDIRECT_I32,
                 CoreOps.GLOBAL_LOAD_INDIRECT_I64, CoreOps.GLOBAL_STORE_INDIRECT_I64,
                 CoreOps.GLOBAL_LOAD_REF, CoreOps.GLOBAL_STORE_REF, CoreOps.GLOBAL_LOAD_INDIRECT_REF,
                 CoreOps.GLOBAL_STORE_INDIRECT_REF -> InterpreterOps.globalOp(m, env.st, c, pc, r, refs);
            case CoreOps.CONST_REF_RODATA -> Interpreter.assign(refs, Interpreter.u16(c, pc + 5) & REF_MASK,
                    RefObject.retain(m.rodata[Interpreter.i32(c, pc + 1)]));
            case CoreOps.LIST_ALLOC, CoreOps.LIST_RESERVE, CoreOps.LIST_SIZE, CoreOps.LIST_RESIZE,
                 CoreOps.LIST_GET_I32, CoreOps.LIST_SET_I32, CoreOps.LIST_GET_I64, CoreOps.LIST_SET_I64,
                 CoreOps.LIST_GET_REF, CoreOps.LIST_SET_REF ->
                    InterpreterOps.listOp(m, env.stack.context().hostMemoryLimit(), c, pc, r, refs);
            case CoreOps.SELECT_REF, CoreOps.SWITCH_I32, CoreOps.SWITCH_I64, CoreOps.SWITCH_REF,
                 CoreOps.CAST_ANY_REF -> InterpreterOps.selectOp(m, c, pc, base, r, refs);
            case CoreOps.DIV_I32_S, CoreOps.DIV_I32_U, CoreOps.REM_I32_S, CoreOps.REM_I32_U, CoreOps.FMAI32,
                 CoreOps.NOT_I32, CoreOps.CTLZ_I32, CoreOps.ABS_I32, CoreOps.MIN_I32_S, CoreOps.MIN_I32_U,
                 CoreOps.MAX_I32_S, CoreOps.MAX_I32_U, CoreOps.TRUNC_I32_I8, CoreOps.TRUNC_I32_I16,
                 CoreOps.EXT_I8_I32_S, CoreOps.EXT_I8_I32_U, CoreOps.EXT_I16_I32_S,
                 CoreOps.EXT_I16_I32_U -> InterpreterOps.intOp(c, pc, r);
            case CoreOps.ADD_I64, CoreOps.SUB_I64, CoreOps.MUL_I64, CoreOps.DIV_I64_S, CoreOps.DIV_I64_U,
                 CoreOps.REM_I64_S, CoreOps.REM_I64_U, CoreOps.FMAI64, CoreOps.NOT_I64, CoreOps.AND_I64,
                 CoreOps.OR_I64, CoreOps.XOR_I64, CoreOps.SHL_I64, CoreOps.SHR_I64_S, CoreOps.SHR_I64_U,
                 CoreOps.TRUNC_I64_I32, CoreOps.EXT_I32_I64_S, CoreOps.EXT_I32_I64_U, CoreOps.CMP_EQI64,
                 CoreOps.CMP_NEI64, CoreOps.CMP_LTI64_S, CoreOps.CMP_LTI64_U, CoreOps.CMP_NZI64,
                 CoreOps.CTLZ_I64, CoreOps.ABS_I64, CoreOps.MIN_I64_S, CoreOps.MIN_I64_U, CoreOps.MAX_I64_S,
                 CoreOps.MAX_I64_U -> InterpreterOps.longOp(c, pc, r);
            case CoreOps.BUFFER_LOAD_I8_U, CoreOps.BUFFER_LOAD_I8_S, CoreOps.BUFFER_LOAD_I16_U,
                 CoreOps.BUFFER_LOAD_I16_S, CoreOps.BUFFER_LOAD_I32, CoreOps.BUFFER_LOAD_I64,
                 CoreOps.BUFFER_STORE_I8, CoreOps.BUFFER_STORE_I16, CoreOps.BUFFER_STORE_I32,
                 CoreOps.BUFFER_STORE_I64, CoreOps.BUFFER_ALLOC, CoreOps.BUFFER_CLONE, CoreOps.BUFFER_LENGTH,
                 CoreOps.BUFFER_COPY, CoreOps.BUFFER_COMPARE, CoreOps.BUFFER_FILL_I8, CoreOps.BUFFER_FILL_I16,
                 CoreOps.BUFFER_FILL_I32, CoreOps.BUFFER_FILL_I64,
                 CoreOps.BUFFER_HASH -> InterpreterOps.bufferOp(env.stack.context(), c, pc, r, refs);
            default -> {
                if (op < 0xE0) {
                    throw new StatusException(StatusCode.INTERNAL, "compiled code has no generic form of opcode 0x"
                            + Integer.toHexString(op));
                }
                InstructionExtension ext = m.extensions[op - 0xE0];
                if (env.mach == null) {
                    env.mach = new Machine();
                }
                env.mach.bind(m, env.st, c, pc + 2, base, r, refs);
                ext.execute(c[pc + 1] & 0xFF, env.mach);
            }
        }
    }

    private static void globalDirect(Env env, byte[] c, int pc, int[] r) {
        int offset = Interpreter.i32(c, pc + 1);
        int reg = Interpreter.u16(c, pc + 5);
        switch (c[pc] & 0xFF) {
            case CoreOps.GLOBAL_LOAD_I32 -> r[reg] = (int) Interpreter.I32.get(env.st.rwdata, offset);
            case CoreOps.GLOBAL_STORE_I32 -> Interpreter.I32.set(env.st.rwdata, offset, r[reg]);
            case CoreOps.GLOBAL_LOAD_I64 -> Interpreter.wl(r, reg, (long) Interpreter.I64.get(env.st.rwdata, offset));
            default -> Interpreter.I64.set(env.st.rwdata, offset, Interpreter.rl(r, reg));
        }
    }

    // vm.buffer access from generated code: little-endian unaligned layouts (constants C2 folds) and
    // the bounds checks of VmBuffer's element accessors, answered without throwing.
    static final ValueLayout.OfByte L_I8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort L_I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt L_I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong L_I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat L_F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfDouble L_F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * The byte offset of element {@code index} of size {@code 1 << shift} if VmBuffer's load would
     * accept it, else -1 (the caller then calls the VmBuffer method, which throws its error).
     */
    static long offset(VmBuffer b, long index, int shift) {
        return index >= 0 && index <= (b.length() >> shift) - 1 ? index << shift : -1;
    }

    /** As {@link #offset}, for a store: -1 also if the buffer is not mutable. */
    static long offsetRw(VmBuffer b, long index, int shift) {
        return b.isMutable() ? offset(b, index, shift) : -1;
    }

    /**
     * A loop's buffer cache ({@link BufferLoops}): the memory of {@code v} if it is a vm.buffer
     * (an empty segment once it is released), else an empty segment, so every access through
     * the cache takes the checked path, which throws the interpreter's error.
     */
    static MemorySegment cachedSegment(RefObject v) {
        return v instanceof VmBuffer b ? b.segment() : MemorySegment.NULL;
    }

    /**
     * The class of native memory segments, which every pooled or arena-allocated buffer's memory
     * is (a mapped file's segment is a subclass). A loop's buffer cache tests its segment against
     * it (else it caches no bytes): after that test C2 knows the segment is native memory, so an
     * access in the loop needs no type guard, its base is a constant null (raw memory, which C2
     * keeps apart from object fields) and the segment's checks can leave the loop.
     */
    static final Class<?> NATIVE_SEGMENT = MemorySegment.NULL.getClass();

    /** The bytes of {@link #cachedSegment} a store may write: {@code readable}, or 0 unless {@code v} is mutable. */
    static long writableBytes(RefObject v, long readable) {
        return v instanceof VmBuffer b && b.isMutable() ? readable : 0;
    }

    // Inline-op helpers (exactly the interpreter's and ExtF32/ExtF64's formulas).

    static int minU32(int a, int b) {
        return Integer.compareUnsigned(b, a) < 0 ? b : a;
    }

    static int maxU32(int a, int b) {
        return Integer.compareUnsigned(a, b) < 0 ? b : a;
    }

    static long minU64(long a, long b) {
        return Long.compareUnsigned(b, a) < 0 ? b : a;
    }

    static long maxU64(long a, long b) {
        return Long.compareUnsigned(a, b) < 0 ? b : a;
    }

    static int cmpLtU32(int a, int b) {
        return Integer.compareUnsigned(a, b) < 0 ? 1 : 0;
    }

    static int cmpLtU64(long a, long b) {
        return Long.compareUnsigned(a, b) < 0 ? 1 : 0;
    }

    static int b(boolean v) {
        return v ? 1 : 0;
    }

    static int f32(float v) {
        return Float.floatToRawIntBits(v);
    }

    static float f32(int bits) {
        return Float.intBitsToFloat(bits);
    }

    static long f64(double v) {
        return Double.doubleToRawLongBits(v);
    }

    static double f64(long bits) {
        return Double.longBitsToDouble(bits);
    }

    static float minF32(float l, float r) {
        return r < l ? r : l;
    }

    static float maxF32(float l, float r) {
        return l < r ? r : l;
    }

    static double minF64(double l, double r) {
        return r < l ? r : l;
    }

    static double maxF64(double l, double r) {
        return l < r ? r : l;
    }

    static float fmaF32(float a, float b, float c) {
        return a * b + c;
    }

    static double fmaF64(double a, double b, double c) {
        return a * b + c;
    }

    static float sqrtF32(float x) {
        return (float) Math.sqrt(x);
    }

    /** IREE's float compares: kind 0 eq, 1 ne, 2 lt, 3 lte; ordered, or unordered (true on NaN). */
    static int cmpF(double l, double r, int kind, boolean unorderedForm) {
        boolean unordered = unorderedForm && (Double.isNaN(l) || Double.isNaN(r));
        boolean v = switch (kind) {
            case 0 -> l == r;
            case 1 -> l != r;
            case 2 -> l < r;
            default -> l <= r;
        };
        return unordered || v ? 1 : 0;
    }
}
