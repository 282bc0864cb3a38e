package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Compiler.CD_CALLBUFFER;
import static dev.ortho.vm.bytecode.Compiler.CD_ENV;
import static dev.ortho.vm.bytecode.Compiler.CD_REF;
import static dev.ortho.vm.bytecode.Compiler.CD_REF_ARRAY;
import static dev.ortho.vm.bytecode.MethodFrame.bits;
import static java.lang.constant.ConstantDescs.CD_int;
import static java.lang.constant.ConstantDescs.CD_long;
import static java.lang.constant.ConstantDescs.CD_void;

import dev.ortho.vm.bytecode.Compiler.Acc;
import dev.ortho.vm.bytecode.Compiler.Insn;
import java.lang.classfile.CodeBuilder;
import java.lang.constant.MethodTypeDesc;

/**
 * Emits calls and returns for {@link FunctionEmitter}: internal calls as direct calls of the
 * callee's static method with typed parameters (one result is the method's value, more go
 * through the call environment's {@code rb}/{@code rr}), import calls marshalled into the
 * environment's reusable call and run through the callee module's call path as the
 * interpreter's are.
 */
final class CallEmitter {
    private final Compiler compiler;
    private final BytecodeModule m;
    private final int f;
    private final MethodFrame fr;
    private final CodeBuilder cb;

    CallEmitter(Compiler compiler, MethodFrame fr) {
        this.compiler = compiler;
        this.m = compiler.m;
        this.f = fr.f;
        this.fr = fr;
        this.cb = fr.cb;
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
        fr.setPc(i.pc());
        cb.aload(0).loadConstant(g & 0x7FFF_FFFF);
        // A call site that names every argument writes every slot: the buffer need not be zeroed first.
        fr.support(args.length == at.length() ? "importCallToFill" : "importCall", CD_CALLBUFFER, CD_ENV, CD_int);
        cb.astore(fr.tmpCall);
        int p = 0;
        int q = 0;
        for (int k = 0; k < args.length; k++) {
            cb.aload(fr.tmpCall);
            if (at.charAt(k) == 'r') {
                cb.loadConstant(q++);
                if ((args[k] & Interpreter.MOVE_BIT) != 0) {
                    fr.takeRef(args[k]); // moved: the buffer owns the count and releases it after the call
                    cb.invokevirtual(CD_CALLBUFFER, "setRef", MethodTypeDesc.of(CD_void, CD_int, CD_REF));
                } else {
                    // borrowed, as the interpreter passes it: the register keeps the ref alive for the
                    // whole call, so no retain before and no release after (two atomic operations)
                    cb.aload(fr.ref(args[k]));
                    cb.invokevirtual(CD_CALLBUFFER, "setBorrowedRef", MethodTypeDesc.of(CD_void, CD_int, CD_REF));
                }
            } else {
                cb.loadConstant(p++);
                fr.ld(argAcc[k], bits(argAcc[k]));
                if (!argAcc[k].wide()) {
                    cb.i2l();
                }
                cb.invokevirtual(CD_CALLBUFFER, "setBits", setBits);
            }
        }
        cb.aload(0);
        fr.support("invokeImport", CD_CALLBUFFER, CD_ENV);
        cb.astore(fr.tmpCall);
        p = 0;
        q = 0;
        for (int k = 0; k < results.length; k++) {
            cb.aload(fr.tmpCall);
            if (rt.charAt(k) == 'r') {
                cb.loadConstant(q++);
                cb.invokevirtual(CD_CALLBUFFER, "takeRef", MethodTypeDesc.of(CD_REF, CD_int));
                fr.assignRef(results[k]);
            } else {
                cb.loadConstant(p++);
                cb.invokevirtual(CD_CALLBUFFER, "bits", MethodTypeDesc.of(CD_long, CD_int));
                if (!resAcc[k].wide()) {
                    cb.l2i();
                }
                fr.st(resAcc[k], bits(resAcc[k]));
            }
        }
    }

    /** {@code vm.call}: a direct JVM call of the callee's method, or an import call. */
    void call(Insn i) {
        int g = (Integer) i.ops().get(0);
        if (g < 0) {
            callImport(i, g);
            return;
        }
        int[] args = (int[]) i.ops().get(1);
        int[] results = (int[]) i.ops().get(2);
        Acc[] argAcc = i.acc()[1];
        Acc[] resAcc = i.acc()[2];
        fr.setPc(i.next());
        cb.aload(0);
        byte[] kinds = m.fnArgKinds[g];
        for (int k = 0; k < args.length; k++) {
            if (kinds[k] == BytecodeModule.KIND_REF) {
                fr.takeRef(args[k]);
            } else {
                fr.ld(argAcc[k], bits(argAcc[k]));
            }
        }
        cb.invokestatic(compiler.self, "f" + g, compiler.descriptor(g));
        byte[] rk = m.fnResultKinds[g];
        if (rk.length == 1) {
            if (rk[0] == BytecodeModule.KIND_REF) {
                fr.assignRef(results[0]);
            } else {
                fr.st(resAcc[0], bits(resAcc[0]));
            }
        } else {
            for (int k = 0; k < rk.length; k++) {
                if (rk[k] == BytecodeModule.KIND_REF) {
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k).aaload();
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k).aconst_null().aastore();
                    fr.assignRef(results[k]);
                } else {
                    cb.aload(0).getfield(CD_ENV, "rb", CD_long.arrayType()).loadConstant(k).laload();
                    if (rk[k] == BytecodeModule.KIND_32) {
                        cb.l2i();
                    }
                    fr.st(resAcc[k], bits(resAcc[k]));
                }
            }
        }
    }

    /**
     * {@code vm.return}: one result as the method's value, more through the call environment; or,
     * in a region of a split function ({@code toDispatcher} not null), every result through the
     * call environment and then a jump to {@code toDispatcher}, whose code returns to the
     * dispatching method.
     */
    void ret(Insn i, java.lang.classfile.Label toDispatcher) {
        int[] regs = (int[]) i.ops().get(0);
        Acc[] acc = i.acc()[0];
        byte[] kinds = m.fnResultKinds[f];
        fr.setPc(i.pc());
        if (toDispatcher == null && kinds.length == 0) {
            cb.return_();
        } else if (toDispatcher == null && kinds.length == 1) {
            switch (kinds[0]) {
                case BytecodeModule.KIND_32 -> {
                    fr.ld(acc[0], 'i');
                    cb.ireturn();
                }
                case BytecodeModule.KIND_64 -> {
                    fr.ld(acc[0], 'I');
                    cb.lreturn();
                }
                default -> {
                    fr.takeRef(regs[0]);
                    cb.areturn();
                }
            }
        } else {
            for (int k = 0; k < kinds.length; k++) {
                if (kinds[k] == BytecodeModule.KIND_REF) {
                    cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k);
                    fr.takeRef(regs[k]);
                    cb.aastore();
                } else {
                    cb.aload(0).getfield(CD_ENV, "rb", CD_long.arrayType()).loadConstant(k);
                    fr.ld(acc[k], bits(acc[k]));
                    if (kinds[k] == BytecodeModule.KIND_32) {
                        cb.i2l();
                    }
                    cb.lastore();
                }
            }
            if (toDispatcher == null) {
                cb.return_();
            } else {
                cb.goto_(toDispatcher);
            }
        }
    }
}
