package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;
import static dev.ortho.vm.bytecode.Compiler.CD_BUFFER;
import static dev.ortho.vm.bytecode.Compiler.CD_CALLBUFFER;
import static dev.ortho.vm.bytecode.Compiler.CD_ENV;
import static dev.ortho.vm.bytecode.Compiler.CD_FUNCTION;
import static dev.ortho.vm.bytecode.Compiler.CD_REF;
import static dev.ortho.vm.bytecode.Compiler.CD_REF_ARRAY;
import static dev.ortho.vm.bytecode.Compiler.CD_STATE;
import static dev.ortho.vm.bytecode.Compiler.CD_STATUS;
import static dev.ortho.vm.bytecode.Compiler.CD_SUPPORT;
import static dev.ortho.vm.bytecode.Interpreter.MOVE_BIT;
import static dev.ortho.vm.bytecode.Interpreter.REF_MASK;
import static dev.ortho.vm.bytecode.Interpreter.TYPE_BIT;
import static java.lang.constant.ConstantDescs.CD_boolean;
import static java.lang.constant.ConstantDescs.CD_byte;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_short;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.ortho.vm.bytecode.Compiler.Acc;
import dev.ortho.vm.bytecode.Compiler.Insn;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.internal.isa.ExtF32Ops;
import dev.ortho.vm.internal.isa.ExtF64Ops;
import dev.ortho.vm.spi.InstructionExtension;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.TypeKind;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Emits one compiled function's JVM method for {@link Compiler}.
 *
 * <p>Registers: if {@link RegisterWebs} types every value of the function, each web of the i32
 * bank is one JVM local of its type ({@code int}, {@code float}, {@code long}, {@code double}) and
 * bits move between types only where the code reinterprets them (bitcasts, calls, ops run by the
 * interpreter's helpers). Otherwise each i32 register is an {@code int} local and a 64-bit
 * register the interpreter's aligned pair. Ref registers are {@code RefObject} locals with the
 * interpreter's retain/move/release rules.
 *
 * <p>{@code vm.buffer} loads and stores check the index against the buffer's length (and its
 * mutability) inline and then access the buffer's {@code MemorySegment} from the generated code
 * itself, so each access site gets its own receiver profile; an access that fails the check
 * calls the {@link dev.ortho.vm.VmBuffer} method, which throws the interpreter's error.
 */
final class FunctionEmitter {
    private static final ClassDesc CD_SEGMENT = ClassDesc.of("java.lang.foreign.MemorySegment");
    private static final ClassDesc CD_MATH = ClassDesc.of("java.lang.Math");

    /** A vm.buffer element type: VmBuffer method suffix, log2 size, value type and the layout constant. */
    private enum Elem {
        I8("I8", 0, CD_byte, "OfByte"),
        I16("I16", 1, CD_short, "OfShort"),
        I32("I32", 2, CD_int, "OfInt"),
        I64("I64", 3, CD_long, "OfLong"),
        F32("F32", 2, CD_float, "OfFloat"),
        F64("F64", 3, CD_double, "OfDouble");

        final String suffix;
        final int shift;
        final ClassDesc value;
        final ClassDesc layout;

        Elem(String suffix, int shift, ClassDesc value, String layout) {
            this.suffix = suffix;
            this.shift = shift;
            this.value = value;
            this.layout = ClassDesc.of("java.lang.foreign.ValueLayout$" + layout);
        }
    }

    /** The ExtF32/ExtF64 ops emitted inline, one shape for both widths. */
    private enum FOp {
        ZERO, CONST, SELECT, ADD, SUB, MUL, DIV, MIN, MAX, FMA, ABS, NEG, SQRT, FROM_SI32, EQ_O, EQ_U, NE_O, NE_U,
        LT_O, LT_U, LTE_O, LTE_U, NAN, LOAD, STORE, BITCAST, EXTEND, TRUNCATE
    }

    private final Compiler compiler;
    private final BytecodeModule m;
    private final int f;
    private final CodeBuilder cb;
    private final int base;
    private final List<Insn> insns;
    private final int pcLocal;
    private final int rArray;
    private final int refArray;
    private final int tmpRef;
    private final int tmpBuf;
    private final int tmpCall;
    private final int tmpIdx;
    private final int tmpOff;
    private final int i0;
    private final int r0;
    /** Typed webs, or null for the slot representation. */
    private final RegisterWebs webs;
    private final int[] webLocal;
    private final BitSet used32 = new BitSet();
    private final BitSet usedRef = new BitSet();
    private final Map<Integer, Label> blocks = new HashMap<>();
    private boolean scratch;

    FunctionEmitter(Compiler compiler, int f, CodeBuilder cb, RegisterWebs webs) {
        this.compiler = compiler;
        this.m = compiler.m;
        this.f = f;
        this.cb = cb;
        this.base = m.fnBase[f];
        this.insns = compiler.code.get(f);
        this.webs = webs;
        int slot = 1;
        for (char t : m.fnCconv[f].arguments().types().toCharArray()) {
            slot += t == 'I' || t == 'F' ? 2 : 1;
        }
        this.pcLocal = slot++;
        this.rArray = slot++;
        this.refArray = slot++;
        this.tmpRef = slot++;
        this.tmpBuf = slot++;
        this.tmpCall = slot++;
        this.tmpIdx = slot;
        slot += 2;
        this.tmpOff = slot;
        slot += 2;
        this.i0 = slot;
        if (webs == null) {
            webLocal = null;
            slot += m.fnI32[f];
        } else {
            webLocal = new int[webs.count];
            for (int w = 0; w < webs.count; w++) {
                webLocal[w] = slot;
                slot += webs.repr[w] == 'I' || webs.repr[w] == 'F' ? 2 : 1;
            }
        }
        this.r0 = slot;
        if (r0 + m.fnRef[f] > 65000) {
            throw new Compiler.MethodTooLarge(f, "too many registers for JVM locals");
        }
        for (Insn i : insns) {
            used32.or(i.touch32());
            usedRef.or(i.touchRef());
            if (i.opcode() == CoreOps.BLOCK) {
                blocks.put(i.pc(), cb.newLabel());
            } else if (!inline(i)) {
                scratch = true;
            }
        }
    }

    void emit() {
        prologue();
        Label start = cb.newLabel();
        Label end = cb.newLabel();
        Label handler = cb.newLabel();
        cb.labelBinding(start);
        for (Insn i : insns) {
            op(i);
        }
        // A vm.fail with an OK status in the last block falls through to here.
        cb.iconst_0().pop();
        cb.labelBinding(end);
        cb.invokestatic(CD_SUPPORT, "pastEnd", MethodTypeDesc.of(CD_STATUS)).athrow();
        cb.labelBinding(handler);
        // [Throwable] -> trap(env, t, pc, fn); release the frame's refs as the unwinder would.
        cb.astore(tmpRef);
        for (int k = usedRef.nextSetBit(0); k >= 0; k = usedRef.nextSetBit(k + 1)) {
            cb.aload(r0 + k);
            release();
        }
        cb.aload(0).aload(tmpRef).iload(pcLocal).loadConstant(f);
        cb.invokestatic(CD_SUPPORT, "trap", MethodTypeDesc.of(ConstantDescs.CD_Throwable, CD_ENV,
                ConstantDescs.CD_Throwable, CD_int, CD_int));
        cb.athrow();
        cb.exceptionCatchAll(start, end, handler);
    }

