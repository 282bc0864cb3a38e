package dev.ortho.vm.bytecode;

import static dev.ortho.base.MessageText.printable;
import static dev.ortho.vm.bytecode.Interpreter.MOVE_BIT;
import static dev.ortho.vm.bytecode.Interpreter.REF_MASK;
import static dev.ortho.vm.bytecode.Interpreter.TYPE_BIT;

import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.Function;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.internal.ext.ExtF32Extension;
import dev.ortho.vm.internal.ext.ExtF64Extension;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.internal.isa.ExtF32Ops;
import dev.ortho.vm.internal.isa.ExtF64Ops;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import dev.ortho.vm.spi.OperandKind;
import dev.ortho.vm.spi.OperandSpec;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.CodeBuilder;
import java.lang.classfile.Label;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.SwitchCase;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Translates verified bytecode functions of one {@link BytecodeModule} into static methods of a
 * hidden class defined through this package's lookup (so it lives in vm.core's class loader,
 * works in any OSGi host and is unloaded with the module). Runs on the calling thread.
 *
 * <p>Each i32 register slot becomes an {@code int} local (64-bit registers are the interpreter's
 * aligned slot pairs, so every mix of widths behaves as in the interpreter), each ref register a
 * {@code RefObject} local with the interpreter's retain/move/release rules, block markers become
 * labels and internal calls direct JVM calls with typed parameters (one result is returned, more
 * go through the call environment). Hot ops are emitted inline; every other op runs the
 * interpreter's own helper on spilled registers, so its semantics are the interpreter's by
 * construction. A trap records {@code function+pc} for the backtrace and releases the frame's
 * refs as the unwinder does.
 *
 * <p>Not compiled (they stay interpreted): functions that yield or call yieldable or variadic
 * functions, call imports, use {@code vm.break}/{@code vm.cond_break}, take part in recursion, or
 * call a function that is not compiled; modules with execution tracing.
 */
final class Compiler {
    private static final ClassDesc CD_ENV = ClassDesc.of(CompiledSupport.Env.class.getName());
    private static final ClassDesc CD_SUPPORT = ClassDesc.of(CompiledSupport.class.getName());
    private static final ClassDesc CD_ENTRY = ClassDesc.of(CompiledSupport.Entry.class.getName());
    private static final ClassDesc CD_REF = ClassDesc.of(RefObject.class.getName());
    private static final ClassDesc CD_BUFFER = ClassDesc.of(VmBuffer.class.getName());
    private static final ClassDesc CD_CALLBUFFER = ClassDesc.of(CallBuffer.class.getName());
    private static final ClassDesc CD_STATE = ClassDesc.of(BytecodeModule.State.class.getName());
    private static final ClassDesc CD_FUNCTION = ClassDesc.of(Function.class.getName());
    private static final ClassDesc CD_STATUS = ClassDesc.of(dev.ortho.base.StatusException.class.getName());
    private static final ClassDesc CD_REF_ARRAY = CD_REF.arrayType();

    /** The outcome: which functions compiled, the entry object and the static stack bound per function. */
    record Result(boolean[] compiled, CompiledSupport.Entry entry, long[] maxBytes, int maxResults,
                  String[] reasons) {
    }

    /** One decoded instruction. */
    private record Insn(int pc, int next, int opcode, int extOpcode, List<Object> ops, BitSet touch32,
                        BitSet touchRef) {
    }

    private final BytecodeModule m;
    private final List<List<Insn>> code = new ArrayList<>();
    private final String[] reasons;
    private final ClassDesc self;

    private Compiler(BytecodeModule m) {
        this.m = m;
        this.reasons = new String[m.functionCount];
        this.self = ClassDesc.of(Compiler.class.getPackageName() + ".Compiled");
    }

    /**
     * What {@link #generate} produces, before any class is defined: the class bytes (null when
     * nothing could be generated) and the per-function tables {@link Result} carries. A function
     * of the module's bytes, the extensions' inline choices and {@link PrecompiledModule#FORMAT}.
     */
    record Generated(byte[] classBytes, boolean[] compiled, long[] maxBytes, int maxResults, String[] reasons) {
    }

    /** Runs of {@link #generate} in this class loader, for tests proving a path never translates. */
    private static final java.util.concurrent.atomic.LongAdder GENERATIONS = new java.util.concurrent.atomic.LongAdder();

    /** Compiles every function of {@code m} that can be compiled; never throws for a verified module. */
    static Result compile(BytecodeModule m) {
        Generated g = generate(m);
        try {
            return define(g);
        } catch (Throwable e) {
            // A bug in the generator must never break the module: interpret everything.
            String[] reasons = new String[m.functionCount];
            java.util.Arrays.fill(reasons, "compiler failure: " + e);
            return new Result(new boolean[m.functionCount], null, g.maxBytes(), g.maxResults(), reasons);
        }
    }

    /** Translates {@code m} into class bytes without defining them; never throws for a verified module. */
    static Generated generate(BytecodeModule m) {
        GENERATIONS.increment();
        return new Compiler(m).run();
    }

    /** Number of {@link #generate} runs so far (a statistic; tests compare it before and after). */
    static long generations() {
        return GENERATIONS.sum();
    }

    /**
     * Defines {@code g}'s class as a hidden class through this package's lookup and instantiates
     * its entry.
     *
     * @throws Throwable a {@link LinkageError} ({@code ClassFormatError}, {@code VerifyError}) if
     *     the bytes are not a valid class for this vm.core
     */
    static Result define(Generated g) throws Throwable {
        if (g.classBytes() == null) {
            return new Result(g.compiled(), null, g.maxBytes(), g.maxResults(), g.reasons());
        }
        MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(g.classBytes(), true);
        CompiledSupport.Entry entry = (CompiledSupport.Entry) lookup.findConstructor(lookup.lookupClass(),
                java.lang.invoke.MethodType.methodType(void.class)).invoke();
        return new Result(g.compiled(), entry, g.maxBytes(), g.maxResults(), g.reasons());
    }

    private Generated run() {
        for (int f = 0; f < m.functionCount; f++) {
            List<Insn> insns = new ArrayList<>();
            code.add(insns);
            if (m.trace) {
                reasons[f] = "execution tracing is on";
                continue;
            }
            try {
                decode(f, insns);
            } catch (RuntimeException e) {
                reasons[f] = "cannot decode: " + e.getMessage();
            }
        }
        while (true) {
            boolean[] ready = new boolean[m.functionCount];
            long[] maxBytes = new long[m.functionCount];
            boolean changed = true;
            while (changed) {
                changed = false;
                for (int f = 0; f < m.functionCount; f++) {
                    if (ready[f] || reasons[f] != null) {
                        continue;
                    }
                    long deepest = 0;
                    boolean ok = true;
                    for (Insn i : code.get(f)) {
                        if (i.opcode == CoreOps.CALL) {
                            int g = (Integer) i.ops.get(0);
                            if (!ready[g]) {
                                ok = false;
                                break;
                            }
                            deepest = Math.max(deepest, maxBytes[g]);
                        }
                    }
                    if (ok) {
                        ready[f] = true;
                        maxBytes[f] = frameBytes(f) + deepest;
                        changed = true;
                    }
                }
            }
            for (int f = 0; f < m.functionCount; f++) {
                if (!ready[f] && reasons[f] == null) {
                    reasons[f] = "recursive, or calls a function that is not compiled";
                }
            }
            int maxResults = 1;
            for (int f = 0; f < m.functionCount; f++) {
                maxResults = Math.max(maxResults, m.fnResultKinds[f].length);
            }
            try {
                return new Generated(generate(ready), ready, maxBytes, maxResults, reasons);
            } catch (MethodTooLarge e) {
                reasons[e.function] = "JVM method size limit: " + e.getMessage();
            } catch (Throwable e) {
                // A bug in the generator must never break the module: interpret everything.
                java.util.Arrays.fill(reasons, "compiler failure: " + e);
                return new Generated(null, new boolean[m.functionCount], maxBytes, maxResults, reasons);
            }
        }
    }

