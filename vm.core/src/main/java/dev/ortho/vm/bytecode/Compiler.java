package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Interpreter.MOVE_BIT;
import static dev.ortho.vm.bytecode.Interpreter.REF_MASK;
import static dev.ortho.vm.bytecode.Interpreter.TYPE_BIT;

import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.Function;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.internal.isa.CoreOps;
import dev.ortho.vm.spi.InstructionExtension;
import dev.ortho.vm.spi.OpDescriptor;
import dev.ortho.vm.spi.OperandKind;
import dev.ortho.vm.spi.OperandSpec;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.constant.ClassDesc;
import java.lang.constant.ConstantDescs;
import java.lang.constant.MethodTypeDesc;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Translates verified bytecode functions of one {@link BytecodeModule} into static methods of a
 * hidden class defined through this package's lookup (so it lives in vm.core's class loader,
 * works in any OSGi host and is unloaded with the module). Runs on the calling thread.
 *
 * <p>Registers: {@link RegisterWebs} splits the i32 bank into def-use webs; when every web keeps
 * one register and one width, each becomes a JVM local of the type the code proves ({@code int},
 * {@code float}, {@code long}, {@code double}), so 64-bit values are {@code long}s and f32/f64
 * arithmetic never leaves the FPU registers. Otherwise (a function reads the halves of an i64 as
 * i32s, say) each i32 register is an {@code int} local and a 64-bit register the interpreter's
 * aligned pair ({@link BytecodeModule#registerReport} says which and why). Each ref register is a
 * {@code RefObject} local with the interpreter's retain/move/release rules. Block markers become
 * labels, internal calls direct JVM calls with typed parameters (one result is returned, more go
 * through the call environment), import calls go through the callee module's
 * {@code beginCall} as the interpreter's do. Every core integer op and the common ExtF32/ExtF64
 * ops are emitted inline, {@code vm.buffer} loads and stores check bounds inline and access the
 * buffer's memory segment directly; every other op runs the interpreter's own helper on spilled
 * registers, so its semantics are the interpreter's by construction. A trap records
 * {@code function+pc} for the backtrace and releases the frame's refs as the unwinder does.
 *
 * <p>Not compiled (they stay interpreted): functions that yield, or call yieldable or variadic
 * functions ({@code vm.call.yieldable}, {@code vm.call.variadic[.yieldable]}: the HAL module's
 * {@code fence.await} and variadic exports), use {@code vm.break}/{@code vm.cond_break}, take
 * part in recursion, or call a function that is not compiled; modules with execution tracing.
 * An import that defers on a plain {@code vm.call} (IREE asserts "deferred calls must use
 * vm.call.yieldable") fails the compiled call with FAILED_PRECONDITION where the interpreter
 * would yield. Compiled activations push no VM stack frames, so an import called from compiled
 * code sees only the entry frame's bytes charged against {@code Stack.MAX_SIZE_BYTES}. A function
 * whose JVM method would reach HotSpot's 8,000-byte limit for JIT compilation (or the class
 * file's 64 KiB) is split into several methods ({@link MethodSplitter}); one that cannot be split
 * small enough, or whose registers do not fit the JVM's locals, stays interpreted on its own (its
 * callers then too); only a failure of the generator itself makes the whole module interpreted.
 * Per function the result records its JVM methods, their bytecode bytes and the time spent
 * translating it ({@link BytecodeModule#compilationStatistics()}).
 */
final class Compiler {
    static final ClassDesc CD_ENV = ClassDesc.of(CompiledSupport.Env.class.getName());
    static final ClassDesc CD_SUPPORT = ClassDesc.of(CompiledSupport.class.getName());
    static final ClassDesc CD_ENTRY = ClassDesc.of(CompiledSupport.Entry.class.getName());
    static final ClassDesc CD_REF = ClassDesc.of(RefObject.class.getName());
    static final ClassDesc CD_BUFFER = ClassDesc.of(VmBuffer.class.getName());
    static final ClassDesc CD_CALLBUFFER = ClassDesc.of(CallBuffer.class.getName());
    static final ClassDesc CD_STATE = ClassDesc.of(BytecodeModule.State.class.getName());
    static final ClassDesc CD_FUNCTION = ClassDesc.of(Function.class.getName());
    static final ClassDesc CD_STATUS = ClassDesc.of(dev.ortho.base.StatusException.class.getName());
    static final ClassDesc CD_REF_ARRAY = CD_REF.arrayType();

    /** The outcome: which functions compiled, the entry object and the static stack bound per function. */
    record Result(boolean[] compiled, CompiledSupport.Entry entry, long[] maxBytes, int maxResults,
                  String[] reasons, String[] untyped, int[] methods, int[] codeBytes, long[] nanos, long totalNanos,
                  int classBytes) {
    }

    /**
     * One decoded instruction; {@code acc} holds, parallel to {@code ops}, its i32-bank register
     * accesses; {@code writeRef} the ref registers it may write or clear (results, branch
     * destinations, operands passed with the move bit).
     */
    record Insn(int pc, int next, int opcode, int extOpcode, List<Object> ops, BitSet touch32,
                BitSet touchRef, Acc[][] acc, BitSet writeRef) {
        /** The access of the REGISTER operand at {@code ops} index {@code k}. */
        Acc a(int k) {
            return acc[k][0];
        }
    }

    /**
     * One access to the i32 register bank: {@code slot} (and {@code slot + 1} if {@code wide}),
     * typed {@code i f I F} by the op, or {@code a} where the op only moves bits (branch operands,
     * call arguments and results); {@code id} numbers the function's accesses from 0.
     */
    record Acc(int id, int slot, boolean wide, char type, boolean write) {
    }

    final BytecodeModule m;
    final List<List<Insn>> code = new ArrayList<>();
    private final String[] reasons;
    /** Per function: why its registers keep the slot representation (null: typed locals). */
    final String[] untyped;
    final int[] accessCount;
    final ClassDesc self;
    /** Per function: its regions once split ({@link MethodSplitter}), else null. */
    private final List<MethodSplitter.Region>[] plans;
    /** Per function: the region size the split aims at (shrinks if a region came out too large). */
    private final int[] budgets;
    /** Per function: bytes of bytecode per instruction, once measured for a split. */
    private final int[][] sizes;
    /** Per function: its register webs once built (null entries: slot representation). */
    private final RegisterWebs[] webs;
    private final boolean[] websBuilt;
    /** Per function: nanoseconds spent translating it (decoding, webs, emission, splitting). */
    private final long[] nanos;
    /** The method size from which a generated method counts as too large ({@link BytecodeModule#methodLimit}). */
    private final int methodLimit;
    /** True once the bridge {@code call} is too large for one method: one method per function. */
    private boolean splitBridge;

    private Compiler(BytecodeModule m) {
        this.m = m;
        this.methodLimit = m.methodLimit;
        this.reasons = new String[m.functionCount];
        this.untyped = new String[m.functionCount];
        this.accessCount = new int[m.functionCount];
        this.self = ClassDesc.of(Compiler.class.getPackageName() + ".Compiled");
        @SuppressWarnings("unchecked")
        List<MethodSplitter.Region>[] p = new List[m.functionCount];
        this.plans = p;
        this.budgets = new int[m.functionCount];
        java.util.Arrays.fill(budgets, MethodSplitter.firstBudget(methodLimit));
        this.sizes = new int[m.functionCount][];
        this.webs = new RegisterWebs[m.functionCount];
        this.websBuilt = new boolean[m.functionCount];
        this.nanos = new long[m.functionCount];
    }

    /**
     * What {@link #generate} produces, before any class is defined: the class bytes (null when
     * nothing could be generated) and the per-function tables {@link Result} carries. A function
     * of the module's bytes, the extensions' inline choices and {@link PrecompiledModule#FORMAT}.
     */
    record Generated(byte[] classBytes, boolean[] compiled, long[] maxBytes, int maxResults, String[] reasons,
                     String[] untyped, int[] methods, int[] codeBytes, long[] nanos) {
    }

    /** Runs of {@link #generate} in this class loader, for tests proving a path never translates. */
    private static final java.util.concurrent.atomic.LongAdder GENERATIONS = new java.util.concurrent.atomic.LongAdder();

    /** Compiles every function of {@code m} that can be compiled; never throws for a verified module. */
    static Result compile(BytecodeModule m) {
        long t0 = System.nanoTime();
        Generated g = generate(m);
        try {
            return define(g, t0);
        } catch (Throwable e) {
            // A bug in the generator must never break the module: interpret everything.
            String[] reasons = new String[m.functionCount];
            java.util.Arrays.fill(reasons, "compiler failure: " + e);
            return new Result(new boolean[m.functionCount], null, g.maxBytes(), g.maxResults(), reasons, g.untyped(),
                    g.methods(), g.codeBytes(), g.nanos(), System.nanoTime() - t0,
                g.classBytes() == null ? 0 : g.classBytes().length);
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
        return define(g, System.nanoTime());
    }

    /** {@link #define}; the result's {@code totalNanos} counts from {@code t0}. */
    private static Result define(Generated g, long t0) throws Throwable {
        if (g.classBytes() == null) {
            return new Result(g.compiled(), null, g.maxBytes(), g.maxResults(), g.reasons(), g.untyped(), g.methods(),
                    g.codeBytes(), g.nanos(), System.nanoTime() - t0,
                g.classBytes() == null ? 0 : g.classBytes().length);
        }
        MethodHandles.Lookup lookup = MethodHandles.lookup().defineHiddenClass(g.classBytes(), true);
        CompiledSupport.Entry entry = (CompiledSupport.Entry) lookup.findConstructor(lookup.lookupClass(),
                java.lang.invoke.MethodType.methodType(void.class)).invoke();
        return new Result(g.compiled(), entry, g.maxBytes(), g.maxResults(), g.reasons(), g.untyped(), g.methods(),
                g.codeBytes(), g.nanos(), System.nanoTime() - t0,
                g.classBytes() == null ? 0 : g.classBytes().length);
    }

    private Generated run() {
        for (int f = 0; f < m.functionCount; f++) {
            List<Insn> insns = new ArrayList<>();
            code.add(insns);
            if (m.trace) {
                reasons[f] = "execution tracing is on";
                continue;
            }
            long t0 = System.nanoTime();
            try {
                decode(f, insns);
            } catch (RuntimeException e) {
                reasons[f] = "cannot decode: " + e.getMessage();
            }
            nanos[f] += System.nanoTime() - t0;
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
                        if (i.opcode == CoreOps.CALL && (Integer) i.ops.get(0) >= 0) {
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
                byte[] bytes = generate(ready);
                List<Integer> huge = hugeMethods(bytes);
                if (splitBridge) {
                    huge.remove(Integer.valueOf(-1)); // its groups are as small as they get
                }
                if (huge.isEmpty()) {
                    int[][] stats = methodStats(bytes, m.functionCount);
                    return new Generated(bytes, ready, maxBytes, maxResults, reasons, untyped, stats[0], stats[1],
                            nanos.clone());
                }
                for (int f : huge) {
                    if (f < 0) {
                        splitBridge = true;
                    } else if (plans[f] != null && hugeDispatcher(bytes, f)) {
                        // More regions would only make the dispatcher larger.
                        reasons[f] = "JVM method size limit: the dispatcher of " + plans[f].size()
                                + " regions has " + methodLimit + " bytes or more";
                    } else {
                        split(f, "method of " + methodLimit + " bytes or more");
                    }
                }
            } catch (MethodTooLarge e) {
                if (e.registers) {
                    reasons[e.function] = "JVM method size limit: " + e.getMessage();
                } else {
                    split(e.function, e.getMessage());
                }
            } catch (IllegalArgumentException e) {
                // The class file writer checks code length when it writes the class, naming the
                // method ("Code length 190677 is outside the allowed range in f1(...)"): that
                // function is split (again), the others are generated again.
                java.util.regex.Matcher tooLong = e.getMessage() == null ? null
                        : TOO_LONG.matcher(e.getMessage());
                if (tooLong == null || !tooLong.find()) {
                    java.util.Arrays.fill(reasons, "compiler failure: " + e);
                    return new Generated(null, new boolean[m.functionCount], maxBytes, maxResults, reasons, untyped,
                            new int[m.functionCount], new int[m.functionCount], nanos.clone());
                }
                split(Integer.parseInt(tooLong.group(1)), e.getMessage());
            } catch (Throwable e) {
                // A bug in the generator must never break the module: interpret everything.
                java.util.Arrays.fill(reasons, "compiler failure: " + e);
                return new Generated(null, new boolean[m.functionCount], maxBytes, maxResults, reasons, untyped,
                        new int[m.functionCount], new int[m.functionCount], nanos.clone());
            }
        }
    }

    /**
     * Splits function {@code f} into regions ({@link MethodSplitter}), or, if it is split already,
     * into smaller ones; a function that cannot be cut smaller stays interpreted.
     */
    private void split(int f, String why) {
        long t0 = System.nanoTime();
        try {
            if (plans[f] != null) {
                budgets[f] = budgets[f] * 2 / 3;
            }
            if (budgets[f] < methodLimit / 20) {
                reasons[f] = "JVM method size limit: " + why;
                return;
            }
            if (sizes[f] == null) {
                sizes[f] = MethodSplitter.measure(this, f, webs(f));
            }
            plans[f] = MethodSplitter.plan(this, f, webs(f), sizes[f], budgets[f]);
        } finally {
            nanos[f] += System.nanoTime() - t0;
        }
    }

    private boolean hugeDispatcher(byte[] bytes, int f) {
        for (java.lang.classfile.MethodModel mm : ClassFile.of().parse(bytes).methods()) {
            if (mm.methodName().stringValue().equals("f" + f)) {
                return mm.findAttribute(java.lang.classfile.Attributes.code())
                        .map(java.lang.classfile.attribute.CodeAttribute::codeLength).orElse(0)
                        >= methodLimit;
            }
        }
        return false;
    }

    /**
     * The functions of the methods in {@code bytes} that reach {@link #methodLimit}
     * (-1 for the bridge).
     */
    private List<Integer> hugeMethods(byte[] bytes) {
        List<Integer> out = new ArrayList<>();
        for (java.lang.classfile.MethodModel mm : ClassFile.of().parse(bytes).methods()) {
            int length = mm.findAttribute(java.lang.classfile.Attributes.code())
                    .map(java.lang.classfile.attribute.CodeAttribute::codeLength).orElse(0);
            if (length < methodLimit) {
                continue;
            }
            java.util.regex.Matcher name = METHOD_NAME.matcher(mm.methodName().stringValue());
            int f = name.matches() ? Integer.parseInt(name.group(1)) : -1;
            if (!out.contains(f)) {
                out.add(f);
            }
        }
        return out;
    }

    /**
     * Per function, the JVM methods of generated class bytes (1, or a split function's dispatcher
     * and regions) and their bytes of bytecode: {@code {methods, bytes}}; zeros for bytes that
     * are no class.
     */
    static int[][] methodStats(byte[] classBytes, int functionCount) {
        int[][] out = new int[2][functionCount];
        java.lang.classfile.ClassModel model;
        try {
            model = ClassFile.of().parse(classBytes);
        } catch (IllegalArgumentException e) {
            return out; // not a class: defining it fails with the status that says so
        }
        for (java.lang.classfile.MethodModel mm : model.methods()) {
            String name = mm.methodName().stringValue();
            java.util.regex.Matcher n = METHOD_NAME.matcher(name);
            if (name.startsWith("f") && n.matches()) {
                int f = Integer.parseInt(n.group(1));
                if (f < functionCount) {
                    out[0][f]++;
                    out[1][f] += mm.findAttribute(java.lang.classfile.Attributes.code())
                            .map(java.lang.classfile.attribute.CodeAttribute::codeLength).orElse(0);
                }
            }
        }
        return out;
    }

    private static final java.util.regex.Pattern METHOD_NAME = java.util.regex.Pattern.compile("[fc](\\d+)(?:_\\d+)?");

    /** The class file writer's message for a method whose code exceeds 65535 bytes. */
    private static final java.util.regex.Pattern TOO_LONG =
            java.util.regex.Pattern.compile("Code length \\d+ is outside the allowed range in [fc](\\d+)(?:_\\d+)?\\(");

    static final class MethodTooLarge extends RuntimeException {
        final int function;
        /** True if the frame's registers do not fit the JVM's locals (splitting does not help). */
        final boolean registers;

        MethodTooLarge(int function, String message, boolean registers) {
            super(message);
            this.function = function;
            this.registers = registers;
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
        int[] ids = {0};
        while (pc < length - 1) {
            int start = pc;
            int opcode = c[base + pc++] & 0xFF;
            int extOpcode = -1;
            OpDescriptor d;
            if (opcode == CoreOps.BLOCK) {
                out.add(new Insn(start, pc, opcode, -1, List.of(), new BitSet(), new BitSet(), new Acc[0][],
                        new BitSet()));
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
            List<Acc[]> acc = new ArrayList<>();
            BitSet t32 = new BitSet();
            BitSet tRef = new BitSet();
            BitSet wRef = new BitSet();
            int tableSize = 0;
            for (OperandSpec o : d.operands()) {
                switch (o.kind()) {
                    case REGISTER -> {
                        int reg = Interpreter.u16(c, base + pc);
                        pc += 2;
                        ops.add(reg);
                        touch(f, reg, o.type(), t32, tRef);
                        acc.add(new Acc[] {access(f, ids, reg, o.type(), o.write())});
                        if (isRef(reg, o.type()) && (o.write() || (reg & MOVE_BIT) != 0)) {
                            wRef.set(reg & REF_MASK);
                        }
                    }
                    case CONST_I16 -> {
                        tableSize = Interpreter.u16(c, base + pc);
                        pc += 2;
                        ops.add(tableSize);
                        acc.add(null);
                    }
                    case ATTRIBUTE -> {
                        boolean wide = o.type() != null && (o.type().equals("i64") || o.type().equals("f64"));
                        ops.add(wide ? Interpreter.i64(c, base + pc) : (long) Interpreter.i32(c, base + pc));
                        pc += wide ? 8 : 4;
                        acc.add(null);
                    }
                    case RODATA_ATTR, FUNC_ATTR, GLOBAL_ATTR, TYPE_OF, BRANCH_TARGET -> {
                        ops.add(Interpreter.i32(c, base + pc));
                        pc += 4;
                        acc.add(null);
                    }
                    case STRING_ATTR -> {
                        int len = Interpreter.u16(c, base + pc);
                        ops.add(new int[] {base + pc + 2, len});
                        pc += 2 + len;
                        acc.add(null);
                    }
                    case BRANCH_OPERANDS -> {
                        pc += pc & 1;
                        pc = remapList(f, ids, c, base, pc, ops, acc, t32, tRef, wRef);
                    }
                    case BRANCH_TABLE_CASES -> {
                        for (int k = 0; k < tableSize; k++) {
                            ops.add(Interpreter.i32(c, base + pc));
                            acc.add(null);
                            pc += 4;
                            pc += pc & 1;
                            pc = remapList(f, ids, c, base, pc, ops, acc, t32, tRef, wRef);
                        }
                    }
                    case VARIADIC_OPERANDS, VARIADIC_RESULTS -> {
                        pc += pc & 1;
                        int n = Interpreter.u16(c, base + pc);
                        int[] regs = new int[n];
                        Acc[] a = new Acc[n];
                        boolean segments = o.name().equals("segment_sizes");
                        String types = variadicTypes(f, opcode, ops, o.kind() == OperandKind.VARIADIC_RESULTS);
                        for (int i = 0; i < n; i++) {
                            regs[i] = Interpreter.u16(c, base + pc + 2 + 2 * i);
                            if (!segments) {
                                touch(f, regs[i], o.type(), t32, tRef);
                                // Results are written; operands may be moved out of (a call's
                                // argument passed with the move bit), discarded or released.
                                boolean kept = o.kind() == OperandKind.VARIADIC_OPERANDS && opcode == CoreOps.CALL
                                        && (regs[i] & MOVE_BIT) == 0;
                                if (isRef(regs[i], o.type()) && !kept) {
                                    wRef.set(regs[i] & REF_MASK);
                                }
                                String t = types != null && i < types.length() ? typeName(types.charAt(i))
                                        : opcode == CoreOps.TRACE || opcode == CoreOps.PRINT ? "ignored" : o.type();
                                if (!t.equals("ignored")) {
                                    a[i] = access(f, ids, regs[i], t, o.kind() == OperandKind.VARIADIC_RESULTS);
                                }
                            }
                        }
                        pc += 2 + 2 * n;
                        ops.add(regs);
                        acc.add(a);
                    }
                }
            }
            Insn insn = new Insn(start, pc, opcode, extOpcode, ops, t32, tRef, acc.toArray(new Acc[0][]), wRef);
            String why = unsupported(f, insn);
            if (why != null) {
                throw new IllegalStateException(String.format("%s at +%08X", why, start));
            }
            out.add(insn);
        }
        accessCount[f] = ids[0];
    }

    /** The declared calling convention of import {@code ordinal} (high bit set). */
    dev.ortho.vm.CallingConvention importCconv(int ordinal) {
        return m.imports().get(ordinal & 0x7FFF_FFFF).cconv();
    }

    /** Cconv type characters of a call's arguments or results, or of a return; null if not such a list. */
    private String variadicTypes(int f, int opcode, List<Object> ops, boolean results) {
        if (opcode == CoreOps.RETURN) {
            return m.fnCconv[f].results().types();
        }
        if (opcode == CoreOps.CALL) {
            int g = (Integer) ops.get(0);
            dev.ortho.vm.CallingConvention cc = g >= 0 ? m.fnCconv[g] : importCconv(g);
            return results ? cc.results().types() : cc.arguments().types();
        }
        return null;
    }

    private static String typeName(char cconv) {
        return switch (cconv) {
            case 'i' -> "i32";
            case 'f' -> "f32";
            case 'I' -> "i64";
            case 'F' -> "f64";
            default -> "ref";
        };
    }

    /** Reads a branch operand list; a pair of consecutive 32-bit copies of an even register pair is one wide move. */
    private int remapList(int f, int[] ids, byte[] c, int base, int pc, List<Object> ops, List<Acc[]> acc,
                          BitSet t32, BitSet tRef, BitSet wRef) {
        int n = Interpreter.u16(c, base + pc);
        int[] pairs = new int[2 * n];
        for (int i = 0; i < 2 * n; i++) {
            pairs[i] = Interpreter.u16(c, base + pc + 2 + 2 * i);
            touch(f, pairs[i], "i32", t32, tRef);
            if ((pairs[i] & TYPE_BIT) != 0 && ((i & 1) != 0 || (pairs[i] & MOVE_BIT) != 0)) {
                wRef.set(pairs[i] & REF_MASK); // a destination, or a source moved out of
            }
        }
        Acc[] a = new Acc[2 * n];
        for (int i = 0; i < 2 * n; i += 2) {
            int s = pairs[i];
            int d = pairs[i + 1];
            if ((s & TYPE_BIT) != 0) {
                continue;
            }
            boolean wide = (s & 1) == 0 && (d & 1) == 0 && i + 3 < 2 * n && pairs[i + 2] == s + 1
                    && pairs[i + 3] == d + 1 && s + 1 < m.fnI32[f] && d + 1 < m.fnI32[f];
            a[i] = new Acc(ids[0]++, s, wide, 'a', false);
            a[i + 1] = new Acc(ids[0]++, d, wide, 'a', true);
            if (wide) {
                i += 2;
            }
        }
        ops.add(pairs);
        acc.add(a);
        return pc + 2 + 4 * n;
    }

    /** The access of i32-bank register {@code reg} typed {@code type}; null for a ref register. */
    private Acc access(int f, int[] ids, int reg, String type, boolean write) {
        boolean ref = type == null || type.equals("any") || type.equals("i32") && (reg & TYPE_BIT) != 0
                ? (reg & TYPE_BIT) != 0 : type.equals("ref");
        if (ref) {
            return null;
        }
        char t;
        boolean wide;
        switch (type == null ? "" : type) {
            case "i32" -> { t = 'i'; wide = false; }
            case "f32" -> { t = 'f'; wide = false; }
            case "i64" -> { t = 'I'; wide = true; }
            case "f64" -> { t = 'F'; wide = true; }
            default -> {
                untyped[f] = "register " + reg + " has no operand type";
                t = 'a';
                wide = false;
            }
        }
        if (wide && (reg & 1) != 0) {
            untyped[f] = "64-bit register " + reg + " is not even";
        }
        return new Acc(ids[0]++, reg, wide, t, write);
    }

    /** True if operand {@code reg} of declared {@code type} names a ref register. */
    private static boolean isRef(int reg, String type) {
        return type == null || type.equals("any") || type.equals("i32") && (reg & TYPE_BIT) != 0
                ? (reg & TYPE_BIT) != 0 : type.equals("ref");
    }

    private void touch(int f, int reg, String type, BitSet t32, BitSet tRef) {
        if (isRef(reg, type)) {
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
                    dev.ortho.vm.CallingConvention cc = importCconv(g);
                    if (cc.arguments().isVariadic() || cc.results().isVariadic()) {
                        return "calls a variadic import";
                    }
                    return ((int[]) i.ops.get(1)).length != cc.arguments().types().length()
                            || ((int[]) i.ops.get(2)).length != cc.results().types().length()
                            ? "call register lists differ from the import's calling convention" : null;
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

    /** A class file writer that resolves vm.core's types through this class loader. */
    ClassFile classFile() {
        ClassLoader loader = Compiler.class.getClassLoader();
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofClassLoading(loader))));
    }

    /** Function {@code f}'s register webs, or null if its registers keep the slot representation. */
    RegisterWebs webs(int f) {
        if (!websBuilt[f]) {
            websBuilt[f] = true;
            RegisterWebs w = untyped[f] != null ? null
                    : new RegisterWebs(code.get(f), m.fnI32[f], accessCount[f], m.fnCconv[f].arguments().types());
            if (w != null && !w.valid) {
                untyped[f] = w.why;
                w = null;
            }
            webs[f] = w;
        }
        return webs[f];
    }

    private byte[] generate(boolean[] ready) {
        return classFile().build(self, clb -> {
            clb.withFlags(ClassFile.ACC_FINAL | ClassFile.ACC_SUPER);
            clb.withInterfaceSymbols(CD_ENTRY);
            clb.withMethodBody(ConstantDescs.INIT_NAME, ConstantDescs.MTD_void, ClassFile.ACC_PUBLIC,
                    cb -> cb.aload(0).invokespecial(ConstantDescs.CD_Object, ConstantDescs.INIT_NAME,
                            ConstantDescs.MTD_void).return_());
            for (int f = 0; f < m.functionCount; f++) {
                if (ready[f]) {
                    int fn = f;
                    long t0 = System.nanoTime();
                    RegisterWebs typed = webs(f);
                    List<MethodSplitter.Region> plan = plans[f];
                    try {
                        if (plan == null) {
                            clb.withMethodBody("f" + f, descriptor(f), ClassFile.ACC_STATIC,
                                    cb -> new FunctionEmitter(this, fn, cb, typed).emit());
                        } else {
                            clb.withMethodBody("f" + f, descriptor(f), ClassFile.ACC_STATIC,
                                    cb -> MethodSplitter.dispatcher(this, fn, typed, plan, cb));
                            for (int k = 0; k < plan.size(); k++) {
                                MethodSplitter.Region r = plan.get(k);
                                clb.withMethodBody(MethodSplitter.regionName(f, k), MethodSplitter.REGION_TYPE,
                                        ClassFile.ACC_STATIC,
                                        cb -> new FunctionEmitter(this, fn, cb, typed, r, false).emit());
                            }
                        }
                    } catch (IllegalArgumentException e) {
                        throw new MethodTooLarge(fn, e.getMessage(), false);
                    } finally {
                        nanos[f] += System.nanoTime() - t0;
                    }
                }
            }
            BridgeEmitter.emit(this, clb, ready, splitBridge);
        });
    }

    MethodTypeDesc descriptor(int f) {
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
}