    /** Zeroed registers (as a fresh frame), then the arguments. */
    private void prologue() {
        String args = m.fnCconv[f].arguments().types();
        int[] argSlot = new int[args.length()];
        int slot = 1;
        for (int k = 0; k < args.length(); k++) {
            argSlot[k] = slot;
            slot += args.charAt(k) == 'I' || args.charAt(k) == 'F' ? 2 : 1;
        }
        if (webs == null) {
            for (int k = used32.nextSetBit(0); k >= 0; k = used32.nextSetBit(k + 1)) {
                cb.iconst_0().istore(i0 + k);
            }
        } else {
            for (int w = 0; w < webs.count; w++) {
                char r = webs.repr[w];
                int a = webs.arg[w];
                if (a >= 0) {
                    boolean wide = r == 'I' || r == 'F';
                    if (wide) {
                        cb.lload(argSlot[a]);
                    } else {
                        cb.iload(argSlot[a]);
                    }
                    convert(wide ? 'I' : 'i', r);
                } else {
                    switch (r) {
                        case 'i' -> cb.iconst_0();
                        case 'f' -> cb.fconst_0();
                        case 'I' -> cb.lconst_0();
                        default -> cb.dconst_0();
                    }
                }
                storeLocal(r, webLocal[w]);
            }
        }
        for (int k = usedRef.nextSetBit(0); k >= 0; k = usedRef.nextSetBit(k + 1)) {
            cb.aconst_null().astore(r0 + k);
        }
        cb.iconst_0().istore(pcLocal);
        if (scratch) {
            cb.loadConstant(m.fnI32[f]).newarray(TypeKind.INT).astore(rArray);
            cb.loadConstant(m.fnRef[f]).anewarray(CD_REF).astore(refArray);
        }
        int ri = 0;
        int rr = 0;
        for (int k = 0; k < args.length(); k++) {
            switch (args.charAt(k)) {
                case 'I', 'F' -> {
                    ri += ri & 1;
                    if (webs == null) {
                        cb.lload(argSlot[k]);
                        st64(ri);
                    }
                    ri += 2;
                }
                case 'r' -> {
                    cb.aload(argSlot[k]).astore(r0 + rr);
                    usedRef.set(rr);
                    rr++;
                }
                default -> {
                    if (webs == null) {
                        cb.iload(argSlot[k]).istore(i0 + ri);
                    }
                    ri++;
                }
            }
        }
    }

    // ---------------------------------------------------------------- register access

    /** The JVM type a register access lives in: {@code i f I F}. */
    private char reprOf(Acc a) {
        return webs == null ? (a.wide() ? 'I' : 'i') : webs.repr[webs.webOf[a.id()]];
    }

    /** Pushes the value of {@code a} as {@code want} ({@code i f I F} of the access's width). */
    private void ld(Acc a, char want) {
        char r = reprOf(a);
        if (webs == null) {
            if (a.wide()) {
                ld64(a.slot());
            } else {
                cb.iload(i0 + a.slot());
            }
        } else {
            int l = webLocal[webs.webOf[a.id()]];
            switch (r) {
                case 'i' -> cb.iload(l);
                case 'f' -> cb.fload(l);
                case 'I' -> cb.lload(l);
                default -> cb.dload(l);
            }
        }
        convert(r, want);
    }

    /** [value of type {@code have}] -> register access {@code a}. */
    private void st(Acc a, char have) {
        char r = reprOf(a);
        convert(have, r);
        if (webs == null) {
            if (a.wide()) {
                st64(a.slot());
            } else {
                cb.istore(i0 + a.slot());
            }
        } else {
            storeLocal(r, webLocal[webs.webOf[a.id()]]);
        }
    }

    private void storeLocal(char r, int l) {
        switch (r) {
            case 'i' -> cb.istore(l);
            case 'f' -> cb.fstore(l);
            case 'I' -> cb.lstore(l);
            default -> cb.dstore(l);
        }
    }

    /** Reinterprets the bits on the stack: int and float, long and double. */
    private void convert(char from, char to) {
        if (from == to) {
            return;
        }
        switch (from) {
            case 'i' -> cb.invokestatic(ConstantDescs.CD_Float, "intBitsToFloat", MethodTypeDesc.of(CD_float, CD_int));
            case 'f' -> cb.invokestatic(ConstantDescs.CD_Float, "floatToRawIntBits",
                    MethodTypeDesc.of(CD_int, CD_float));
            case 'I' -> cb.invokestatic(ConstantDescs.CD_Double, "longBitsToDouble",
                    MethodTypeDesc.of(CD_double, CD_long));
            default -> cb.invokestatic(ConstantDescs.CD_Double, "doubleToRawLongBits",
                    MethodTypeDesc.of(CD_long, CD_double));
        }
    }

    /** Bits of an access: {@code i} or {@code I} by width. */
    private static char bits(Acc a) {
        return a.wide() ? 'I' : 'i';
    }

    private void ld64(int reg) {
        cb.iload(i0 + reg + 1).i2l().bipush(32).lshl();
        cb.iload(i0 + reg).i2l().loadConstant(0xFFFF_FFFFL).land().lor();
    }

    private void st64(int reg) {
        cb.dup2().l2i().istore(i0 + reg);
        cb.bipush(32).lushr().l2i().istore(i0 + reg + 1);
    }

    private int ref(int reg) {
        return r0 + (reg & REF_MASK);
    }

    /** [v] -> ref register d (the old value released after the store). */
    private void assignRef(int d) {
        cb.aload(ref(d)).swap().astore(ref(d));
        release();
    }

    private void release() {
        cb.invokestatic(CD_SUPPORT, "release", MethodTypeDesc.of(CD_void, CD_REF));
    }

    /** Pushes the value of ref register {@code s} with one count: moved out of it, or retained. */
    private void takeRef(int s) {
        cb.aload(ref(s));
        if ((s & MOVE_BIT) != 0) {
            cb.aconst_null().astore(ref(s));
        } else {
            cb.invokestatic(CD_SUPPORT, "retain", MethodTypeDesc.of(CD_REF, CD_REF));
        }
    }

    /** IREE's retain_or_move between two ref registers of this frame. */
    private void retainOrMove(int s, int d) {
        if ((s & MOVE_BIT) != 0 && (s & REF_MASK) == (d & REF_MASK)) {
            return;
        }
        takeRef(s);
        assignRef(d);
    }

    /** A branch operand list, in order; a wide access moves a register pair at once. */
    private void remap(int[] pairs, Acc[] acc) {
        for (int k = 0; k < pairs.length; k += 2) {
            int s = pairs[k];
            if ((s & TYPE_BIT) != 0) {
                retainOrMove(s, pairs[k + 1]);
            } else if (acc[k] != null) {
                char r = reprOf(acc[k + 1]);
                ld(acc[k], r);
                st(acc[k + 1], r);
            }
        }
    }

