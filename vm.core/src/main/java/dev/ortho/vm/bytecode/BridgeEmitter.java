package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Compiler.CD_CALLBUFFER;
import static dev.ortho.vm.bytecode.Compiler.CD_ENV;
import static dev.ortho.vm.bytecode.Compiler.CD_REF;
import static dev.ortho.vm.bytecode.Compiler.CD_REF_ARRAY;
import static dev.ortho.vm.bytecode.Compiler.CD_SUPPORT;

import java.lang.classfile.ClassBuilder;
import java.lang.classfile.ClassFile;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Emits the generated class's {@code call(fn, env, arguments, results)}, the entry of external
 * calls ({@link CompiledSupport.Entry}): a switch on {@code fn} that unmarshals the arguments,
 * calls {@code f<fn>} and marshals its results. When that method would reach HotSpot's
 * 8,000-byte limit ({@code split}), each function gets its own static {@code c<fn>} and
 * {@code call} dispatches through {@code call<g>} methods of {@value #BRIDGE_GROUP} functions.
 */
final class BridgeEmitter {
    /** Functions per bridge group method once the bridge is split. */
    static final int BRIDGE_GROUP = 256;
    private static final MethodTypeDesc BRIDGE_TYPE = MethodTypeDesc.of(ConstantDescs.CD_void, CD_ENV, CD_CALLBUFFER,
            CD_CALLBUFFER);
    private static final MethodTypeDesc BRIDGE_GROUP_TYPE = MethodTypeDesc.of(ConstantDescs.CD_void,
            ConstantDescs.CD_int, CD_ENV, CD_CALLBUFFER, CD_CALLBUFFER);

    private BridgeEmitter() {
    }

    /** Adds {@code call} (and, if {@code split}, the per-function and group methods) to {@code clb}. */
    static void emit(Compiler c, ClassBuilder clb, boolean[] ready, boolean split) {
        MethodTypeDesc call = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, CD_ENV,
                CD_CALLBUFFER, CD_CALLBUFFER);
        if (!split) {
            clb.withMethodBody("call", call, ClassFile.ACC_PUBLIC,
                    cb -> bridge(c, cb, ready, 0, c.m.functionCount, false));
            return;
        }
        // One bridge method c<N> per function, dispatched by groups of BRIDGE_GROUP functions.
        for (int f = 0; f < c.m.functionCount; f++) {
            if (ready[f]) {
                int fn = f;
                clb.withMethodBody("c" + f, BRIDGE_TYPE, ClassFile.ACC_STATIC, cb -> marshal(c, cb, fn, 0));
            }
        }
        int groups = (c.m.functionCount + BRIDGE_GROUP - 1) / BRIDGE_GROUP;
        for (int g = 0; g < groups; g++) {
            int lo = g * BRIDGE_GROUP;
            clb.withMethodBody("call" + g, BRIDGE_GROUP_TYPE, ClassFile.ACC_STATIC,
                    cb -> bridge(c, cb, ready, lo, Math.min(c.m.functionCount, lo + BRIDGE_GROUP), true));
        }
        clb.withMethodBody("call", call, ClassFile.ACC_PUBLIC, cb -> {
            List<SwitchCase> cases = new ArrayList<>();
            List<Label> labels = new ArrayList<>();
            Label dflt = cb.newLabel();
            for (int g = 0; g < groups; g++) {
                Label l = cb.newLabel();
                labels.add(l);
                cases.add(SwitchCase.of(g, l));
            }
            cb.iload(1).loadConstant(BRIDGE_GROUP).idiv();
            cb.tableswitch(0, groups - 1, dflt, cases);
            for (int g = 0; g < groups; g++) {
                cb.labelBinding(labels.get(g));
                cb.iload(1).aload(2).aload(3).aload(4);
                cb.invokestatic(c.self, "call" + g, BRIDGE_GROUP_TYPE);
                cb.return_();
            }
            cb.labelBinding(dflt);
            cb.return_();
        });
    }

    /**
     * {@code call(fn, env, arguments, results)} for functions [{@code lo}, {@code hi}): a switch
     * on {@code fn} that unmarshals, calls {@code f<fn>} and marshals the results inline, or
     * ({@code grouped}, a static {@code call<g>(fn, env, arguments, results)}) calls {@code c<fn>}.
     */
    private static void bridge(Compiler c, CodeBuilder cb, boolean[] ready, int lo, int hi, boolean grouped) {
        List<SwitchCase> cases = new ArrayList<>();
        Label dflt = cb.newLabel();
        Map<Integer, Label> labels = new java.util.TreeMap<>();
        for (int f = lo; f < hi; f++) {
            if (ready[f]) {
                Label l = cb.newLabel();
                labels.put(f, l);
                cases.add(SwitchCase.of(f, l));
            }
        }
        cb.iload(grouped ? 0 : 1);
        cb.lookupswitch(dflt, cases);
        for (Map.Entry<Integer, Label> e : labels.entrySet()) {
            cb.labelBinding(e.getValue());
            if (grouped) {
                cb.aload(1).aload(2).aload(3).invokestatic(c.self, "c" + e.getKey(), BRIDGE_TYPE).return_();
            } else {
                marshal(c, cb, e.getKey(), 2);
            }
        }
        cb.labelBinding(dflt);
        cb.return_();
    }

    /**
     * Unmarshals function {@code f}'s arguments, calls {@code f<f>}, marshals its results and
     * returns; locals {@code env}, {@code env + 1}, {@code env + 2} are the environment and the
     * argument and result buffers, {@code env + 3} a temporary.
     */
    private static void marshal(Compiler c, CodeBuilder cb, int f, int env) {
        cb.aload(env);
        String args = c.m.fnCconv[f].arguments().types();
        int p = 0;
        int q = 0;
        for (int i = 0; i < args.length(); i++) {
            char t = args.charAt(i);
            if (t == 'r') {
                cb.aload(env + 1).loadConstant(q++);
                cb.invokevirtual(CD_CALLBUFFER, "ref", MethodTypeDesc.of(CD_REF, ConstantDescs.CD_int));
                cb.invokestatic(CD_SUPPORT, "retain", MethodTypeDesc.of(CD_REF, CD_REF));
            } else {
                cb.aload(env + 1).loadConstant(p++);
                cb.invokevirtual(CD_CALLBUFFER, "bits", MethodTypeDesc.of(ConstantDescs.CD_long,
                        ConstantDescs.CD_int));
                if (t != 'I' && t != 'F') {
                    cb.l2i();
                }
            }
        }
        cb.invokestatic(c.self, "f" + f, c.descriptor(f));
        byte[] kinds = c.m.fnResultKinds[f];
        MethodTypeDesc setBits = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int,
                ConstantDescs.CD_long);
        MethodTypeDesc setRef = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, CD_REF);
        if (kinds.length == 1) {
            switch (kinds[0]) {
                case BytecodeModule.KIND_32 -> cb.i2l().lstore(env + 3).aload(env + 2).iconst_0().lload(env + 3)
                        .invokevirtual(CD_CALLBUFFER, "setBits", setBits);
                case BytecodeModule.KIND_64 -> cb.lstore(env + 3).aload(env + 2).iconst_0().lload(env + 3)
                        .invokevirtual(CD_CALLBUFFER, "setBits", setBits);
                default -> cb.astore(env + 3).aload(env + 2).iconst_0().aload(env + 3)
                        .invokevirtual(CD_CALLBUFFER, "setRef", setRef);
            }
        } else {
            int pi = 0;
            int qi = 0;
            for (int i = 0; i < kinds.length; i++) {
                if (kinds[i] == BytecodeModule.KIND_REF) {
                    cb.aload(env + 2).loadConstant(qi++);
                    cb.aload(env).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(i).aaload();
                    cb.invokevirtual(CD_CALLBUFFER, "setRef", setRef);
                    cb.aload(env).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(i).aconst_null().aastore();
                } else {
                    cb.aload(env + 2).loadConstant(pi++);
                    cb.aload(env).getfield(CD_ENV, "rb", ConstantDescs.CD_long.arrayType()).loadConstant(i)
                            .laload();
                    cb.invokevirtual(CD_CALLBUFFER, "setBits", setBits);
                }
            }
        }
        cb.return_();
    }
}
