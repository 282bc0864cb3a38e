package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Compiler.CD_REF;
import static dev.ortho.vm.bytecode.Compiler.CD_SUPPORT;
import static dev.ortho.vm.bytecode.Interpreter.MOVE_BIT;
import static dev.ortho.vm.bytecode.Interpreter.REF_MASK;
import static java.lang.constant.ConstantDescs.CD_double;
import static java.lang.constant.ConstantDescs.CD_float;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.ortho.vm.bytecode.Compiler.Acc;
import dev.ortho.vm.bytecode.Compiler.Insn;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.OperatorInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;

/**
 * The VM frame of one compiled function as the JVM locals of the method being emitted, and the
 * register and ref accesses every op emitter shares ({@link FunctionEmitter} and the op family
 * emitters write through it).
 *
 * <p>Layout of the locals after the method's parameters: the pc of the current op (for traps),
 * the scratch register arrays of ops run by the interpreter's helpers, five temporaries, then the
 * i32 bank (one local per web of {@link RegisterWebs}, typed {@code int float long double}, or
 * one {@code int} per register in the slot representation), one {@code RefObject} local per
 * ref register, then per {@link BufferLoops} cache a {@code MemorySegment} and two {@code long}s
 * (readable and writable bytes). A 64-bit register of the slot representation is the
 * interpreter's aligned pair.
 */
final class MethodFrame {
    final CodeBuilder cb;
    final BytecodeModule m;
    final int f;
    final int pcLocal;
    final int rArray;
    final int refArray;
    final int tmpRef;
    final int tmpBuf;
    final int tmpCall;
    final int tmpIdx;
    final int tmpOff;
    final int i0;
    final int r0;
    /** The first {@link BufferLoops} cache local (segment, readable bytes, writable bytes; five slots each). */
    final int cache0;
    final int caches;
    /** Typed webs, or null for the slot representation. */
    final RegisterWebs webs;
    final int[] webLocal;

    /**
     * The JVM locals of a method {@code (Env, arguments...)} with argument types {@code types}
     * (cconv characters): element k is argument k's local, the last element the first free local.
     */
    static int[] argumentLocals(String types) {
        int[] out = new int[types.length() + 1];
        int slot = 1;
        for (int k = 0; k < types.length(); k++) {
            out[k] = slot;
            slot += types.charAt(k) == 'I' || types.charAt(k) == 'F' ? 2 : 1;
        }
        out[types.length()] = slot;
        return out;
    }

    /**
     * Lays out function {@code f}'s frame in {@code cb}'s locals from local {@code firstLocal} on,
     * with {@code caches} buffer caches.
     */
    MethodFrame(BytecodeModule m, int f, CodeBuilder cb, RegisterWebs webs, int firstLocal, int caches) {
        this.m = m;
        this.f = f;
        this.cb = cb;
        this.webs = webs;
        int slot = firstLocal;
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
        this.cache0 = r0 + m.fnRef[f];
        this.caches = caches;
        if (cache0 + 5 * caches > 65000) {
            throw new Compiler.MethodTooLarge(f, "too many registers for JVM locals", true);
        }
    }

    /** The JVM type a register access lives in: {@code i f I F}. */
    char reprOf(Acc a) {
        return webs == null ? (a.wide() ? 'I' : 'i') : webs.repr[webs.webOf[a.id()]];
    }