    private void branchTo(int target, int[] pairs, Acc[] acc) {
        remap(pairs, acc);
        Label l = blocks.get(target);
        if (l == null) {
            throw new IllegalStateException("branch target " + target + " is not a block");
        }
        cb.goto_(l);
    }

    private void setPc(int pc) {
        cb.loadConstant(pc).istore(pcLocal);
    }

    /** [condition operands] -> 0/1 into the i32 access {@code res}, for a compare-and-branch opcode. */
    private void bool(Opcode ifTrue, Acc res) {
        Label t = cb.newLabel();
        Label e = cb.newLabel();
        cb.branch(ifTrue, t);
        cb.iconst_0().goto_(e);
        cb.labelBinding(t);
        cb.iconst_1();
        cb.labelBinding(e);
        st(res, 'i');
    }

    private void support(String name, ClassDesc ret, ClassDesc... params) {
        cb.invokestatic(CD_SUPPORT, name, MethodTypeDesc.of(ret, params));
    }

    // ---------------------------------------------------------------- ops

    private boolean inline(Insn i) {
        if (i.opcode() < 0xE0) {
            return switch (i.opcode()) {
                case CoreOps.CONST_I32_ZERO, CoreOps.CONST_I32, CoreOps.CONST_I64_ZERO, CoreOps.CONST_I64,
                     CoreOps.CONST_REF_ZERO, CoreOps.DISCARD_REFS, CoreOps.ASSIGN_REF, CoreOps.SELECT_I32,
                     CoreOps.SELECT_I64, CoreOps.ADD_I32, CoreOps.SUB_I32, CoreOps.MUL_I32, CoreOps.AND_I32,
                     CoreOps.OR_I32, CoreOps.XOR_I32, CoreOps.SHL_I32, CoreOps.SHR_I32_S, CoreOps.SHR_I32_U,
                     CoreOps.DIV_I32_S, CoreOps.DIV_I32_U, CoreOps.REM_I32_S, CoreOps.REM_I32_U, CoreOps.FMAI32,
                     CoreOps.NOT_I32, CoreOps.CTLZ_I32, CoreOps.ABS_I32, CoreOps.MIN_I32_S, CoreOps.MIN_I32_U,
                     CoreOps.MAX_I32_S, CoreOps.MAX_I32_U, CoreOps.TRUNC_I32_I8, CoreOps.TRUNC_I32_I16,
                     CoreOps.EXT_I8_I32_S, CoreOps.EXT_I8_I32_U, CoreOps.EXT_I16_I32_S, CoreOps.EXT_I16_I32_U,
                     CoreOps.CMP_EQI32, CoreOps.CMP_NEI32, CoreOps.CMP_LTI32_S, CoreOps.CMP_LTI32_U,
                     CoreOps.CMP_NZI32, CoreOps.ADD_I64, CoreOps.SUB_I64, CoreOps.MUL_I64, CoreOps.AND_I64,
                     CoreOps.OR_I64, CoreOps.XOR_I64, CoreOps.SHL_I64, CoreOps.SHR_I64_S, CoreOps.SHR_I64_U,
                     CoreOps.DIV_I64_S, CoreOps.DIV_I64_U, CoreOps.REM_I64_S, CoreOps.REM_I64_U, CoreOps.FMAI64,
                     CoreOps.NOT_I64, CoreOps.CTLZ_I64, CoreOps.ABS_I64, CoreOps.MIN_I64_S, CoreOps.MIN_I64_U,
                     CoreOps.MAX_I64_S, CoreOps.MAX_I64_U,
                     CoreOps.CMP_EQI64, CoreOps.CMP_NEI64, CoreOps.CMP_LTI64_S, CoreOps.CMP_LTI64_U,
                     CoreOps.CMP_NZI64, CoreOps.EXT_I32_I64_S, CoreOps.EXT_I32_I64_U, CoreOps.TRUNC_I64_I32,
                     CoreOps.CMP_EQREF, CoreOps.CMP_NEREF, CoreOps.CMP_NZREF, CoreOps.BLOCK, CoreOps.BRANCH,
                     CoreOps.COND_BRANCH, CoreOps.BRANCH_TABLE, CoreOps.CALL, CoreOps.RETURN, CoreOps.FAIL,
                     CoreOps.TRACE, CoreOps.PRINT, CoreOps.IMPORT_RESOLVED, CoreOps.BUFFER_LOAD_I8_U,
                     CoreOps.BUFFER_LOAD_I8_S, CoreOps.BUFFER_LOAD_I16_U, CoreOps.BUFFER_LOAD_I16_S,
                     CoreOps.BUFFER_LOAD_I32, CoreOps.BUFFER_LOAD_I64, CoreOps.BUFFER_STORE_I8,
                     CoreOps.BUFFER_STORE_I16, CoreOps.BUFFER_STORE_I32, CoreOps.BUFFER_STORE_I64 -> true;
                default -> false;
            };
        }
        return floatOp(i) != null;
    }

