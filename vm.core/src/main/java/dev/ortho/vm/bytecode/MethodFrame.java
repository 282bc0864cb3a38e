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
 * one {@code int} per register in the slot representation) and one {@code RefObject} local per
 * ref register. A 64-bit register of the slot representation is the interpreter's aligned pair.
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

    /** Lays out function {@code f}'s frame in {@code cb}'s locals from local {@code firstLocal} on. */
    MethodFrame(BytecodeModule m, int f, CodeBuilder cb, RegisterWebs webs, int firstLocal) {
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
        if (r0 + m.fnRef[f] > 65000) {
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

    /** [condition operands] -> 0/1 into the i32 access {@code res}, for a compare-and-branch opcode. */
    void bool(Opcode ifTrue, Acc res) {
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