    private static final class MethodTooLarge extends RuntimeException {
        final int function;

        MethodTooLarge(int function, String message) {
            super(message);
            this.function = function;
        }
    }

    private long frameBytes(int f) {
        return 64L + 4L * (m.fnI32[f] + Interpreter.HIDDEN_I32) + 8L * m.fnRef[f];
    }

    // ---------------------------------------------------------------- decoding

    private void decode(int f, List<Insn> out) {
        byte[] c = m.code;
        int base = m.fnBase[f];
        int length = m.fnLength[f];
        int pc = 0;
        while (pc < length - 1) {
            int start = pc;
            int opcode = c[base + pc++] & 0xFF;
            int extOpcode = -1;
            OpDescriptor d;
            if (opcode == CoreOps.BLOCK) {
                out.add(new Insn(start, pc, opcode, -1, List.of(), new BitSet(), new BitSet()));
                continue;
            }
            if (opcode >= 0xE0) {
                InstructionExtension ext = m.extensions[opcode - 0xE0];
                extOpcode = c[base + pc++] & 0xFF;
                d = Disassembly.extension(ext, extOpcode);
            } else {
                d = Disassembly.core(opcode);
            }
            List<Object> ops = new ArrayList<>();
            BitSet t32 = new BitSet();
            BitSet tRef = new BitSet();
            int tableSize = 0;
            for (OperandSpec o : d.operands()) {
                switch (o.kind()) {
                    case REGISTER -> {
                        int reg = Interpreter.u16(c, base + pc);
                        pc += 2;
                        ops.add(reg);
                        touch(f, reg, o.type(), t32, tRef);
                    }
                    case CONST_I16 -> {
                        tableSize = Interpreter.u16(c, base + pc);
                        pc += 2;
                        ops.add(tableSize);
                    }
                    case ATTRIBUTE -> {
                        boolean wide = o.type() != null && (o.type().equals("i64") || o.type().equals("f64"));
                        ops.add(wide ? Interpreter.i64(c, base + pc) : (long) Interpreter.i32(c, base + pc));
                        pc += wide ? 8 : 4;
                    }
                    case RODATA_ATTR, FUNC_ATTR, GLOBAL_ATTR, TYPE_OF, BRANCH_TARGET -> {
                        ops.add(Interpreter.i32(c, base + pc));
                        pc += 4;
                    }
                    case STRING_ATTR -> {
                        int len = Interpreter.u16(c, base + pc);
                        ops.add(new int[] {base + pc + 2, len});
                        pc += 2 + len;
                    }
                    case BRANCH_OPERANDS -> {
                        pc += pc & 1;
                        int n = Interpreter.u16(c, base + pc);
                        int[] pairs = new int[2 * n];
                        for (int i = 0; i < 2 * n; i++) {
                            pairs[i] = Interpreter.u16(c, base + pc + 2 + 2 * i);
                            touch(f, pairs[i], "i32", t32, tRef);
                        }
                        pc += 2 + 4 * n;
                        ops.add(pairs);
                    }
                    case BRANCH_TABLE_CASES -> {
                        for (int k = 0; k < tableSize; k++) {
                            ops.add(Interpreter.i32(c, base + pc));
                            pc += 4;
                            pc += pc & 1;
                            int n = Interpreter.u16(c, base + pc);
                            int[] pairs = new int[2 * n];
                            for (int i = 0; i < 2 * n; i++) {
                                pairs[i] = Interpreter.u16(c, base + pc + 2 + 2 * i);
                                touch(f, pairs[i], "i32", t32, tRef);
                            }
                            pc += 2 + 4 * n;
                            ops.add(pairs);
                        }
                    }
                    case VARIADIC_OPERANDS, VARIADIC_RESULTS -> {
                        pc += pc & 1;
                        int n = Interpreter.u16(c, base + pc);
                        int[] regs = new int[n];
                        for (int i = 0; i < n; i++) {
                            regs[i] = Interpreter.u16(c, base + pc + 2 + 2 * i);
                            if (!o.name().equals("segment_sizes")) {
                                touch(f, regs[i], o.type(), t32, tRef);
                            }
                        }
                        pc += 2 + 2 * n;
                        ops.add(regs);
                    }
                }
            }
            Insn insn = new Insn(start, pc, opcode, extOpcode, ops, t32, tRef);
            String why = unsupported(f, insn);
            if (why != null) {
                throw new IllegalStateException(String.format("%s at +%08X", why, start));
            }
            out.add(insn);
        }
    }

    private void touch(int f, int reg, String type, BitSet t32, BitSet tRef) {
        boolean ref = type == null || type.equals("any") || type.equals("i32") && (reg & TYPE_BIT) != 0
                ? (reg & TYPE_BIT) != 0 : type.equals("ref");
        if (ref) {
            tRef.set(reg & REF_MASK);
        } else {
            t32.set(reg);
            boolean wide = type != null && (type.equals("i64") || type.equals("f64"));
            if ((wide || type == null || type.equals("any")) && reg + 1 < m.fnI32[f]) {
                t32.set(reg + 1);
            }
        }
    }