    /** The inline float op of an ExtF32/ExtF64 instruction, or null. */
    private FOp floatOp(Insn i) {
        InstructionExtension ext = m.extensions[i.opcode() - 0xE0];
        if (ext instanceof ExtF32Extension) {
            return switch (i.extOpcode()) {
                case ExtF32Ops.CONST_F32_ZERO -> FOp.ZERO;
                case ExtF32Ops.CONST_F32 -> FOp.CONST;
                case ExtF32Ops.SELECT_F32 -> FOp.SELECT;
                case ExtF32Ops.ADD_F32 -> FOp.ADD;
                case ExtF32Ops.SUB_F32 -> FOp.SUB;
                case ExtF32Ops.MUL_F32 -> FOp.MUL;
                case ExtF32Ops.DIV_F32 -> FOp.DIV;
                case ExtF32Ops.MIN_F32 -> FOp.MIN;
                case ExtF32Ops.MAX_F32 -> FOp.MAX;
                case ExtF32Ops.FMAF32 -> FOp.FMA;
                case ExtF32Ops.ABS_F32 -> FOp.ABS;
                case ExtF32Ops.NEG_F32 -> FOp.NEG;
                case ExtF32Ops.SQRT_F32 -> FOp.SQRT;
                case ExtF32Ops.CAST_SI32_F32 -> FOp.FROM_SI32;
                case ExtF32Ops.BITCAST_I32_F32, ExtF32Ops.BITCAST_F32_I32 -> FOp.BITCAST;
                case ExtF32Ops.CMP_EQF32_O -> FOp.EQ_O;
                case ExtF32Ops.CMP_EQF32_U -> FOp.EQ_U;
                case ExtF32Ops.CMP_NEF32_O -> FOp.NE_O;
                case ExtF32Ops.CMP_NEF32_U -> FOp.NE_U;
                case ExtF32Ops.CMP_LTF32_O -> FOp.LT_O;
                case ExtF32Ops.CMP_LTF32_U -> FOp.LT_U;
                case ExtF32Ops.CMP_LTEF32_O -> FOp.LTE_O;
                case ExtF32Ops.CMP_LTEF32_U -> FOp.LTE_U;
                case ExtF32Ops.CMP_NA_NF32 -> FOp.NAN;
                case ExtF32Ops.BUFFER_LOAD_F32 -> FOp.LOAD;
                case ExtF32Ops.BUFFER_STORE_F32 -> FOp.STORE;
                default -> null;
            };
        }
        if (ext instanceof ExtF64Extension) {
            return switch (i.extOpcode()) {
                case ExtF64Ops.CONST_F64_ZERO -> FOp.ZERO;
                case ExtF64Ops.CONST_F64 -> FOp.CONST;
                case ExtF64Ops.SELECT_F64 -> FOp.SELECT;
                case ExtF64Ops.ADD_F64 -> FOp.ADD;
                case ExtF64Ops.SUB_F64 -> FOp.SUB;
                case ExtF64Ops.MUL_F64 -> FOp.MUL;
                case ExtF64Ops.DIV_F64 -> FOp.DIV;
                case ExtF64Ops.MIN_F64 -> FOp.MIN;
                case ExtF64Ops.MAX_F64 -> FOp.MAX;
                case ExtF64Ops.FMAF64 -> FOp.FMA;
                case ExtF64Ops.ABS_F64 -> FOp.ABS;
                case ExtF64Ops.NEG_F64 -> FOp.NEG;
                case ExtF64Ops.SQRT_F64 -> FOp.SQRT;
                case ExtF64Ops.CAST_SI32_F64 -> FOp.FROM_SI32;
                case ExtF64Ops.EXT_F32_F64 -> FOp.EXTEND;
                case ExtF64Ops.TRUNC_F64_F32 -> FOp.TRUNCATE;
                case ExtF64Ops.CMP_EQF64_O -> FOp.EQ_O;
                case ExtF64Ops.CMP_EQF64_U -> FOp.EQ_U;
                case ExtF64Ops.CMP_NEF64_O -> FOp.NE_O;
                case ExtF64Ops.CMP_NEF64_U -> FOp.NE_U;
                case ExtF64Ops.CMP_LTF64_O -> FOp.LT_O;
                case ExtF64Ops.CMP_LTF64_U -> FOp.LT_U;
                case ExtF64Ops.CMP_LTEF64_O -> FOp.LTE_O;
                case ExtF64Ops.CMP_LTEF64_U -> FOp.LTE_U;
                case ExtF64Ops.CMP_NA_NF64 -> FOp.NAN;
                case ExtF64Ops.BUFFER_LOAD_F64 -> FOp.LOAD;
                case ExtF64Ops.BUFFER_STORE_F64 -> FOp.STORE;
                default -> null;
            };
        }
        return null;
    }

    private void op(Insn i) {
        if (!inline(i)) {
            generic(i);
        } else if (i.opcode() >= 0xE0) {
            floating(i, floatOp(i), m.extensions[i.opcode() - 0xE0] instanceof ExtF64Extension);
        } else {
            core(i);
        }
    }

    /** Spills what the op reads, runs the interpreter's helper, reloads what it writes. */
    private void generic(Insn i) {
        setPc(i.pc());
        if (webs == null) {
            for (int k = i.touch32().nextSetBit(0); k >= 0; k = i.touch32().nextSetBit(k + 1)) {
                cb.aload(rArray).loadConstant(k).iload(i0 + k).iastore();
            }
        } else {
            for (Acc[] list : i.acc()) {
                for (Acc a : list == null ? new Acc[0] : list) {
                    if (a != null && !a.write()) {
                        if (a.wide()) {
                            ld(a, 'I');
                            cb.lstore(tmpOff);
                            cb.aload(rArray).loadConstant(a.slot()).lload(tmpOff).l2i().iastore();
                            cb.aload(rArray).loadConstant(a.slot() + 1).lload(tmpOff).bipush(32).lushr().l2i()
                                    .iastore();
                        } else {
                            cb.aload(rArray).loadConstant(a.slot());
                            ld(a, 'i');
                            cb.iastore();
                        }
                    }
                }
            }
        }
        for (int k = i.touchRef().nextSetBit(0); k >= 0; k = i.touchRef().nextSetBit(k + 1)) {
            cb.aload(refArray).loadConstant(k).aload(r0 + k).aastore();
        }
        cb.aload(0).loadConstant(base + i.pc()).loadConstant(base).aload(rArray).aload(refArray);
        cb.invokestatic(CD_SUPPORT, "op", MethodTypeDesc.of(CD_void, CD_ENV, CD_int, CD_int,
                CD_int.arrayType(), CD_REF_ARRAY));
        if (webs == null) {
            for (int k = i.touch32().nextSetBit(0); k >= 0; k = i.touch32().nextSetBit(k + 1)) {
                cb.aload(rArray).loadConstant(k).iaload().istore(i0 + k);
            }
        } else {
            for (Acc[] list : i.acc()) {
                for (Acc a : list == null ? new Acc[0] : list) {
                    if (a != null && a.write()) {
                        if (a.wide()) {
                            cb.aload(rArray).loadConstant(a.slot() + 1).iaload().i2l().bipush(32).lshl();
                            cb.aload(rArray).loadConstant(a.slot()).iaload().i2l().loadConstant(0xFFFF_FFFFL)
                                    .land().lor();
                            st(a, 'I');
                        } else {
                            cb.aload(rArray).loadConstant(a.slot()).iaload();
                            st(a, 'i');
                        }
                    }
                }
            }
        }
        for (int k = i.touchRef().nextSetBit(0); k >= 0; k = i.touchRef().nextSetBit(k + 1)) {
            cb.aload(refArray).loadConstant(k).aaload().astore(r0 + k);
            cb.aload(refArray).loadConstant(k).aconst_null().aastore();
        }
    }

    /** {@code a op b -> result} on accesses 0, 1 -> 2 of type {@code t}. */
    private void binary(Insn i, char t, Opcode op) {
        ld(i.a(0), t);
        ld(i.a(1), t);
        cb.with(OperatorInstruction.of(op));
        st(i.a(2), t);
    }

    /** {@code helper(a, b) -> result} on accesses 0, 1 -> 2 of type {@code t} (i or I). */
    private void binaryCall(Insn i, char t, ClassDesc owner, String name) {
        ClassDesc type = t == 'I' ? CD_long : CD_int;
        ld(i.a(0), t);
        ld(i.a(1), t);
        cb.invokestatic(owner, name, MethodTypeDesc.of(type, type, type));
        st(i.a(2), t);
    }

    private void shift64(Insn i, Opcode op) {
        ld(i.a(0), 'I');
        ld(i.a(1), 'i');
        cb.with(OperatorInstruction.of(op));
        st(i.a(2), 'I');
    }

    /**
     * A two-operand integer op whose i32 and i64 forms differ only in width: a JVM operator, a
     * compare-and-branch opcode ({@code compare}), or a static method; {@code traps} if it can
     * throw (division).
     */
    private record IntForm(boolean wide, Opcode op, boolean compare, ClassDesc owner, String method, boolean traps) {
    }

    private static final Map<Integer, IntForm> INTEGER = new HashMap<>();

