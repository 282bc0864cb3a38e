package dev.ortho.vm.bytecode;


import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.CallingConvention;
import dev.ortho.vm.Context;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Linkage;
import dev.ortho.vm.Module;
import dev.ortho.vm.ModuleDependency;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.RefType;
import dev.ortho.vm.Signal;
import dev.ortho.vm.Stack;
import dev.ortho.vm.ValueType;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.spi.InstructionExtension;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A module whose functions are IREE VM bytecode, executed by Ortho's interpreter (IREE's
 * {@code iree_vm_bytecode_module_t}).
 *
 * <p>{@link #create} checks the {@link ModuleDef} structurally, resolves its types against the
 * {@link Instance}, matches its feature requirements with the given
 * {@link InstructionExtension}s and verifies every function's bytecode before anything can run
 * (errors are annotated {@code at module.function+PC}; the table-by-table reading is in
 * {@link ModuleDefTables}). The module copies the bytecode into
 * the Java heap once; rodata segments are exposed as read-only {@link VmBuffer}s aliasing the
 * definition's memory, which must stay valid (mapped) as long as the module is used.
 *
 * <p>Per-context state holds the read-write globals (zeroed bytes and a ref table) and the
 * resolved import table. Calls run on the caller's thread: internal calls push frames on the
 * same {@link Stack} and continue in the same dispatch loop; imports are called through their
 * module; {@code vm.yield} and yielding imports return {@link CallOutcome#DEFERRED} with the
 * frames left in place, and {@link #resumeCall} continues where execution stopped.
 *
 * <p>Immutable and thread-safe; any number of stacks may execute it concurrently (each context
 * state is the concern of that context's users).
 */
public final class BytecodeModule implements Module {
    /**
     * Options for {@link #create}.
     *
     * @param traceExecution log every executed instruction (functions then stay interpreted)
     * @param allowPlaceholderTypes accept ref types no module registered
     * @param execution interpret, or compile functions to JVM classes ({@link ExecutionMode})
     */
    public record Options(boolean traceExecution, boolean allowPlaceholderTypes, ExecutionMode execution) {
        /** No tracing, types must be registered, interpreted. */
        public static final Options DEFAULT = new Options(false, false, ExecutionMode.OFF);

        public Options {
            Objects.requireNonNull(execution, "execution");
        }

        /** Interpreted ({@link ExecutionMode#OFF}). */
        public Options(boolean traceExecution, boolean allowPlaceholderTypes) {
            this(traceExecution, allowPlaceholderTypes, ExecutionMode.OFF);
        }

        /** These options with execution mode {@code mode}. */
        public Options withExecution(ExecutionMode mode) {
            return new Options(traceExecution, allowPlaceholderTypes, mode);
        }
    }

    /** Zero bytes appended to the bytecode copy. */
    static final int CODE_PADDING = 16;
    final String name;
    final int version;
    final ModuleDef def;
    final byte[] code;
    final int functionCount;
    final int[] fnBase;
    final int[] fnLength;
    /** Verified (power-of-two rounded) i32 register count; the frame holds two more hidden slots. */
    final int[] fnI32;
    final int[] fnRef;
    final CallingConvention[] fnCconv;
    /** Per function, its argument and result kinds: {@link #KIND_32}, {@link #KIND_64} or {@link #KIND_REF}. */
    final byte[][] fnArgKinds;
    final byte[][] fnResultKinds;
    static final byte KIND_32 = 0;
    static final byte KIND_64 = 1;
    static final byte KIND_REF = 2;
    final Function[] internal;
    final RefType[] types;
    final ValueType[] valueTypes;
    final String[] typeNames;
    final VmBuffer[] rodata;
    final int rwdataSize;
    final int globalRefCount;
    final InstructionExtension[] extensions = new InstructionExtension[32];
    final boolean trace;
    final ExecutionMode execution;
    /** The method size from which the compiler splits a function ({@link MethodSplitter#C1_METHOD_LIMIT}; tests lower it). */
    final int methodLimit;
    /** The compiled functions, once compiled (see {@link ExecutionMode}). */
    private volatile Compiler.Result compiled;
    /** External calls so far, for {@link ExecutionMode#LAZY} (racy by design: only a trigger). */
    private int externalCalls;
    /** Interpreted loop back-edges so far, for {@link ExecutionMode#LAZY} (racy by design: only a trigger). */
    private int backEdges;
    /** Set by the one caller that compiles ({@link #compileNow()}); stays set once compiled. */
    private final java.util.concurrent.atomic.AtomicBoolean compiling = new java.util.concurrent.atomic.AtomicBoolean();
    private final Map<String, String> attrs;
    private final List<ModuleDependency> dependencies;
    private final List<Function> imports;
    private final List<Function> exports;
    private final int[] exportInternal;
    private final Map<String, Function> exportsByName;

    /**
     * Loads {@code def} for {@code instance}.
     *
     * @param extensions the instruction extensions available (their prefixes must be distinct)
     * @throws StatusException INVALID_ARGUMENT/OUT_OF_RANGE for malformed definitions or bytecode
     *     (annotated with the function and pc), NOT_FOUND for an unregistered ref type,
     *     UNIMPLEMENTED when the module requires a feature no given extension provides
     */
    public static BytecodeModule create(Instance instance, ModuleDef def, List<? extends InstructionExtension> extensions,
                                        Options options) {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(def, "def");
        Objects.requireNonNull(options, "options");
        return create(instance, def, extensions, options, MethodSplitter.C1_METHOD_LIMIT);
    }

    /**
     * As {@link #create(Instance, ModuleDef, List, Options)}, compiled functions split from
     * methods of {@code methodLimit} bytes (tests split small functions so; a per-module value,
     * so no test changes another's limit).
     */
    static BytecodeModule create(Instance instance, ModuleDef def, List<? extends InstructionExtension> extensions,
                                 Options options, int methodLimit) {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(def, "def");
        Objects.requireNonNull(options, "options");
        try {
            return new BytecodeModule(instance, def, List.copyOf(extensions), options, null, methodLimit);
        } catch (StatusException e) {
            throw e.annotate("loading bytecode module '" + def.name() + "'");
        }
    }

    /** As {@link #create(Instance, ModuleDef, List, Options)}, running {@code code}'s stored classes instead of translating. */
    static BytecodeModule createPrecompiled(Instance instance, ModuleDef def, List<? extends InstructionExtension> extensions,
                                            Options options, PrecompiledModule code) {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(options, "options");
        try {
            return new BytecodeModule(instance, def, List.copyOf(extensions), options, code,
                    MethodSplitter.C1_METHOD_LIMIT);
        } catch (StatusException e) {
            throw e.annotate("loading bytecode module '" + def.name() + "'");
        }
    }

    /** {@link #create(Instance, ModuleDef, List, Options)} with default options. */
    public static BytecodeModule create(Instance instance, ModuleDef def, List<? extends InstructionExtension> extensions) {
        return create(instance, def, extensions, Options.DEFAULT);
    }

    private BytecodeModule(Instance instance, ModuleDef def, List<InstructionExtension> exts, Options options,
                           PrecompiledModule precompiled, int methodLimit) {
        this.def = def;
        this.methodLimit = methodLimit;
        this.trace = options.traceExecution();
        this.execution = options.execution();
        ModuleDefTables.checkHeader(def);
        this.name = def.name();
        this.version = def.version();
        ModuleDefTables.installExtensions(exts, extensions);
        ModuleDefTables.checkFeatures(extensions, def.requirements(), "module '" + name + "'");
        this.attrs = ModuleDefTables.attrs(def);
        this.dependencies = ModuleDefTables.dependencies(def);

        // Types.
        int typeCount = def.types().size();
        types = new RefType[typeCount];
        valueTypes = new ValueType[typeCount];
        typeNames = new String[typeCount];
        for (int i = 0; i < typeCount; i++) {
            String t = def.types().get(i);
            if (t == null || t.isEmpty()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "types[" + i + "] missing name");
            }
            typeNames[i] = t;
            ModuleDefTables.resolveType(instance, t, options.allowPlaceholderTypes(), i, valueTypes, types);
        }

        // Functions.
        functionCount = def.functions().size();
        if (def.signatures().size() != functionCount) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function signature and descriptor table length "
                    + "mismatch (" + def.signatures().size() + " vs " + functionCount + ")");
        }
        long bytecodeSize = def.bytecode() == null ? 0 : def.bytecode().byteSize();
        if (bytecodeSize > Integer.MAX_VALUE - 8) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "bytecode of " + bytecodeSize + " bytes is too large");
        }
        // Padded so the interpreter may read 8 bytes at any instruction start.
        code = java.util.Arrays.copyOf(def.bytecode() == null ? new byte[0]
                : def.bytecode().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), (int) bytecodeSize + CODE_PADDING);
        fnBase = new int[functionCount];
        fnLength = new int[functionCount];
        fnI32 = new int[functionCount];
        fnRef = new int[functionCount];
        fnCconv = new CallingConvention[functionCount];
        fnArgKinds = new byte[functionCount][];
        fnResultKinds = new byte[functionCount][];
        for (int i = 0; i < functionCount; i++) {
            ModuleDef.FunctionDescriptor fd = def.functions().get(i);
            if (fd.blockCount() == 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "functions[" + i
                        + "] descriptor block count is 0; functions must have at least 1 block");
            }
            if (fd.bytecodeLength() <= 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "functions[" + i
                        + "] descriptor bytecode reports " + fd.bytecodeLength() + " length");
            }
            if (fd.bytecodeOffset() < 0 || (long) fd.bytecodeOffset() + fd.bytecodeLength() > bytecodeSize) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "functions[" + i
                        + "] descriptor bytecode span [" + fd.bytecodeOffset() + ", "
                        + ((long) fd.bytecodeOffset() + fd.bytecodeLength()) + ") out of range of " + bytecodeSize);
            }
            int i32 = Short.toUnsignedInt(fd.i32RegisterCount());
            int ref = Short.toUnsignedInt(fd.refRegisterCount());
            fnI32[i] = Integer.highestOneBit(Math.max(1, i32) * 2 - 1);
            fnRef[i] = Integer.highestOneBit(Math.max(1, ref) * 2 - 1);
            if (fnI32[i] > 0x7FFF || fnRef[i] > 0x3FFF) {
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "functions[" + i
                        + "] register count overflow (" + i32 + " i32, " + ref + " ref)");
            }
            fnBase[i] = fd.bytecodeOffset();
            fnLength[i] = fd.bytecodeLength();
            ModuleDefTables.checkFeatures(extensions, fd.requirements(), "functions[" + i + "]");
            ModuleDef.SignatureDef sig = def.signatures().get(i);
            fnCconv[i] = ModuleDefTables.parseCconv(sig == null ? null : sig.callingConvention(), "functions[" + i + "]");
            fnArgKinds[i] = ModuleDefTables.kinds(fnCconv[i].arguments().types());
            fnResultKinds[i] = ModuleDefTables.kinds(fnCconv[i].results().types());
        }

        // Exports.
        String[] internalNames = new String[functionCount];
        exportInternal = new int[def.exports().size()];
        List<Function> exps = new ArrayList<>();
        Map<String, Function> byName = new HashMap<>();
        for (int i = 0; i < def.exports().size(); i++) {
            ModuleDef.ExportDef e = def.exports().get(i);
            if (e.localName() == null || e.localName().isEmpty()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "exports[" + i + "] missing local_name");
            }
            if (e.internalOrdinal() < 0 || e.internalOrdinal() >= functionCount) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "exports[" + i + "] internal_ordinal "
                        + e.internalOrdinal() + " out of bounds [0, " + functionCount + ")");
            }
            exportInternal[i] = e.internalOrdinal();
            if (internalNames[e.internalOrdinal()] == null) {
                internalNames[e.internalOrdinal()] = e.localName();
            }
            Function f = new Function(this, Linkage.EXPORT, i, e.localName(), fnCconv[e.internalOrdinal()],
                    ModuleDefTables.attrsOf(def.signatures().get(e.internalOrdinal())));
            exps.add(f);
            byName.putIfAbsent(e.localName(), f);
        }
        this.exports = List.copyOf(exps);
        this.exportsByName = Map.copyOf(byName);
        if (def.debug() != null) {
            for (int i = 0; i < def.debug().functions().size() && i < functionCount; i++) {
                String n = def.debug().functions().get(i).localName();
                if (internalNames[i] == null && n != null && !n.isEmpty()) {
                    internalNames[i] = n;
                }
            }
        }
        internal = new Function[functionCount];
        for (int i = 0; i < functionCount; i++) {
            internal[i] = new Function(this, Linkage.INTERNAL, i, internalNames[i] == null ? "" : internalNames[i],
                    fnCconv[i], ModuleDefTables.attrsOf(def.signatures().get(i)));
        }

        // Imports.
        this.imports = ModuleDefTables.imports(this, def);

        // Rodata and globals.
        rodata = new VmBuffer[def.rodata().size()];
        for (int i = 0; i < rodata.length; i++) {
            ModuleDef.RodataDef r = def.rodata().get(i);
            if (r == null || r.data() == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "rodata[" + i + "] missing data");
            }
            rodata[i] = VmBuffer.rodata(r.data().asReadOnly(), this);
        }
        rwdataSize = def.state() == null ? 0 : def.state().globalBytesCapacity();
        globalRefCount = def.state() == null ? 0 : def.state().globalRefCount();
        if (rwdataSize < 0 || globalRefCount < 0 || globalRefCount > 0x100000 || rwdataSize > 0x10000000) {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "module state too large: " + rwdataSize
                    + " global bytes, " + globalRefCount + " global refs");
        }

        for (int i = 0; i < functionCount; i++) {
            BytecodeVerifier.verifyFunction(this, i);
        }
        if (precompiled != null && execution != ExecutionMode.OFF && !trace) {
            compiled = precompiled.define(this);
        } else if (execution == ExecutionMode.EAGER) {
            compiled = Compiler.compile(this);
        }
    }

    /** The compiled code, compiling now if the mode asks for it; null while interpreted. */
    private Compiler.Result compiled() {
        Compiler.Result c = compiled;
        if (c == null && execution == ExecutionMode.LAZY && ++externalCalls >= ExecutionMode.LAZY_THRESHOLD) {
            c = compileNow();
        }
        return c;
    }

    /**
     * Compiles the module on this thread unless another thread is compiling it already; then
     * returns at once with null and the caller keeps interpreting (the workers of a task executor
     * running one kernel module go on with their dispatches while the one that crossed the
     * threshold compiles). Nothing waits and no thread is started.
     */
    private Compiler.Result compileNow() {
        if (!claimCompilation()) {
            return compiled;
        }
        try {
            Compiler.Result c = compiled;
            if (c == null) {
                c = Compiler.compile(this);
                compiled = c; // volatile store: publishes the classes to the threads that read compiled
            }
            return c;
        } finally {
            if (compiled == null) {
                compiling.set(false); // compilation failed: a later caller may try again
            }
        }
    }

    /** Takes the right to compile this module; false if another caller holds it or compiled it already. */
    boolean claimCompilation() {
        // test before the CAS: while one worker compiles, the others' calls only read the flag
        return !compiling.get() && compiling.compareAndSet(false, true);
    }

    /** True while the interpreter should report loop back-edges ({@link ExecutionMode#LAZY}, not compiled yet). */
    boolean countsBackEdges() {
        return execution == ExecutionMode.LAZY && compiled == null;
    }

    /**
     * One interpreted loop back-edge of a {@link ExecutionMode#LAZY} module; compiles the module
     * (on this thread, unless another is compiling it) at {@link ExecutionMode#LAZY_BACK_EDGES}.
     * Returns whether to keep counting.
     */
    boolean backEdge() {
        if (++backEdges < ExecutionMode.LAZY_BACK_EDGES) {
            return true;
        }
        compileNow();
        return false;
    }

    /**
     * Which internal functions run compiled: for each ordinal, null if compiled, else why it stays
     * interpreted ({@code "not compiled"} before an {@link ExecutionMode#LAZY} module compiled).
     */
    public List<String> compilationReport() {
        Compiler.Result c = compiled;
        List<String> out = new ArrayList<>();
        for (int i = 0; i < functionCount; i++) {
            out.add(c == null ? "not compiled" : c.compiled()[i] ? null : c.reasons()[i]);
        }
        return java.util.Collections.unmodifiableList(out);
    }

    /**
     * What compiling one function produced ({@link #compilationStatistics()}).
     *
     * @param name the function's name (its export name, or its internal name)
     * @param interpretedBecause null if it runs compiled, else why it stays interpreted
     * @param jvmMethods JVM methods it became: 1, or more for a function split so that every
     *     method stays under HotSpot's 8,000-byte limit for JIT compilation (a dispatcher and its
     *     regions); 0 if interpreted
     * @param bytecodeBytes bytes of JVM bytecode of those methods
     * @param compileNanos time spent translating it (decoding, register webs, emission, splitting);
     *     0 for a module loaded from a compiled bundle
     */
    public record CompiledFunction(String name, String interpretedBecause, int jvmMethods, int bytecodeBytes,
                                   long compileNanos) {
    }

    /**
     * What compiling this module produced.
     *
     * @param compileNanos wall time of the whole compilation on the thread that compiled
     *     (translation, class definition); for a compiled bundle only the definition
     * @param classBytes size of the generated class file (the memory the compiled code takes
     *     is of this order: the hidden class's metadata and, once JIT-compiled, machine code)
     * @param functions per internal function, in ordinal order
     */
    public record CompilationStatistics(long compileNanos, int classBytes, List<CompiledFunction> functions) {
        public CompilationStatistics {
            functions = List.copyOf(functions);
        }
    }

    /**
     * Statistics of this module's compilation; null while nothing is compiled (mode
     * {@link ExecutionMode#OFF}, or {@link ExecutionMode#LAZY} before the threshold). Thread-safe.
     */
    public CompilationStatistics compilationStatistics() {
        Compiler.Result c = compiled;
        if (c == null) {
            return null;
        }
        List<CompiledFunction> out = new ArrayList<>();
        for (int i = 0; i < functionCount; i++) {
            boolean yes = c.compiled()[i];
            out.add(new CompiledFunction(internal[i].name(), yes ? null : c.reasons()[i], yes ? c.methods()[i] : 0,
                    yes ? c.codeBytes()[i] : 0, c.nanos()[i]));
        }
        return new CompilationStatistics(c.totalNanos(), c.classBytes(), out);
    }

    /**
     * For each compiled function, null if its i32-bank registers became typed JVM locals, else
     * why they keep the interpreter's slot representation; "not compiled" for the others.
     */
    List<String> registerReport() {
        Compiler.Result c = compiled;
        List<String> out = new ArrayList<>();
        for (int i = 0; i < functionCount; i++) {
            out.add(c == null || !c.compiled()[i] ? "not compiled" : c.untyped()[i]);
        }
        return out;
    }

    /** The definition this module was loaded from. */
    public ModuleDef def() {
        return def;
    }

    /** Internal function {@code ordinal} (named by its export or debug name, or empty). */
    public Function internalFunction(int ordinal) {
        Objects.checkIndex(ordinal, functionCount);
        return internal[ordinal];
    }

    /** Number of internal functions. */
    public int internalFunctionCount() {
        return functionCount;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int version() {
        return version;
    }

    @Override
    public Map<String, String> attrs() {
        return attrs;
    }

    @Override
    public List<ModuleDependency> dependencies() {
        return dependencies;
    }

    @Override
    public List<Function> imports() {
        return imports;
    }

    @Override
    public List<Function> exports() {
        return exports;
    }

    @Override
    public Function lookupExport(String exportName) {
        return exportsByName.get(exportName);
    }

    /** Per-context state: globals and resolved imports. */
    static final class State {
        final byte[] rwdata;
        final RefObject[] globalRefs;
        final Function[] imports;
        /** Per import, how the interpreter marshals its arguments; made at the first call. */
        final ImportPlan[] importPlans;

        State(int rwdataSize, int globalRefCount, int importCount) {
            this.rwdata = new byte[rwdataSize];
            this.globalRefs = new RefObject[globalRefCount];
            this.imports = new Function[importCount];
            this.importPlans = new ImportPlan[importCount];
        }
    }

    @Override
    public Object allocState(Context context) {
        return new State(rwdataSize, globalRefCount, imports.size());
    }

    @Override
    public Object forkState(Context childContext, Object parentState) {
        State parent = (State) parentState;
        State child = new State(rwdataSize, globalRefCount, imports.size());
        System.arraycopy(parent.rwdata, 0, child.rwdata, 0, rwdataSize);
        for (int i = 0; i < globalRefCount; i++) {
            child.globalRefs[i] = RefObject.retain(parent.globalRefs[i]);
        }
        System.arraycopy(parent.imports, 0, child.imports, 0, parent.imports.length);
        return child;
    }

    @Override
    public void freeState(Object state) {
        State s = (State) state;
        for (int i = 0; i < s.globalRefs.length; i++) {
            RefObject r = s.globalRefs[i];
            s.globalRefs[i] = null;
            RefObject.release(r);
        }
    }

    @Override
    public void resolveImport(Object state, int ordinal, Function function) {
        State s = (State) state;
        if (ordinal < 0 || ordinal >= s.imports.length) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "import ordinal " + ordinal + " out of range [0, " + s.imports.length + ")");
        }
        s.imports[ordinal] = function;
    }

    @Override
    public void notify(Object state, Signal signal) {
    }

    @Override
    public CallOutcome beginCall(Stack stack, Call call) {
        Function f = call.function();
        int ordinal;
        if (f.module() != this) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function " + f + " is not of module '" + name + "'");
        }
        if (f.linkage() == Linkage.EXPORT && f.ordinal() >= 0 && f.ordinal() < exportInternal.length) {
            ordinal = exportInternal[f.ordinal()];
        } else if (f.linkage() == Linkage.INTERNAL && f.ordinal() >= 0 && f.ordinal() < functionCount) {
            ordinal = f.ordinal();
        } else {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function " + f + " ordinal " + f.ordinal()
                    + " is not callable in module '" + name + "'");
        }
        State state = (State) stack.moduleState(this);
        Compiler.Result c = execution == ExecutionMode.OFF ? null : compiled();
        if (c != null && c.compiled()[ordinal] && stack.usedBytes() + c.maxBytes()[ordinal] <= Stack.MAX_SIZE_BYTES) {
            return runCompiled(c, state, stack, ordinal, call);
        }
        Frame frame = Interpreter.enter(this, stack, ordinal, call);
        Interpreter.marshalArguments(this, ordinal, frame, call.arguments());
        return Interpreter.run(this, state, stack, frame);
    }

    /**
     * Runs compiled function {@code ordinal}: its entry frame is on the stack as in the
     * interpreter; on a trap the frames of the compiled activations are pushed back with their
     * pcs so the backtrace and the unwinding are the interpreter's.
     */
    private CallOutcome runCompiled(Compiler.Result c, State state, Stack stack, int ordinal, Call call) {
        Frame frame = Interpreter.enter(this, stack, ordinal, call);
        // The environment is cached on the (reused) entry frame, as the interpreter caches its Machine.
        CompiledSupport.Env env;
        if (frame.scratch() instanceof CompiledSupport.Env cached && cached.m == this && cached.st == state
                && cached.stack == stack) {
            env = cached;
            env.traceSize = 0;
            env.detached.clear();
        } else {
            env = new CompiledSupport.Env(this, state, stack, c.maxResults());
            frame.setScratch(env);
        }
        try {
            c.entry().call(ordinal, env, call.arguments(), call.results());
        } catch (StatusException e) {
            int n = env.traceSize / 2;
            if (n > 0) {
                frame.setPc(env.trace[2 * n - 1]);
                for (int k = n - 2; k >= 0; k--) {
                    Interpreter.enter(this, stack, env.trace[2 * k], null).setPc(env.trace[2 * k + 1]);
                }
            }
            for (int k = env.detached.size() - 1; k >= 0; k--) {
                CompiledSupport.Detached d = env.detached.get(k);
                stack.enter(d.type(), d.function(), 0, 0, null).setPc(d.pc());
            }
            throw e;
        }
        stack.leave(frame);
        return CallOutcome.COMPLETED;
    }

    @Override
    public CallOutcome resumeCall(Stack stack, Frame frame) {
        if (frame.type() == FrameType.WAIT) {
            StatusException status = stack.leaveWait();
            if (status != null) {
                throw status;
            }
            frame = stack.top();
        }
        if (frame == null || frame.type() != FrameType.BYTECODE || frame.function().module() != this) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "no frame of module '" + name + "' at top of stack to resume");
        }
        State state = (State) stack.moduleState(this);
        return Interpreter.resume(this, state, stack, frame);
    }

    @Override
    public String sourceLocation(Function function, long pc) {
        if (function == null || function.module() != this) {
            return null;
        }
        return SourceLocations.find(def.debug(), function.name(), pc);
    }

    @Override
    public String toString() {
        return "BytecodeModule[" + name + " v" + version + ", " + functionCount + " functions, "
                + exports.size() + " exports, " + imports.size() + " imports]";
    }

    /** Register counts including hidden slots, for tests and tools. */
    int frameI32Slots(int ordinal) {
        return fnI32[ordinal] + Interpreter.HIDDEN_I32;
    }
}