    private String unsupported(int f, Insn i) {
        switch (i.opcode) {
            case CoreOps.CALL -> {
                int g = (Integer) i.ops.get(0);
                if (g < 0) {
                    return "calls an import";
                }
                if (((int[]) i.ops.get(1)).length != m.fnArgKinds[g].length
                        || ((int[]) i.ops.get(2)).length != m.fnResultKinds[g].length) {
                    return "call register lists differ from the callee's calling convention";
                }
                return null;
            }
            case CoreOps.CALL_VARIADIC, CoreOps.CALL_YIELDABLE, CoreOps.CALL_VARIADIC_YIELDABLE ->  {
                return "variadic or yieldable call";
            }
            case CoreOps.YIELD -> {
                return "yields";
            }
            case CoreOps.BREAK, CoreOps.COND_BREAK -> {
                return "debug break";
            }
            case CoreOps.RETURN -> {
                return ((int[]) i.ops.get(0)).length != m.fnResultKinds[f].length
                        ? "return register list differs from the calling convention" : null;
            }
            case CoreOps.DISCARD_REFS -> {
                for (int reg : (int[]) i.ops.get(0)) {
                    if ((reg & TYPE_BIT) == 0) {
                        return "discard.refs of a non-ref register";
                    }
                }
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    // ---------------------------------------------------------------- generation

    private byte[] generate(boolean[] ready) {
        ClassLoader loader = Compiler.class.getClassLoader();
        ClassFile cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofClassLoading(loader))));
        return cf.build(self, clb -> {
            clb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER);
            clb.withInterfaceSymbols(CD_ENTRY);
            clb.withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC,
                    cb -> cb.aload(0).invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME,
                            ConstantDescs.MTD_void).return_());
            for (int f = 0; f < m.functionCount; f++) {
                if (ready[f]) {
                    int fn = f;
                    try {
                        clb.withMethodBody("f" + f, descriptor(f), ClassFile.ACC_STATIC,
                                cb -> new FunctionGen(fn, cb).emit());
                    } catch (IllegalArgumentException e) {
                        throw new MethodTooLarge(fn, e.getMessage());
                    }
                }
            }
            clb.withMethodBody("call", MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, CD_ENV,
                    CD_CALLBUFFER, CD_CALLBUFFER), ClassFile.ACC_PUBLIC, cb -> bridge(cb, ready));
        });
    }

    private MethodTypeDesc descriptor(int f) {
        String args = m.fnCconv[f].arguments().types();
        List<ClassDesc> params = new ArrayList<>();
        params.add(CD_ENV);
        for (int i = 0; i < args.length(); i++) {
            params.add(typeOf(args.charAt(i)));
        }
        String results = m.fnCconv[f].results().types();
        ClassDesc ret = results.length() == 1 ? typeOf(results.charAt(0)) : ConstantDescs.CD_void;
        return MethodTypeDesc.of(ret, params);
    }

    private static ClassDesc typeOf(char t) {
        return switch (t) {
            case 'I', 'F' -> ConstantDescs.CD_long;
            case 'r' -> CD_REF;
            default -> ConstantDescs.CD_int;
        };
    }

    /** {@code call(fn, env, arguments, results)}: unmarshals, calls {@code f<fn>}, marshals results. */
    private void bridge(CodeBuilder cb, boolean[] ready) {
        List<SwitchCase> cases = new ArrayList<>();
        Label dflt = cb.newLabel();
        Map<Integer, Label> labels = new HashMap<>();
        for (int f = 0; f < m.functionCount; f++) {
            if (ready[f]) {
                Label l = cb.newLabel();
                labels.put(f, l);
                cases.add(SwitchCase.of(f, l));
            }
        }
        cb.iload(1);
        cb.lookupswitch(dflt, cases);
        for (Map.Entry<Integer, Label> e : labels.entrySet()) {
            int f = e.getKey();
            cb.labelBinding(e.getValue());
            cb.aload(2);
            String args = m.fnCconv[f].arguments().types();
            int p = 0;
            int q = 0;
            for (int i = 0; i < args.length(); i++) {
                char t = args.charAt(i);
                if (t == 'r') {
                    cb.aload(3).loadConstant(q++);
                    cb.invokevirtual(CD_CALLBUFFER, "ref", MethodTypeDesc.of(CD_REF, ConstantDescs.CD_int));
                    cb.invokestatic(CD_SUPPORT, "retain", MethodTypeDesc.of(CD_REF, CD_REF));
                } else {
                    cb.aload(3).loadConstant(p++);
                    cb.invokevirtual(CD_CALLBUFFER, "bits", MethodTypeDesc.of(ConstantDescs.CD_long,
                            ConstantDescs.CD_int));
                    if (t != 'I' && t != 'F') {
                        cb.l2i();
                    }
                }
            }
            cb.invokestatic(self, "f" + f, descriptor(f));
            byte[] kinds = m.fnResultKinds[f];
            MethodTypeDesc setBits = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int,
                    ConstantDescs.CD_long);
            MethodTypeDesc setRef = MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_int, CD_REF);
            if (kinds.length == 1) {
                switch (kinds[0]) {
                    case BytecodeModule.KIND_32 -> cb.i2l().lstore(5).aload(4).iconst_0().lload(5)
                            .invokevirtual(CD_CALLBUFFER, "setBits", setBits);
                    case BytecodeModule.KIND_64 -> cb.lstore(5).aload(4).iconst_0().lload(5)
                            .invokevirtual(CD_CALLBUFFER, "setBits", setBits);
                    default -> cb.astore(5).aload(4).iconst_0().aload(5)
                            .invokevirtual(CD_CALLBUFFER, "setRef", setRef);
                }
            } else {
                int pi = 0;
                int qi = 0;
                for (int i = 0; i < kinds.length; i++) {
                    if (kinds[i] == BytecodeModule.KIND_REF) {
                        cb.aload(4).loadConstant(qi++);
                        cb.aload(2).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(i).aaload();
                        cb.invokevirtual(CD_CALLBUFFER, "setRef", setRef);
                        cb.aload(2).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(i).aconst_null().aastore();
                    } else {
                        cb.aload(4).loadConstant(pi++);
                        cb.aload(2).getfield(CD_ENV, "rb", ConstantDescs.CD_long.arrayType()).loadConstant(i)
                                .laload();
                        cb.invokevirtual(CD_CALLBUFFER, "setBits", setBits);
                    }
                }
            }
            cb.return_();
        }
        cb.labelBinding(dflt);
        cb.return_();
    }

    /** Emits one function's method. */
    private final class FunctionGen {
        final int f;
        final CodeBuilder cb;
        final int base;
        final List<Insn> insns;
        final int pcLocal;
        final int rArray;
        final int refArray;
        final int tmpRef;
        final int i0;
        final int r0;
        final BitSet used32 = new BitSet();
        final BitSet usedRef = new BitSet();
        final Map<Integer, Label> blocks = new HashMap<>();
        boolean scratch;

        FunctionGen(int f, CodeBuilder cb) {
            this.f = f;
            this.cb = cb;
            this.base = m.fnBase[f];
            this.insns = code.get(f);
            int slot = 1;
            for (char t : m.fnCconv[f].arguments().types().toCharArray()) {
                slot += t == 'I' || t == 'F' ? 2 : 1;
            }
            this.pcLocal = slot++;
            this.rArray = slot++;
            this.refArray = slot++;
            this.tmpRef = slot++;
            this.i0 = slot;
            this.r0 = slot + m.fnI32[f];
            if (r0 + m.fnRef[f] > 65000) {
                throw new MethodTooLarge(f, "too many registers for JVM locals");
            }
            for (Insn i : insns) {
                used32.or(i.touch32);
                usedRef.or(i.touchRef);
                if (i.opcode == CoreOps.BLOCK) {
                    blocks.put(i.pc, cb.newLabel());
                } else if (!inline(i)) {
                    scratch = true;
                }
            }
        }

        void emit() {
            // Prologue: zeroed registers (as a fresh frame), then the arguments.
            for (int k = used32.nextSetBit(0); k >= 0; k = used32.nextSetBit(k + 1)) {
                cb.iconst_0().istore(i0 + k);
            }
            for (int k = usedRef.nextSetBit(0); k >= 0; k = usedRef.nextSetBit(k + 1)) {
                cb.aconst_null().astore(r0 + k);
            }
            cb.iconst_0().istore(pcLocal);
            if (scratch) {
                cb.loadConstant(m.fnI32[f]).newarray(java.lang.classfile.TypeKind.INT).astore(rArray);
                cb.loadConstant(m.fnRef[f]).anewarray(CD_REF).astore(refArray);
            }
            String args = m.fnCconv[f].arguments().types();
            int slot = 1;
            int ri = 0;
            int rr = 0;
            List<Integer> argRefs = new ArrayList<>();
            for (int i = 0; i < args.length(); i++) {
                switch (args.charAt(i)) {
                    case 'I', 'F' -> {
                        ri += ri & 1;
                        cb.lload(slot);
                        st64(ri);
                        ri += 2;
                        slot += 2;
                    }
                    case 'r' -> {
                        cb.aload(slot).astore(r0 + rr);
                        argRefs.add(rr);
                        rr++;
                        slot++;
                    }
                    default -> {
                        cb.iload(slot).istore(i0 + ri);
                        ri++;
                        slot++;
                    }
                }
            }
            for (int k : argRefs) {
                usedRef.set(k);
            }
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
                cb.aload(r0 + k).invokestatic(CD_SUPPORT, "release", MethodTypeDesc.of(ConstantDescs.CD_void, CD_REF));
            }
            cb.aload(0).aload(tmpRef).iload(pcLocal).loadConstant(f);
            cb.invokestatic(CD_SUPPORT, "trap", MethodTypeDesc.of(ConstantDescs.CD_Throwable, CD_ENV,
                    ConstantDescs.CD_Throwable, ConstantDescs.CD_int, ConstantDescs.CD_int));
            cb.athrow();
            cb.exceptionCatchAll(start, end, handler);
        }

        // --- register access

        void ld32(int reg) {
            cb.iload(i0 + reg);
        }

        void st32(int reg) {
            cb.istore(i0 + reg);
        }

        void ld64(int reg) {
            cb.iload(i0 + reg + 1).i2l().bipush(32).lshl();
            cb.iload(i0 + reg).i2l().loadConstant(0xFFFF_FFFFL).land().lor();
        }

        void st64(int reg) {
            cb.dup2().l2i().istore(i0 + reg);
            cb.bipush(32).lushr().l2i().istore(i0 + reg + 1);
        }

        void ldf32(int reg) {
            ld32(reg);
            cb.invokestatic(CD_SUPPORT, "f32", MethodTypeDesc.of(ConstantDescs.CD_float, ConstantDescs.CD_int));
        }

        void stf32(int reg) {
            cb.invokestatic(CD_SUPPORT, "f32", MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_float));
            st32(reg);
        }

        void ldf64(int reg) {
            ld64(reg);
            cb.invokestatic(CD_SUPPORT, "f64", MethodTypeDesc.of(ConstantDescs.CD_double, ConstantDescs.CD_long));
        }

        void stf64(int reg) {
            cb.invokestatic(CD_SUPPORT, "f64", MethodTypeDesc.of(ConstantDescs.CD_long, ConstantDescs.CD_double));
            st64(reg);
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
            cb.invokestatic(CD_SUPPORT, "release", MethodTypeDesc.of(ConstantDescs.CD_void, CD_REF));
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

        void remap(int[] pairs) {
            for (int i = 0; i < pairs.length; i += 2) {
                int s = pairs[i];
                int d = pairs[i + 1];
                if ((s & TYPE_BIT) != 0) {
                    retainOrMove(s, d);
                } else {
                    ld32(s);
                    st32(d);
                }
            }
        }

        void branchTo(int target, int[] pairs) {
            remap(pairs);
            Label l = blocks.get(target);
            if (l == null) {
                throw new IllegalStateException("branch target " + target + " is not a block");
            }
            cb.goto_(l);
        }

        void setPc(int pc) {
            cb.loadConstant(pc).istore(pcLocal);
        }

        /** [int condition] -> 0/1 into i32 register {@code res}, for an int-compare branch opcode. */
        void bool(Opcode ifTrue, int res) {
            Label t = cb.newLabel();
            Label e = cb.newLabel();
            cb.branch(ifTrue, t);
            cb.iconst_0().goto_(e);
            cb.labelBinding(t);
            cb.iconst_1();
            cb.labelBinding(e);
            st32(res);
        }

        int reg(Insn i, int k) {
            return (Integer) i.ops.get(k);
        }

        boolean inline(Insn i) {
            if (i.opcode < 0xE0) {
                return switch (i.opcode) {
                    case CoreOps.CONST_I32_ZERO, CoreOps.CONST_I32, CoreOps.CONST_I64_ZERO, CoreOps.CONST_I64,
                         CoreOps.CONST_REF_ZERO, CoreOps.DISCARD_REFS, CoreOps.ASSIGN_REF, CoreOps.SELECT_I32,
                         CoreOps.SELECT_I64, CoreOps.ADD_I32, CoreOps.SUB_I32, CoreOps.MUL_I32, CoreOps.AND_I32,
                         CoreOps.OR_I32, CoreOps.XOR_I32, CoreOps.SHL_I32, CoreOps.SHR_I32_S, CoreOps.SHR_I32_U,
                         CoreOps.CMP_EQI32, CoreOps.CMP_NEI32, CoreOps.CMP_LTI32_S, CoreOps.CMP_LTI32_U,
                         CoreOps.CMP_NZI32, CoreOps.ADD_I64, CoreOps.SUB_I64, CoreOps.MUL_I64, CoreOps.AND_I64,
                         CoreOps.OR_I64, CoreOps.XOR_I64, CoreOps.SHL_I64, CoreOps.SHR_I64_S, CoreOps.SHR_I64_U,
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
            InstructionExtension ext = m.extensions[i.opcode - 0xE0];
            if (ext instanceof ExtF32Extension) {
                return switch (i.extOpcode) {
                    case ExtF32Ops.CONST_F32_ZERO, ExtF32Ops.CONST_F32, ExtF32Ops.SELECT_F32, ExtF32Ops.ADD_F32,
                         ExtF32Ops.SUB_F32, ExtF32Ops.MUL_F32, ExtF32Ops.DIV_F32, ExtF32Ops.MIN_F32,
                         ExtF32Ops.MAX_F32, ExtF32Ops.FMAF32, ExtF32Ops.ABS_F32, ExtF32Ops.NEG_F32,
                         ExtF32Ops.SQRT_F32, ExtF32Ops.CAST_SI32_F32, ExtF32Ops.BITCAST_I32_F32,
                         ExtF32Ops.BITCAST_F32_I32, ExtF32Ops.CMP_EQF32_O, ExtF32Ops.CMP_EQF32_U,
                         ExtF32Ops.CMP_NEF32_O, ExtF32Ops.CMP_NEF32_U, ExtF32Ops.CMP_LTF32_O, ExtF32Ops.CMP_LTF32_U,
                         ExtF32Ops.CMP_LTEF32_O, ExtF32Ops.CMP_LTEF32_U, ExtF32Ops.CMP_NA_NF32,
                         ExtF32Ops.BUFFER_LOAD_F32, ExtF32Ops.BUFFER_STORE_F32 -> true;
                    default -> false;
                };
            }
            if (ext instanceof ExtF64Extension) {
                return switch (i.extOpcode) {
                    case ExtF64Ops.CONST_F64_ZERO, ExtF64Ops.CONST_F64, ExtF64Ops.SELECT_F64, ExtF64Ops.ADD_F64,
                         ExtF64Ops.SUB_F64, ExtF64Ops.MUL_F64, ExtF64Ops.DIV_F64, ExtF64Ops.MIN_F64,
                         ExtF64Ops.MAX_F64, ExtF64Ops.FMAF64, ExtF64Ops.ABS_F64, ExtF64Ops.NEG_F64,
                         ExtF64Ops.SQRT_F64, ExtF64Ops.CAST_SI32_F64, ExtF64Ops.EXT_F32_F64,
                         ExtF64Ops.TRUNC_F64_F32, ExtF64Ops.CMP_EQF64_O, ExtF64Ops.CMP_EQF64_U,
                         ExtF64Ops.CMP_NEF64_O, ExtF64Ops.CMP_NEF64_U, ExtF64Ops.CMP_LTF64_O, ExtF64Ops.CMP_LTF64_U,
                         ExtF64Ops.CMP_LTEF64_O, ExtF64Ops.CMP_LTEF64_U, ExtF64Ops.CMP_NA_NF64,
                         ExtF64Ops.BUFFER_LOAD_F64, ExtF64Ops.BUFFER_STORE_F64 -> true;
                    default -> false;
                };
            }
            return false;
        }

        void op(Insn i) {
            if (!inline(i)) {
                generic(i);
            } else if (i.opcode >= 0xE0) {
                if (m.extensions[i.opcode - 0xE0] instanceof ExtF32Extension) {
                    f32(i);
                } else {
                    f64(i);
                }
            } else {
                core(i);
            }
        }

        /** Spills the registers the op touches, runs the interpreter's helper, reloads them. */
        void generic(Insn i) {
            setPc(i.pc);
            for (int k = i.touch32.nextSetBit(0); k >= 0; k = i.touch32.nextSetBit(k + 1)) {
                cb.aload(rArray).loadConstant(k).iload(i0 + k).iastore();
            }
            for (int k = i.touchRef.nextSetBit(0); k >= 0; k = i.touchRef.nextSetBit(k + 1)) {
                cb.aload(refArray).loadConstant(k).aload(r0 + k).aastore();
            }
            cb.aload(0).loadConstant(base + i.pc).loadConstant(base).aload(rArray).aload(refArray);
            cb.invokestatic(CD_SUPPORT, "op", MethodTypeDesc.of(ConstantDescs.CD_void, CD_ENV, ConstantDescs.CD_int,
                    ConstantDescs.CD_int, ConstantDescs.CD_int.arrayType(), CD_REF_ARRAY));
            for (int k = i.touch32.nextSetBit(0); k >= 0; k = i.touch32.nextSetBit(k + 1)) {
                cb.aload(rArray).loadConstant(k).iaload().istore(i0 + k);
            }
            for (int k = i.touchRef.nextSetBit(0); k >= 0; k = i.touchRef.nextSetBit(k + 1)) {
                cb.aload(refArray).loadConstant(k).aaload().astore(r0 + k);
                cb.aload(refArray).loadConstant(k).aconst_null().aastore();
            }
        }

        void binary32(Insn i, Opcode op) {
            ld32(reg(i, 0));
            ld32(reg(i, 1));
            cb.with(java.lang.classfile.instruction.OperatorInstruction.of(op));
            st32(reg(i, 2));
        }

        void binary64(Insn i, Opcode op) {
            ld64(reg(i, 0));
            ld64(reg(i, 1));
            cb.with(java.lang.classfile.instruction.OperatorInstruction.of(op));
            st64(reg(i, 2));
        }

        void shift64(Insn i, Opcode op) {
            ld64(reg(i, 0));
            ld32(reg(i, 1));
            cb.with(java.lang.classfile.instruction.OperatorInstruction.of(op));
            st64(reg(i, 2));
        }

        void buffer(Insn i, String what) {
            setPc(i.pc);
            cb.aload(ref(reg(i, 0))).loadConstant(what);
            cb.invokestatic(CD_SUPPORT, "buffer", MethodTypeDesc.of(CD_BUFFER, CD_REF, ConstantDescs.CD_String));
            ld64(reg(i, 1));
        }

        void load(String method, ClassDesc type) {
            cb.invokevirtual(CD_BUFFER, method, MethodTypeDesc.of(type, ConstantDescs.CD_long));
        }

        void store(String method, ClassDesc type) {
            cb.invokevirtual(CD_BUFFER, method, MethodTypeDesc.of(ConstantDescs.CD_void, ConstantDescs.CD_long, type));
        }

        void core(Insn i) {
            switch (i.opcode) {
                case CoreOps.BLOCK -> cb.labelBinding(blocks.get(i.pc));
                case CoreOps.CONST_I32_ZERO -> {
                    cb.iconst_0();
                    st32(reg(i, 0));
                }
                case CoreOps.CONST_I32 -> {
                    cb.loadConstant((int) (long) (Long) i.ops.get(0));
                    st32(reg(i, 1));
                }
                case CoreOps.CONST_I64_ZERO -> {
                    cb.lconst_0();
                    st64(reg(i, 0));
                }
                case CoreOps.CONST_I64 -> {
                    cb.loadConstant((long) (Long) i.ops.get(0));
                    st64(reg(i, 1));
                }
                case CoreOps.CONST_REF_ZERO -> {
                    setPc(i.pc);
                    cb.aconst_null();
                    assignRef(reg(i, 0));
                }
                case CoreOps.DISCARD_REFS -> {
                    setPc(i.pc);
                    for (int r : (int[]) i.ops.get(0)) {
                        cb.aconst_null();
                        assignRef(r);
                    }
                }
                case CoreOps.ASSIGN_REF -> {
                    setPc(i.pc);
                    retainOrMove(reg(i, 0), reg(i, 1));
                }
                case CoreOps.SELECT_I32, CoreOps.SELECT_I64 -> {
                    boolean wide = i.opcode == CoreOps.SELECT_I64;
                    Label fl = cb.newLabel();
                    Label e = cb.newLabel();
                    ld32(reg(i, 0));
                    cb.ifeq(fl);
                    if (wide) {
                        ld64(reg(i, 1));
                    } else {
                        ld32(reg(i, 1));
                    }
                    cb.goto_(e);
                    cb.labelBinding(fl);
                    if (wide) {
                        ld64(reg(i, 2));
                    } else {
                        ld32(reg(i, 2));
                    }
                    cb.labelBinding(e);
                    if (wide) {
                        st64(reg(i, 3));
                    } else {
                        st32(reg(i, 3));
                    }
                }
                case CoreOps.ADD_I32 -> binary32(i, Opcode.IADD);
                case CoreOps.SUB_I32 -> binary32(i, Opcode.ISUB);
                case CoreOps.MUL_I32 -> binary32(i, Opcode.IMUL);
                case CoreOps.AND_I32 -> binary32(i, Opcode.IAND);
                case CoreOps.OR_I32 -> binary32(i, Opcode.IOR);
                case CoreOps.XOR_I32 -> binary32(i, Opcode.IXOR);
                case CoreOps.SHL_I32 -> binary32(i, Opcode.ISHL);
                case CoreOps.SHR_I32_S -> binary32(i, Opcode.ISHR);
                case CoreOps.SHR_I32_U -> binary32(i, Opcode.IUSHR);
                case CoreOps.CMP_EQI32, CoreOps.CMP_NEI32, CoreOps.CMP_LTI32_S -> {
                    ld32(reg(i, 0));
                    ld32(reg(i, 1));
                    bool(i.opcode == CoreOps.CMP_EQI32 ? Opcode.IF_ICMPEQ
                            : i.opcode == CoreOps.CMP_NEI32 ? Opcode.IF_ICMPNE : Opcode.IF_ICMPLT, reg(i, 2));
                }
                case CoreOps.CMP_LTI32_U -> {
                    ld32(reg(i, 0));
                    ld32(reg(i, 1));
                    cb.invokestatic(CD_SUPPORT, "cmpLtU32", MethodTypeDesc.of(ConstantDescs.CD_int,
                            ConstantDescs.CD_int, ConstantDescs.CD_int));
                    st32(reg(i, 2));
                }
                case CoreOps.CMP_NZI32 -> {
                    ld32(reg(i, 0));
                    bool(Opcode.IFNE, reg(i, 1));
                }
                case CoreOps.ADD_I64 -> binary64(i, Opcode.LADD);
                case CoreOps.SUB_I64 -> binary64(i, Opcode.LSUB);
                case CoreOps.MUL_I64 -> binary64(i, Opcode.LMUL);
                case CoreOps.AND_I64 -> binary64(i, Opcode.LAND);
                case CoreOps.OR_I64 -> binary64(i, Opcode.LOR);
                case CoreOps.XOR_I64 -> binary64(i, Opcode.LXOR);
                case CoreOps.SHL_I64 -> shift64(i, Opcode.LSHL);
                case CoreOps.SHR_I64_S -> shift64(i, Opcode.LSHR);
                case CoreOps.SHR_I64_U -> shift64(i, Opcode.LUSHR);
                case CoreOps.CMP_EQI64, CoreOps.CMP_NEI64, CoreOps.CMP_LTI64_S -> {
                    ld64(reg(i, 0));
                    ld64(reg(i, 1));
                    cb.lcmp();
                    bool(i.opcode == CoreOps.CMP_EQI64 ? Opcode.IFEQ
                            : i.opcode == CoreOps.CMP_NEI64 ? Opcode.IFNE : Opcode.IFLT, reg(i, 2));
                }
                case CoreOps.CMP_LTI64_U -> {
                    ld64(reg(i, 0));
                    ld64(reg(i, 1));
                    cb.invokestatic(CD_SUPPORT, "cmpLtU64", MethodTypeDesc.of(ConstantDescs.CD_int,
                            ConstantDescs.CD_long, ConstantDescs.CD_long));
                    st32(reg(i, 2));
                }
                case CoreOps.CMP_NZI64 -> {
                    ld64(reg(i, 0));
                    cb.lconst_0().lcmp();
                    bool(Opcode.IFNE, reg(i, 1));
                }
                case CoreOps.EXT_I32_I64_S -> {
                    ld32(reg(i, 0));
                    cb.i2l();
                    st64(reg(i, 1));
                }
                case CoreOps.EXT_I32_I64_U -> {
                    ld32(reg(i, 0));
                    cb.i2l().loadConstant(0xFFFF_FFFFL).land();
                    st64(reg(i, 1));
                }
                case CoreOps.TRUNC_I64_I32 -> {
                    ld64(reg(i, 0));
                    cb.l2i();
                    st32(reg(i, 1));
                }
                case CoreOps.CMP_EQREF, CoreOps.CMP_NEREF -> {
                    Label t = cb.newLabel();
                    Label e = cb.newLabel();
                    cb.aload(ref(reg(i, 0))).aload(ref(reg(i, 1)));
                    cb.branch(i.opcode == CoreOps.CMP_EQREF ? Opcode.IF_ACMPEQ : Opcode.IF_ACMPNE, t);
                    cb.iconst_0().goto_(e);
                    cb.labelBinding(t);
                    cb.iconst_1();
                    cb.labelBinding(e);
                    st32(reg(i, 2));
                }
                case CoreOps.CMP_NZREF -> {
                    Label t = cb.newLabel();
                    Label e = cb.newLabel();
                    cb.aload(ref(reg(i, 0))).ifnonnull(t);
                    cb.iconst_0().goto_(e);
                    cb.labelBinding(t);
                    cb.iconst_1();
                    cb.labelBinding(e);
                    st32(reg(i, 1));
                }
                case CoreOps.BRANCH -> {
                    setPc(i.pc);
                    branchTo((Integer) i.ops.get(0), (int[]) i.ops.get(1));
                }
                case CoreOps.COND_BRANCH -> {
                    setPc(i.pc);
                    Label fl = cb.newLabel();
                    ld32(reg(i, 0));
                    cb.ifeq(fl);
                    branchTo((Integer) i.ops.get(1), (int[]) i.ops.get(2));
                    cb.labelBinding(fl);
                    branchTo((Integer) i.ops.get(3), (int[]) i.ops.get(4));
                }
                case CoreOps.BRANCH_TABLE -> {
                    setPc(i.pc);
                    int size = (Integer) i.ops.get(3);
                    Label dflt = cb.newLabel();
                    List<SwitchCase> cases = new ArrayList<>();
                    List<Label> labels = new ArrayList<>();
                    for (int k = 0; k < size; k++) {
                        Label l = cb.newLabel();
                        labels.add(l);
                        cases.add(SwitchCase.of(k, l));
                    }
                    if (size > 0) {
                        ld32(reg(i, 0));
                        cb.tableswitch(0, size - 1, dflt, cases);
                        for (int k = 0; k < size; k++) {
                            cb.labelBinding(labels.get(k));
                            branchTo((Integer) i.ops.get(4 + 2 * k), (int[]) i.ops.get(5 + 2 * k));
                        }
                    }
                    cb.labelBinding(dflt);
                    branchTo((Integer) i.ops.get(1), (int[]) i.ops.get(2));
                }
                case CoreOps.CALL -> call(i);
                case CoreOps.RETURN -> ret(i);
                case CoreOps.FAIL -> {
                    setPc(i.pc);
                    int[] s = (int[]) i.ops.get(1);
                    String message = printable(new String(m.code, s[0], s[1], StandardCharsets.UTF_8));
                    Label ok = cb.newLabel();
                    ld32(reg(i, 0));
                    cb.ifeq(ok);
                    ld32(reg(i, 0));
                    cb.loadConstant(message);
                    cb.invokestatic(CD_SUPPORT, "fail", MethodTypeDesc.of(CD_STATUS, ConstantDescs.CD_int,
                            ConstantDescs.CD_String));
                    cb.athrow();
                    cb.labelBinding(ok);
                }
                case CoreOps.TRACE, CoreOps.PRINT -> {
                    setPc(i.pc);
                    for (int r : (int[]) i.ops.get(1)) {
                        if ((r & (TYPE_BIT | MOVE_BIT)) == (TYPE_BIT | MOVE_BIT)) {
                            cb.aconst_null();
                            assignRef(r);
                        }
                    }
                }
                case CoreOps.IMPORT_RESOLVED -> {
                    int ordinal = (Integer) i.ops.get(0) & 0x7FFF_FFFF;
                    Label t = cb.newLabel();
                    Label e = cb.newLabel();
                    cb.aload(0).getfield(CD_ENV, "st", CD_STATE).getfield(CD_STATE, "imports",
                            CD_FUNCTION.arrayType()).loadConstant(ordinal).aaload().ifnonnull(t);
                    cb.iconst_0().goto_(e);
                    cb.labelBinding(t);
                    cb.iconst_1();
                    cb.labelBinding(e);
                    st32(reg(i, 1));
                }
                case CoreOps.BUFFER_LOAD_I8_U, CoreOps.BUFFER_LOAD_I8_S -> {
                    buffer(i, "source_buffer");
                    load("loadI8", ConstantDescs.CD_byte);
                    if (i.opcode == CoreOps.BUFFER_LOAD_I8_U) {
                        cb.loadConstant(0xFF).iand();
                    }
                    st32(reg(i, 2));
                }
                case CoreOps.BUFFER_LOAD_I16_U, CoreOps.BUFFER_LOAD_I16_S -> {
                    buffer(i, "source_buffer");
                    load("loadI16", ConstantDescs.CD_short);
                    if (i.opcode == CoreOps.BUFFER_LOAD_I16_U) {
                        cb.loadConstant(0xFFFF).iand();
                    }
                    st32(reg(i, 2));
                }
                case CoreOps.BUFFER_LOAD_I32 -> {
                    buffer(i, "source_buffer");
                    load("loadI32", ConstantDescs.CD_int);
                    st32(reg(i, 2));
                }
                case CoreOps.BUFFER_LOAD_I64 -> {
                    buffer(i, "source_buffer");
                    load("loadI64", ConstantDescs.CD_long);
                    st64(reg(i, 2));
                }
                case CoreOps.BUFFER_STORE_I8 -> {
                    buffer(i, "target_buffer");
                    ld32(reg(i, 2));
                    cb.i2b();
                    store("storeI8", ConstantDescs.CD_byte);
                }
                case CoreOps.BUFFER_STORE_I16 -> {
                    buffer(i, "target_buffer");
                    ld32(reg(i, 2));
                    cb.i2s();
                    store("storeI16", ConstantDescs.CD_short);
                }
                case CoreOps.BUFFER_STORE_I32 -> {
                    buffer(i, "target_buffer");
                    ld32(reg(i, 2));
                    store("storeI32", ConstantDescs.CD_int);
                }
                case CoreOps.BUFFER_STORE_I64 -> {
                    buffer(i, "target_buffer");
                    ld64(reg(i, 2));
                    store("storeI64", ConstantDescs.CD_long);
                }
                default -> throw new IllegalStateException("no inline form of opcode " + i.opcode);
            }
        }

        void call(Insn i) {
            int g = (Integer) i.ops.get(0);
            int[] args = (int[]) i.ops.get(1);
            int[] results = (int[]) i.ops.get(2);
            setPc(i.next);
            cb.aload(0);
            byte[] kinds = m.fnArgKinds[g];
            for (int k = 0; k < args.length; k++) {
                switch (kinds[k]) {
                    case BytecodeModule.KIND_32 -> ld32(args[k]);
                    case BytecodeModule.KIND_64 -> ld64(args[k]);
                    default -> takeRef(args[k]);
                }
            }
            cb.invokestatic(self, "f" + g, descriptor(g));
            byte[] rk = m.fnResultKinds[g];
            if (rk.length == 1) {
                switch (rk[0]) {
                    case BytecodeModule.KIND_32 -> st32(results[0]);
                    case BytecodeModule.KIND_64 -> st64(results[0]);
                    default -> assignRef(results[0]);
                }
            } else {
                for (int k = 0; k < rk.length; k++) {
                    if (rk[k] == BytecodeModule.KIND_REF) {
                        cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k).aaload();
                        cb.aload(0).getfield(CD_ENV, "rr", CD_REF_ARRAY).loadConstant(k).aconst_null().aastore();
                        assignRef(results[k]);
                    } else {
                        cb.aload(0).getfield(CD_ENV, "rb", ConstantDescs.CD_long.arrayType()).loadConstant(k)
                                .laload();
                        if (rk[k] == BytecodeModule.KIND_32) {
                            cb.l2i();
                            st32(results[k]);
                        } else {
                            st64(results[k]);
                        }
                    }
                }
            }
        }

        void ret(Insn i) {
            int[] regs = (int[]) i.ops.get(0);
            byte[] kinds = m.fnResultKinds[f];
            setPc(i.pc);
            if (kinds.length == 0) {
                cb.return_();
            } else if (kinds.length == 1) {
                switch (kinds[0]) {
                    case BytecodeModule.KIND_32 -> {
                        ld32(regs[0]);
                        cb.ireturn();
                    }
                    case BytecodeModule.KIND_64 -> {
                        ld64(regs[0]);
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
                        cb.aload(0).getfield(CD_ENV, "rb", ConstantDescs.CD_long.arrayType()).loadConstant(k);
                        if (kinds[k] == BytecodeModule.KIND_32) {
                            ld32(regs[k]);
                            cb.i2l();
                        } else {
                            ld64(regs[k]);
                        }
                        cb.lastore();
                    }
                }
                cb.return_();
            }
        }

        void floatCompare(Insn i, int kind, boolean unordered, boolean wide) {
            if (wide) {
                ldf64(reg(i, 0));
                ldf64(reg(i, 1));
            } else {
                ldf32(reg(i, 0));
                cb.f2d();
                ldf32(reg(i, 1));
                cb.f2d();
            }
            cb.loadConstant(kind).loadConstant(unordered ? 1 : 0);
            cb.invokestatic(CD_SUPPORT, "cmpF", MethodTypeDesc.of(ConstantDescs.CD_int, ConstantDescs.CD_double,
                    ConstantDescs.CD_double, ConstantDescs.CD_int, ConstantDescs.CD_boolean));
            st32(reg(i, 2));
        }

        void support(String name, ClassDesc ret, ClassDesc... params) {
            cb.invokestatic(CD_SUPPORT, name, MethodTypeDesc.of(ret, params));
        }

        void f32(Insn i) {
            ClassDesc fl = ConstantDescs.CD_float;
            switch (i.extOpcode) {
                case ExtF32Ops.CONST_F32_ZERO -> {
                    cb.iconst_0();
                    st32(reg(i, 0));
                }
                case ExtF32Ops.CONST_F32 -> {
                    cb.loadConstant((int) (long) (Long) i.ops.get(0));
                    st32(reg(i, 1));
                }
                case ExtF32Ops.SELECT_F32 -> {
                    Label f = cb.newLabel();
                    Label e = cb.newLabel();
                    ld32(reg(i, 0));
                    cb.ifeq(f);
                    ld32(reg(i, 1));
                    cb.goto_(e);
                    cb.labelBinding(f);
                    ld32(reg(i, 2));
                    cb.labelBinding(e);
                    st32(reg(i, 3));
                }
                case ExtF32Ops.ADD_F32, ExtF32Ops.SUB_F32, ExtF32Ops.MUL_F32, ExtF32Ops.DIV_F32, ExtF32Ops.MIN_F32,
                     ExtF32Ops.MAX_F32 -> {
                    ldf32(reg(i, 0));
                    ldf32(reg(i, 1));
                    switch (i.extOpcode) {
                        case ExtF32Ops.ADD_F32 -> cb.fadd();
                        case ExtF32Ops.SUB_F32 -> cb.fsub();
                        case ExtF32Ops.MUL_F32 -> cb.fmul();
                        case ExtF32Ops.DIV_F32 -> cb.fdiv();
                        case ExtF32Ops.MIN_F32 -> support("minF32", fl, fl, fl);
                        default -> support("maxF32", fl, fl, fl);
                    }
                    stf32(reg(i, 2));
                }
                case ExtF32Ops.FMAF32 -> {
                    ldf32(reg(i, 0));
                    ldf32(reg(i, 1));
                    ldf32(reg(i, 2));
                    support("fmaF32", fl, fl, fl, fl);
                    stf32(reg(i, 3));
                }
                case ExtF32Ops.ABS_F32, ExtF32Ops.NEG_F32, ExtF32Ops.SQRT_F32 -> {
                    ldf32(reg(i, 0));
                    switch (i.extOpcode) {
                        case ExtF32Ops.ABS_F32 -> cb.invokestatic(ClassDesc.of("java.lang.Math"), "abs",
                                MethodTypeDesc.of(fl, fl));
                        case ExtF32Ops.NEG_F32 -> cb.fneg();
                        default -> support("sqrtF32", fl, fl);
                    }
                    stf32(reg(i, 1));
                }
                case ExtF32Ops.CAST_SI32_F32 -> {
                    ld32(reg(i, 0));
                    cb.i2f();
                    stf32(reg(i, 1));
                }
                case ExtF32Ops.BITCAST_I32_F32, ExtF32Ops.BITCAST_F32_I32 -> {
                    ld32(reg(i, 0));
                    st32(reg(i, 1));
                }
                case ExtF32Ops.CMP_EQF32_O -> floatCompare(i, 0, false, false);
                case ExtF32Ops.CMP_EQF32_U -> floatCompare(i, 0, true, false);
                case ExtF32Ops.CMP_NEF32_O -> floatCompare(i, 1, false, false);
                case ExtF32Ops.CMP_NEF32_U -> floatCompare(i, 1, true, false);
                case ExtF32Ops.CMP_LTF32_O -> floatCompare(i, 2, false, false);
                case ExtF32Ops.CMP_LTF32_U -> floatCompare(i, 2, true, false);
                case ExtF32Ops.CMP_LTEF32_O -> floatCompare(i, 3, false, false);
                case ExtF32Ops.CMP_LTEF32_U -> floatCompare(i, 3, true, false);
                case ExtF32Ops.CMP_NA_NF32 -> {
                    ldf32(reg(i, 0));
                    cb.invokestatic(ConstantDescs.CD_Float, "isNaN", MethodTypeDesc.of(ConstantDescs.CD_boolean, fl));
                    st32(reg(i, 1));
                }
                case ExtF32Ops.BUFFER_LOAD_F32 -> {
                    buffer(i, "buffer");
                    load("loadF32", fl);
                    stf32(reg(i, 2));
                }
                case ExtF32Ops.BUFFER_STORE_F32 -> {
                    buffer(i, "buffer");
                    ldf32(reg(i, 2));
                    store("storeF32", fl);
                }
                default -> throw new IllegalStateException("no inline form of f32 opcode " + i.extOpcode);
            }
        }

        void f64(Insn i) {
            ClassDesc db = ConstantDescs.CD_double;
            switch (i.extOpcode) {
                case ExtF64Ops.CONST_F64_ZERO -> {
                    cb.lconst_0();
                    st64(reg(i, 0));
                }
                case ExtF64Ops.CONST_F64 -> {
                    cb.loadConstant((long) (Long) i.ops.get(0));
                    st64(reg(i, 1));
                }
                case ExtF64Ops.SELECT_F64 -> {
                    Label f = cb.newLabel();
                    Label e = cb.newLabel();
                    ld32(reg(i, 0));
                    cb.ifeq(f);
                    ld64(reg(i, 1));
                    cb.goto_(e);
                    cb.labelBinding(f);
                    ld64(reg(i, 2));
                    cb.labelBinding(e);
                    st64(reg(i, 3));
                }
                case ExtF64Ops.ADD_F64, ExtF64Ops.SUB_F64, ExtF64Ops.MUL_F64, ExtF64Ops.DIV_F64, ExtF64Ops.MIN_F64,
                     ExtF64Ops.MAX_F64 -> {
                    ldf64(reg(i, 0));
                    ldf64(reg(i, 1));
                    switch (i.extOpcode) {
                        case ExtF64Ops.ADD_F64 -> cb.dadd();
                        case ExtF64Ops.SUB_F64 -> cb.dsub();
                        case ExtF64Ops.MUL_F64 -> cb.dmul();
                        case ExtF64Ops.DIV_F64 -> cb.ddiv();
                        case ExtF64Ops.MIN_F64 -> support("minF64", db, db, db);
                        default -> support("maxF64", db, db, db);
                    }
                    stf64(reg(i, 2));
                }
                case ExtF64Ops.FMAF64 -> {
                    ldf64(reg(i, 0));
                    ldf64(reg(i, 1));
                    ldf64(reg(i, 2));
                    support("fmaF64", db, db, db, db);
                    stf64(reg(i, 3));
                }
                case ExtF64Ops.ABS_F64, ExtF64Ops.NEG_F64, ExtF64Ops.SQRT_F64 -> {
                    ldf64(reg(i, 0));
                    switch (i.extOpcode) {
                        case ExtF64Ops.ABS_F64 -> cb.invokestatic(ClassDesc.of("java.lang.Math"), "abs",
                                MethodTypeDesc.of(db, db));
                        case ExtF64Ops.NEG_F64 -> cb.dneg();
                        default -> cb.invokestatic(ClassDesc.of("java.lang.Math"), "sqrt", MethodTypeDesc.of(db, db));
                    }
                    stf64(reg(i, 1));
                }
                case ExtF64Ops.CAST_SI32_F64 -> {
                    ld32(reg(i, 0));
                    cb.i2d();
                    stf64(reg(i, 1));
                }
                case ExtF64Ops.EXT_F32_F64 -> {
                    ldf32(reg(i, 0));
                    cb.f2d();
                    stf64(reg(i, 1));
                }
                case ExtF64Ops.TRUNC_F64_F32 -> {
                    ldf64(reg(i, 0));
                    cb.d2f();
                    stf32(reg(i, 1));
                }
                case ExtF64Ops.CMP_EQF64_O -> floatCompare(i, 0, false, true);
                case ExtF64Ops.CMP_EQF64_U -> floatCompare(i, 0, true, true);
                case ExtF64Ops.CMP_NEF64_O -> floatCompare(i, 1, false, true);
                case ExtF64Ops.CMP_NEF64_U -> floatCompare(i, 1, true, true);
                case ExtF64Ops.CMP_LTF64_O -> floatCompare(i, 2, false, true);
                case ExtF64Ops.CMP_LTF64_U -> floatCompare(i, 2, true, true);
                case ExtF64Ops.CMP_LTEF64_O -> floatCompare(i, 3, false, true);
                case ExtF64Ops.CMP_LTEF64_U -> floatCompare(i, 3, true, true);
                case ExtF64Ops.CMP_NA_NF64 -> {
                    ldf64(reg(i, 0));
                    cb.invokestatic(ConstantDescs.CD_Double, "isNaN", MethodTypeDesc.of(ConstantDescs.CD_boolean, db));
                    st32(reg(i, 1));
                }
                case ExtF64Ops.BUFFER_LOAD_F64 -> {
                    buffer(i, "buffer");
                    load("loadF64", db);
                    stf64(reg(i, 2));
                }
                case ExtF64Ops.BUFFER_STORE_F64 -> {
                    buffer(i, "buffer");
                    ldf64(reg(i, 2));
                    store("storeF64", db);
                }
                default -> throw new IllegalStateException("no inline form of f64 opcode " + i.extOpcode);
            }
        }
    }
}