    private static void operator(int op32, int op64, Opcode jvm32, Opcode jvm64, boolean traps) {
        INTEGER.put(op32, new IntForm(false, jvm32, false, null, null, traps));
        INTEGER.put(op64, new IntForm(true, jvm64, false, null, null, traps));
    }

    private static void compare(int op32, int op64, Opcode jvm32, Opcode jvm64) {
        INTEGER.put(op32, new IntForm(false, jvm32, true, null, null, false));
        INTEGER.put(op64, new IntForm(true, jvm64, true, null, null, false));
    }

    private static void method(int op32, int op64, ClassDesc owner32, ClassDesc owner64, String method32,
                               String method64, boolean traps) {
        INTEGER.put(op32, new IntForm(false, null, false, owner32, method32, traps));
        INTEGER.put(op64, new IntForm(true, null, false, owner64, method64, traps));
    }

    static {
        ClassDesc integer = ConstantDescs.CD_Integer;
        ClassDesc lng = ConstantDescs.CD_Long;
        operator(CoreOps.ADD_I32, CoreOps.ADD_I64, Opcode.IADD, Opcode.LADD, false);
        operator(CoreOps.SUB_I32, CoreOps.SUB_I64, Opcode.ISUB, Opcode.LSUB, false);
        operator(CoreOps.MUL_I32, CoreOps.MUL_I64, Opcode.IMUL, Opcode.LMUL, false);
        operator(CoreOps.AND_I32, CoreOps.AND_I64, Opcode.IAND, Opcode.LAND, false);
        operator(CoreOps.OR_I32, CoreOps.OR_I64, Opcode.IOR, Opcode.LOR, false);
        operator(CoreOps.XOR_I32, CoreOps.XOR_I64, Opcode.IXOR, Opcode.LXOR, false);
        operator(CoreOps.DIV_I32_S, CoreOps.DIV_I64_S, Opcode.IDIV, Opcode.LDIV, true);
        operator(CoreOps.REM_I32_S, CoreOps.REM_I64_S, Opcode.IREM, Opcode.LREM, true);
        method(CoreOps.DIV_I32_U, CoreOps.DIV_I64_U, integer, lng, "divideUnsigned", "divideUnsigned", true);
        method(CoreOps.REM_I32_U, CoreOps.REM_I64_U, integer, lng, "remainderUnsigned", "remainderUnsigned", true);
        method(CoreOps.MIN_I32_S, CoreOps.MIN_I64_S, CD_MATH, CD_MATH, "min", "min", false);
        method(CoreOps.MAX_I32_S, CoreOps.MAX_I64_S, CD_MATH, CD_MATH, "max", "max", false);
        method(CoreOps.MIN_I32_U, CoreOps.MIN_I64_U, CD_SUPPORT, CD_SUPPORT, "minU32", "minU64", false);
        method(CoreOps.MAX_I32_U, CoreOps.MAX_I64_U, CD_SUPPORT, CD_SUPPORT, "maxU32", "maxU64", false);
        compare(CoreOps.CMP_EQI32, CoreOps.CMP_EQI64, Opcode.IF_ICMPEQ, Opcode.IFEQ);
        compare(CoreOps.CMP_NEI32, CoreOps.CMP_NEI64, Opcode.IF_ICMPNE, Opcode.IFNE);
        compare(CoreOps.CMP_LTI32_S, CoreOps.CMP_LTI64_S, Opcode.IF_ICMPLT, Opcode.IFLT);
    }

    /** {@code lhs op rhs -> result} on accesses 0, 1 -> 2 for an op of {@link #INTEGER}. */
    private void integer(Insn i, IntForm form) {
        char t = form.wide() ? 'I' : 'i';
        if (form.traps()) {
            setPc(i.pc());
        }
        ld(i.a(0), t);
        ld(i.a(1), t);
        if (form.compare()) {
            if (form.wide()) {
                cb.lcmp();
            }
            bool(form.op(), i.a(2));
            return;
        }
        if (form.op() != null) {
            cb.with(OperatorInstruction.of(form.op()));
        } else {
            ClassDesc type = form.wide() ? CD_long : CD_int;
            cb.invokestatic(form.owner(), form.method(), MethodTypeDesc.of(type, type, type));
        }
        st(i.a(2), t);
    }