    /** Pushes the value of {@code a} as {@code want} ({@code i f I F} of the access's width). */
    void ld(Acc a, char want) {
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
    void st(Acc a, char have) {
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

    void storeLocal(char r, int l) {
        switch (r) {
            case 'i' -> cb.istore(l);
            case 'f' -> cb.fstore(l);
            case 'I' -> cb.lstore(l);
            default -> cb.dstore(l);
        }
    }

    /** Reinterprets the bits on the stack: int and float, long and double. */
    void convert(char from, char to) {
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
    static char bits(Acc a) {
        return a.wide() ? 'I' : 'i';
    }

    void ld64(int reg) {
        cb.iload(i0 + reg + 1).i2l().bipush(32).lshl();
        cb.iload(i0 + reg).i2l().loadConstant(0xFFFF_FFFFL).land().lor();
    }

    void st64(int reg) {
        cb.dup2().l2i().istore(i0 + reg);
        cb.bipush(32).lushr().l2i().istore(i0 + reg + 1);
    }

    int ref(int reg) {
        return r0 + (reg & REF_MASK);
    }

    /** The {@code MemorySegment} local of buffer cache {@code c}. */
    int cacheSegment(int c) {
        return cache0 + 5 * c;
    }

    /** The {@code long} local of cache {@code c}'s readable bytes (0: every access takes the checked path). */
    int cacheReadable(int c) {
        return cache0 + 5 * c + 1;
    }

    /** The {@code long} local of cache {@code c}'s writable bytes (0 for a read-only buffer). */
    int cacheWritable(int c) {
        return cache0 + 5 * c + 3;
    }

    /** [v] -> ref register d (the old value released after the store). */
    void assignRef(int d) {
        cb.aload(ref(d)).swap().astore(ref(d));
        release();
    }

    void release() {
        cb.invokestatic(CD_SUPPORT, "release", MethodTypeDesc.of(CD_void, CD_REF));
    }

    /** Pushes the value of ref register {@code s} with one count: moved out of it, or retained. */
    void takeRef(int s) {
        cb.aload(ref(s));
        if ((s & MOVE_BIT) != 0) {
            cb.aconst_null().astore(ref(s));
        } else {
            cb.invokestatic(CD_SUPPORT, "retain", MethodTypeDesc.of(CD_REF, CD_REF));
        }
    }

    /** IREE's retain_or_move between two ref registers of this frame. */
    void retainOrMove(int s, int d) {
        if ((s & MOVE_BIT) != 0 && (s & REF_MASK) == (d & REF_MASK)) {
            return;
        }
        takeRef(s);
        assignRef(d);
    }


    void setPc(int pc) {
        cb.loadConstant(pc).istore(pcLocal);
    }

    /** A {@code vm.cond_br} that reads the result of the compare being emitted ({@link #fuse}). */
    interface FusedBranch {
        /** True if nothing reads the compare's result after the branch: it is not stored. */
        boolean resultDead();

        /** Code both ways share, emitted before the jump (the compare's operands are on the stack). */
        void before();

        /** The label one way goes to with no code of its own (true: the taken successor), or null. */
        Label direct(boolean taken);

        /** Emits one way on (true: the taken successor). */
        void path(boolean taken);
    }

    private FusedBranch fused;
    private boolean fusedDone;

    /**
     * Makes the next {@link #bool} branch on its condition directly and continue with
     * {@code branch}'s ways, so a loop's exit test is one JVM compare-and-branch that C2
     * recognizes (a back edge with no code of its own is the conditional jump itself, as javac
     * emits a do-while loop), not a materialized boolean tested again.
     */
    void fuse(FusedBranch branch) {
        fused = branch;
        fusedDone = false;
    }

    /** True if the compare emitted since {@link #fuse} took the branch's ways; clears the request. */
    boolean fusedAndClear() {
        boolean done = fusedDone;
        fused = null;
        fusedDone = false;
        return done;
    }

    private static Opcode negate(Opcode op) {
        return switch (op) {
            case IFEQ -> Opcode.IFNE;
            case IFNE -> Opcode.IFEQ;
            case IFLT -> Opcode.IFGE;
            case IFGE -> Opcode.IFLT;
            case IFGT -> Opcode.IFLE;
            case IFLE -> Opcode.IFGT;
            case IF_ICMPEQ -> Opcode.IF_ICMPNE;
            case IF_ICMPNE -> Opcode.IF_ICMPEQ;
            case IF_ICMPLT -> Opcode.IF_ICMPGE;
            case IF_ICMPGE -> Opcode.IF_ICMPLT;
            case IF_ICMPGT -> Opcode.IF_ICMPLE;
            case IF_ICMPLE -> Opcode.IF_ICMPGT;
            case IF_ACMPEQ -> Opcode.IF_ACMPNE;
            case IF_ACMPNE -> Opcode.IF_ACMPEQ;
            case IFNULL -> Opcode.IFNONNULL;
            case IFNONNULL -> Opcode.IFNULL;
            default -> throw new IllegalArgumentException("not a conditional jump: " + op);
        };
    }

    /** The fused form of {@link #bool}: jump on the condition straight to the branch's ways. */
    private void fusedBool(FusedBranch f, Opcode ifTrue, Acc res) {
        boolean dead = f.resultDead();
        f.before();
        Label taken = dead ? f.direct(true) : null;
        Label other = dead ? f.direct(false) : null;
        if (taken != null) {
            cb.branch(ifTrue, taken);
            if (other != null) {
                cb.goto_(other);
            } else {
                f.path(false);
            }
            return;
        }
        if (other != null) {
            cb.branch(negate(ifTrue), other);
            f.path(true);
            return;
        }
        Label t = cb.newLabel();
        cb.branch(ifTrue, t);
        if (!dead) {
            cb.iconst_0();
            st(res, 'i');
        }
        f.path(false);
        cb.labelBinding(t);
        if (!dead) {
            cb.iconst_1();
            st(res, 'i');
        }
        f.path(true);
    }

    /** [condition operands] -> 0/1 into the i32 access {@code res}, for a compare-and-branch opcode. */
    void bool(Opcode ifTrue, Acc res) {
        if (fused != null) {
            FusedBranch f = fused;
            fused = null;
            fusedDone = true;
            fusedBool(f, ifTrue, res);
            return;
        }
        Label t = cb.newLabel();
        Label e = cb.newLabel();
        cb.branch(ifTrue, t);
        cb.iconst_0().goto_(e);
        cb.labelBinding(t);
        cb.iconst_1();
        cb.labelBinding(e);
        st(res, 'i');
    }

    void support(String name, ClassDesc ret, ClassDesc... params) {
        cb.invokestatic(CD_SUPPORT, name, MethodTypeDesc.of(ret, params));
    }

    /** {@code a op b -> result} on accesses 0, 1 -> 2 of type {@code t}. */
    void binary(Insn i, char t, Opcode op) {
        ld(i.a(0), t);
        ld(i.a(1), t);
        cb.with(OperatorInstruction.of(op));
        st(i.a(2), t);
    }

    static int reg(Insn i, int k) {
        return (Integer) i.ops().get(k);
    }

    /** {@code cond ? a : b} on accesses 0 ? 1 : 2 -> 3, moved as {@code t}. */
    void select(Insn i, char t) {
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

}