    private void core(Insn i) {
        ClassDesc integer = ConstantDescs.CD_Integer;
        ClassDesc lng = ConstantDescs.CD_Long;
        IntForm form = INTEGER.get(i.opcode());
        if (form != null) {
            integer(i, form);
            return;
        }
        switch (i.opcode()) {
            case CoreOps.SHL_I32 -> binary(i, 'i', Opcode.ISHL);
            case CoreOps.SHR_I32_S -> binary(i, 'i', Opcode.ISHR);
            case CoreOps.SHR_I32_U -> binary(i, 'i', Opcode.IUSHR);
            case CoreOps.BLOCK -> cb.labelBinding(blocks.get(i.pc()));
            case CoreOps.CONST_I32_ZERO -> {
                cb.iconst_0();
                st(i.a(0), 'i');
            }
            case CoreOps.CONST_I32 -> {
                cb.loadConstant((int) (long) (Long) i.ops().get(0));
                st(i.a(1), 'i');
            }
            case CoreOps.CONST_I64_ZERO -> {
                cb.lconst_0();
                st(i.a(0), 'I');
            }
            case CoreOps.CONST_I64 -> {
                cb.loadConstant((long) (Long) i.ops().get(0));
                st(i.a(1), 'I');
            }
            case CoreOps.CONST_REF_ZERO -> {
                setPc(i.pc());
                cb.aconst_null();
                assignRef(reg(i, 0));
            }
            case CoreOps.DISCARD_REFS -> {
                setPc(i.pc());
                for (int r : (int[]) i.ops().get(0)) {
                    cb.aconst_null();
                    assignRef(r);
                }
            }
            case CoreOps.ASSIGN_REF -> {
                setPc(i.pc());
                retainOrMove(reg(i, 0), reg(i, 1));
            }
            case CoreOps.SELECT_I32 -> select(i, 'i');
            case CoreOps.SELECT_I64 -> select(i, 'I');
            case CoreOps.FMAI32, CoreOps.FMAI64 -> {
                char t = i.opcode() == CoreOps.FMAI32 ? 'i' : 'I';
                ld(i.a(0), t);
                ld(i.a(1), t);
                cb.with(OperatorInstruction.of(t == 'i' ? Opcode.IMUL : Opcode.LMUL));
                ld(i.a(2), t);
                cb.with(OperatorInstruction.of(t == 'i' ? Opcode.IADD : Opcode.LADD));
                st(i.a(3), t);
            }
            case CoreOps.NOT_I32, CoreOps.CTLZ_I32, CoreOps.ABS_I32, CoreOps.TRUNC_I32_I8, CoreOps.TRUNC_I32_I16,
                 CoreOps.EXT_I8_I32_S, CoreOps.EXT_I8_I32_U, CoreOps.EXT_I16_I32_S, CoreOps.EXT_I16_I32_U -> {
                ld(i.a(0), 'i');
                switch (i.opcode()) {
                    case CoreOps.NOT_I32 -> cb.iconst_m1().ixor();
                    case CoreOps.CTLZ_I32 -> cb.invokestatic(integer, "numberOfLeadingZeros",
                            MethodTypeDesc.of(CD_int, CD_int));
                    case CoreOps.ABS_I32 -> cb.invokestatic(CD_MATH, "abs", MethodTypeDesc.of(CD_int, CD_int));
                    case CoreOps.TRUNC_I32_I8, CoreOps.EXT_I8_I32_U -> cb.loadConstant(0xFF).iand();
                    case CoreOps.TRUNC_I32_I16, CoreOps.EXT_I16_I32_U -> cb.loadConstant(0xFFFF).iand();
                    case CoreOps.EXT_I8_I32_S -> cb.i2b();
                    default -> cb.i2s();
                }
                st(i.a(1), 'i');
            }
            case CoreOps.CMP_LTI32_U -> binaryCall(i, 'i', CD_SUPPORT, "cmpLtU32");
            case CoreOps.CMP_NZI32 -> {
                ld(i.a(0), 'i');
                bool(Opcode.IFNE, i.a(1));
            }
            case CoreOps.SHL_I64 -> shift64(i, Opcode.LSHL);
            case CoreOps.SHR_I64_S -> shift64(i, Opcode.LSHR);
            case CoreOps.SHR_I64_U -> shift64(i, Opcode.LUSHR);
            case CoreOps.NOT_I64, CoreOps.CTLZ_I64, CoreOps.ABS_I64 -> {
                ld(i.a(0), 'I');
                switch (i.opcode()) {
                    case CoreOps.NOT_I64 -> cb.loadConstant(-1L).lxor();
                    case CoreOps.CTLZ_I64 -> cb.invokestatic(lng, "numberOfLeadingZeros",
                            MethodTypeDesc.of(CD_int, CD_long)).i2l();
                    default -> cb.invokestatic(CD_MATH, "abs", MethodTypeDesc.of(CD_long, CD_long));
                }
                st(i.a(1), 'I');
            }
            case CoreOps.CMP_LTI64_U -> {
                ld(i.a(0), 'I');
                ld(i.a(1), 'I');
                support("cmpLtU64", CD_int, CD_long, CD_long);
                st(i.a(2), 'i');
            }
            case CoreOps.CMP_NZI64 -> {
                ld(i.a(0), 'I');
                cb.lconst_0().lcmp();
                bool(Opcode.IFNE, i.a(1));
            }
            case CoreOps.EXT_I32_I64_S -> {
                ld(i.a(0), 'i');
                cb.i2l();
                st(i.a(1), 'I');
            }
            case CoreOps.EXT_I32_I64_U -> {
                ld(i.a(0), 'i');
                cb.i2l().loadConstant(0xFFFF_FFFFL).land();
                st(i.a(1), 'I');
            }
            case CoreOps.TRUNC_I64_I32 -> {
                ld(i.a(0), 'I');
                cb.l2i();
                st(i.a(1), 'i');
            }
            case CoreOps.CMP_EQREF, CoreOps.CMP_NEREF -> {
                cb.aload(ref(reg(i, 0))).aload(ref(reg(i, 1)));
                bool(i.opcode() == CoreOps.CMP_EQREF ? Opcode.IF_ACMPEQ : Opcode.IF_ACMPNE, i.a(2));
            }
            case CoreOps.CMP_NZREF -> {
                cb.aload(ref(reg(i, 0)));
                bool(Opcode.IFNONNULL, i.a(1));
            }
            case CoreOps.BRANCH -> {
                setPc(i.pc());
                branchTo((Integer) i.ops().get(0), (int[]) i.ops().get(1), i.acc()[1]);
            }
            case CoreOps.COND_BRANCH -> {
                setPc(i.pc());
                Label fl = cb.newLabel();
                ld(i.a(0), 'i');
                cb.ifeq(fl);
                branchTo((Integer) i.ops().get(1), (int[]) i.ops().get(2), i.acc()[2]);
                cb.labelBinding(fl);
                branchTo((Integer) i.ops().get(3), (int[]) i.ops().get(4), i.acc()[4]);
            }
            case CoreOps.BRANCH_TABLE -> {
                setPc(i.pc());
                int size = (Integer) i.ops().get(3);
                Label dflt = cb.newLabel();
                List<SwitchCase> cases = new ArrayList<>();
                List<Label> labels = new ArrayList<>();
                for (int k = 0; k < size; k++) {
                    Label l = cb.newLabel();
                    labels.add(l);
                    cases.add(SwitchCase.of(k, l));
                }
                if (size > 0) {
                    ld(i.a(0), 'i');
                    cb.tableswitch(0, size - 1, dflt, cases);
                    for (int k = 0; k < size; k++) {
                        cb.labelBinding(labels.get(k));
                        branchTo((Integer) i.ops().get(4 + 2 * k), (int[]) i.ops().get(5 + 2 * k),
                                i.acc()[5 + 2 * k]);
                    }
                }
                cb.labelBinding(dflt);
                branchTo((Integer) i.ops().get(1), (int[]) i.ops().get(2), i.acc()[2]);
            }
            case CoreOps.CALL -> call(i);
            case CoreOps.RETURN -> ret(i);
            case CoreOps.FAIL -> {
                setPc(i.pc());
                int[] s = (int[]) i.ops().get(1);
                String message = printable(new String(m.code, s[0], s[1], StandardCharsets.UTF_8));
                Label ok = cb.newLabel();
                ld(i.a(0), 'i');
                cb.ifeq(ok);
                ld(i.a(0), 'i');
                cb.loadConstant(message);
                cb.invokestatic(CD_SUPPORT, "fail", MethodTypeDesc.of(CD_STATUS, CD_int, ConstantDescs.CD_String));
                cb.athrow();
                cb.labelBinding(ok);
            }
            case CoreOps.TRACE, CoreOps.PRINT -> {
                setPc(i.pc());
                for (int r : (int[]) i.ops().get(1)) {
                    if ((r & (TYPE_BIT | MOVE_BIT)) == (TYPE_BIT | MOVE_BIT)) {
                        cb.aconst_null();
                        assignRef(r);
                    }
                }
            }
            case CoreOps.IMPORT_RESOLVED -> {
                int ordinal = (Integer) i.ops().get(0) & 0x7FFF_FFFF;
                cb.aload(0).getfield(CD_ENV, "st", CD_STATE).getfield(CD_STATE, "imports",
                        CD_FUNCTION.arrayType()).loadConstant(ordinal).aaload();
                bool(Opcode.IFNONNULL, i.a(1));
            }
            case CoreOps.BUFFER_LOAD_I8_U, CoreOps.BUFFER_LOAD_I8_S -> {
                bufferLoad(i, Elem.I8, "source_buffer");
                if (i.opcode() == CoreOps.BUFFER_LOAD_I8_U) {
                    cb.loadConstant(0xFF).iand();
                }
                st(i.a(2), 'i');
            }
            case CoreOps.BUFFER_LOAD_I16_U, CoreOps.BUFFER_LOAD_I16_S -> {
                bufferLoad(i, Elem.I16, "source_buffer");
                if (i.opcode() == CoreOps.BUFFER_LOAD_I16_U) {
                    cb.loadConstant(0xFFFF).iand();
                }
                st(i.a(2), 'i');
            }
            case CoreOps.BUFFER_LOAD_I32 -> {
                bufferLoad(i, Elem.I32, "source_buffer");
                st(i.a(2), 'i');
            }
            case CoreOps.BUFFER_LOAD_I64 -> {
                bufferLoad(i, Elem.I64, "source_buffer");
                st(i.a(2), 'I');
            }
            case CoreOps.BUFFER_STORE_I8 -> bufferStore(i, Elem.I8, "target_buffer", 'i');
            case CoreOps.BUFFER_STORE_I16 -> bufferStore(i, Elem.I16, "target_buffer", 'i');
            case CoreOps.BUFFER_STORE_I32 -> bufferStore(i, Elem.I32, "target_buffer", 'i');
            case CoreOps.BUFFER_STORE_I64 -> bufferStore(i, Elem.I64, "target_buffer", 'I');
            default -> throw new IllegalStateException("no inline form of opcode " + i.opcode());
        }
    }

    private static int reg(Insn i, int k) {
        return (Integer) i.ops().get(k);
    }

    /** {@code cond ? a : b} on accesses 0 ? 1 : 2 -> 3, moved as {@code t}. */
    private void select(Insn i, char t) {
        Label fl = cb.newLabel();
        Label e = cb.newLabel();
        ld(i.a(0), 'i');
        cb.ifeq(fl);
        ld(i.a(1), t);
        cb.goto_(e);
        cb.labelBinding(fl);
        ld(i.a(2), t);
        cb.labelBinding(e);
        st(i.a(3), t);
    }

    /**
     * Loads the buffer in ref operand 0 into {@code tmpBuf} and the element index (i64 operand 1)
     * into {@code tmpIdx}, and the checked byte offset (or -1) into {@code tmpOff}.
     */
    private void bufferAddress(Insn i, Elem e, String what, boolean write) {
        setPc(i.pc());
        cb.aload(ref(reg(i, 0))).loadConstant(what);
        support("buffer", CD_BUFFER, CD_REF, ConstantDescs.CD_String);
        cb.astore(tmpBuf);
        ld(i.a(1), 'I');
        cb.lstore(tmpIdx);
        cb.aload(tmpBuf).lload(tmpIdx).loadConstant(e.shift);
        support(write ? "offsetRw" : "offset", CD_long, CD_BUFFER, CD_long, CD_int);
        cb.lstore(tmpOff);
    }

    /** Pushes element {@code e} of the buffer access in operands 0 (buffer) and 1 (index). */
    private void bufferLoad(Insn i, Elem e, String what) {
        bufferAddress(i, e, what, false);
        Label slow = cb.newLabel();
        Label done = cb.newLabel();
        cb.lload(tmpOff).lconst_0().lcmp().iflt(slow);
        cb.aload(tmpBuf).invokevirtual(CD_BUFFER, "segment", MethodTypeDesc.of(CD_SEGMENT));
        cb.getstatic(CD_SUPPORT, "L_" + e.suffix, e.layout).lload(tmpOff);
        cb.invokeinterface(CD_SEGMENT, "get", MethodTypeDesc.of(e.value, e.layout, CD_long));
        cb.goto_(done);
        cb.labelBinding(slow);
        cb.aload(tmpBuf).lload(tmpIdx);
        cb.invokevirtual(CD_BUFFER, "load" + e.suffix, MethodTypeDesc.of(e.value, CD_long));
        cb.labelBinding(done);
    }

    /** Stores access 2 (read as {@code t}, narrowed to {@code e}) at the buffer access in operands 0 and 1. */
    private void bufferStore(Insn i, Elem e, String what, char t) {
        bufferAddress(i, e, what, true);
        Label slow = cb.newLabel();
        Label done = cb.newLabel();
        cb.lload(tmpOff).lconst_0().lcmp().iflt(slow);
        cb.aload(tmpBuf).invokevirtual(CD_BUFFER, "segment", MethodTypeDesc.of(CD_SEGMENT));
        cb.getstatic(CD_SUPPORT, "L_" + e.suffix, e.layout).lload(tmpOff);
        storeValue(i, e, t);
        cb.invokeinterface(CD_SEGMENT, "set", MethodTypeDesc.of(CD_void, e.layout, CD_long, e.value));
        cb.goto_(done);
        cb.labelBinding(slow);
        cb.aload(tmpBuf).lload(tmpIdx);
        storeValue(i, e, t);
        cb.invokevirtual(CD_BUFFER, "store" + e.suffix, MethodTypeDesc.of(CD_void, CD_long, e.value));
        cb.labelBinding(done);
    }

    private void storeValue(Insn i, Elem e, char t) {
        ld(i.a(2), t);
        if (e == Elem.I8) {
            cb.i2b();
        } else if (e == Elem.I16) {
            cb.i2s();
        }
    }

    /** An import call: marshalled into the environment's reusable call, run through the module's call path. */
    private void callImport(Insn i, int g) {
        int[] args = (int[]) i.ops().get(1);
        int[] results = (int[]) i.ops().get(2);
        Acc[] argAcc = i.acc()[1];
        Acc[] resAcc = i.acc()[2];
        dev.ortho.vm.CallingConvention cc = compiler.importCconv(g);
        String at = cc.arguments().types();
        String rt = cc.results().types();
        MethodTypeDesc setBits = MethodTypeDesc.of(CD_void, CD_int, CD_long);
        setPc(i.pc());
        cb.aload(0).loadConstant(g & 0x7FFF_FFFF);
        support("importCall", CD_CALLBUFFER, CD_ENV, CD_int);
        cb.astore(tmpCall);
        int p = 0;
        int q = 0;
        for (int k = 0; k < args.length; k++) {
            cb.aload(tmpCall);
            if (at.charAt(k) == 'r') {
                cb.loadConstant(q++);
                takeRef(args[k]);
                cb.invokevirtual(CD_CALLBUFFER, "setRef", MethodTypeDesc.of(CD_void, CD_int, CD_REF));
            } else {
                cb.loadConstant(p++);
                ld(argAcc[k], bits(argAcc[k]));
                if (!argAcc[k].wide()) {
                    cb.i2l();
                }
                cb.invokevirtual(CD_CALLBUFFER, "setBits", setBits);
            }
        }
        cb.aload(0);
        support("invokeImport", CD_CALLBUFFER, CD_ENV);
        cb.astore(tmpCall);
        p = 0;
        q = 0;
        for (int k = 0; k < results.length; k++) {
            cb.aload(tmpCall);
            if (rt.charAt(k) == 'r') {
                cb.loadConstant(q++);
                cb.invokevirtual(CD_CALLBUFFER, "takeRef", MethodTypeDesc.of(CD_REF, CD_int));
                assignRef(results[k]);
            } else {
                cb.loadConstant(p++);
                cb.invokevirtual(CD_CALLBUFFER, "bits", MethodTypeDesc.of(CD_long, CD_int));
                if (!resAcc[k].wide()) {
                    cb.l2i();
                }
                st(resAcc[k], bits(resAcc[k]));
            }
        }
    }

    private void call(Insn i) {
        int g = (Integer) i.ops().get(0);
        if (g < 0) {
            callImport(i, g);
            return;
        }
        int[] args = (int[]) i.ops().get(1);
        int[] results = (int[]) i.ops().get(2);
        Acc[] argAcc = i.acc()[1];
        Acc[] resAcc = i.acc()[2];
        setPc(i.next());
        cb.aload(0);
        byte[] kinds = m.fnArgKinds[g];
        for (int k = 0; k < args.length; k++) {
            if (kinds[k] == BytecodeModule.KIND_REF) {
                takeRef(args[k]);
            } else {
                ld(argAcc[k], bits(argAcc[k]));
            }
        }
        cb.invokestatic(compiler.self, "f" + g, compiler.descriptor(g));
        byte[] rk = m.fnResultKinds[g];
        if (rk.length == 1) {
            if (rk[0] == BytecodeModule.KIND_REF) {
                assignRef(results[0]);
            } else {
                st(resAcc[0], bits(resAcc[0]));
            }
        } else {
            for (int k = 0; k < rk.length; k++) {
                if (rk[k] == BytecodeModule.KIND_REF) {
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k).aaload();
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k).aconst_null().aastore();
                    assignRef(results[k]);
                } else {
                    cb.aload(0).getfield(CD_ENV, "rb", CD_long.arrayType()).loadConstant(k).laload();
                    if (rk[k] == BytecodeModule.KIND_32) {
                        cb.l2i();
                    }
                    st(resAcc[k], bits(resAcc[k]));
                }
            }
        }
    }

    private void ret(Insn i) {
        int[] regs = (int[]) i.ops().get(0);
        Acc[] acc = i.acc()[0];
        byte[] kinds = m.fnResultKinds[f];
        setPc(i.pc());
        if (kinds.length == 0) {
            cb.return_();
        } else if (kinds.length == 1) {
            switch (kinds[0]) {
                case BytecodeModule.KIND_32 -> {
                    ld(acc[0], 'i');
                    cb.ireturn();
                }
                case BytecodeModule.KIND_64 -> {
                    ld(acc[0], 'I');
                    cb.lreturn();
                }
                default -> {
                    takeRef(regs[0]);
                    cb.areturn();
                }
            }
        } else {
            for (int k = 0; k < kinds.length; k++) {
                if (kinds[k] == BytecodeModule.KIND_REF) {
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k);
                    takeRef(regs[k]);
                    cb.aastore();
                } else {
                    cb.aload(0).getfield(CD_ENV, "rb", CD_long.arrayType()).loadConstant(k);
                    ld(acc[k], bits(acc[k]));
                    if (kinds[k] == BytecodeModule.KIND_32) {
                        cb.i2l();
                    }
                    cb.lastore();
                }
            }
            cb.return_();
        }
    }

    /** One ExtF32 ({@code wide} false) or ExtF64 op, emitted in the width's JVM type. */
    private void floating(Insn i, FOp op, boolean wide) {
        char t = wide ? 'F' : 'f';
        ClassDesc jt = wide ? CD_double : CD_float;
        switch (op) {
            case ZERO -> {
                cb.loadConstant(wide ? (ConstantDesc) 0L : (ConstantDesc) 0);
                st(i.a(0), wide ? 'I' : 'i');
            }
            case CONST -> {
                long v = (Long) i.ops().get(0);
                cb.loadConstant(wide ? (ConstantDesc) v : (ConstantDesc) (int) v);
                st(i.a(1), wide ? 'I' : 'i');
            }
            case SELECT -> select(i, t);
            case ADD -> binary(i, t, wide ? Opcode.DADD : Opcode.FADD);
            case SUB -> binary(i, t, wide ? Opcode.DSUB : Opcode.FSUB);
            case MUL -> binary(i, t, wide ? Opcode.DMUL : Opcode.FMUL);
            case DIV -> binary(i, t, wide ? Opcode.DDIV : Opcode.FDIV);
            case MIN, MAX -> {
                ld(i.a(0), t);
                ld(i.a(1), t);
                support((op == FOp.MIN ? "min" : "max") + (wide ? "F64" : "F32"), jt, jt, jt);
                st(i.a(2), t);
            }
            case FMA -> {
                ld(i.a(0), t);
                ld(i.a(1), t);
                ld(i.a(2), t);
                support(wide ? "fmaF64" : "fmaF32", jt, jt, jt, jt);
                st(i.a(3), t);
            }
            case ABS, NEG, SQRT -> {
                ld(i.a(0), t);
                switch (op) {
                    case ABS -> cb.invokestatic(CD_MATH, "abs", MethodTypeDesc.of(jt, jt));
                    case NEG -> cb.with(OperatorInstruction.of(wide ? Opcode.DNEG : Opcode.FNEG));
                    default -> {
                        if (wide) {
                            cb.invokestatic(CD_MATH, "sqrt", MethodTypeDesc.of(jt, jt));
                        } else {
                            support("sqrtF32", jt, jt);
                        }
                    }
                }
                st(i.a(1), t);
            }
            case FROM_SI32 -> {
                ld(i.a(0), 'i');
                if (wide) {
                    cb.i2d();
                } else {
                    cb.i2f();
                }
                st(i.a(1), t);
            }
            case BITCAST -> {
                ld(i.a(0), 'i');
                st(i.a(1), 'i');
            }
            case EXTEND -> {
                ld(i.a(0), 'f');
                cb.f2d();
                st(i.a(1), 'F');
            }
            case TRUNCATE -> {
                ld(i.a(0), 'F');
                cb.d2f();
                st(i.a(1), 'f');
            }
            case EQ_O -> floatCompare(i, 0, false, wide);
            case EQ_U -> floatCompare(i, 0, true, wide);
            case NE_O -> floatCompare(i, 1, false, wide);
            case NE_U -> floatCompare(i, 1, true, wide);
            case LT_O -> floatCompare(i, 2, false, wide);
            case LT_U -> floatCompare(i, 2, true, wide);
            case LTE_O -> floatCompare(i, 3, false, wide);
            case LTE_U -> floatCompare(i, 3, true, wide);
            case NAN -> {
                ld(i.a(0), t);
                cb.invokestatic(wide ? ConstantDescs.CD_Double : ConstantDescs.CD_Float, "isNaN",
                        MethodTypeDesc.of(CD_boolean, jt));
                st(i.a(1), 'i');
            }
            case LOAD -> {
                bufferLoad(i, wide ? Elem.F64 : Elem.F32, "buffer");
                st(i.a(2), t);
            }
            case STORE -> bufferStore(i, wide ? Elem.F64 : Elem.F32, "buffer", t);
        }
    }

    private void floatCompare(Insn i, int kind, boolean unordered, boolean wide) {
        char t = wide ? 'F' : 'f';
        ld(i.a(0), t);
        if (!wide) {
            cb.f2d();
        }
        ld(i.a(1), t);
        if (!wide) {
            cb.f2d();
        }
        cb.loadConstant(kind).loadConstant(unordered ? 1 : 0);
        support("cmpF", CD_int, CD_double, CD_double, CD_int, CD_boolean);
        st(i.a(2), 'i');
    }
}
