package dev.ortho.vm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;

/**
 * A module implemented in Java (IREE's native module): exports declared with names and calling
 * conventions and implemented by {@link NativeFunction}s, optional imports, dependencies and a
 * per-context state of type {@code S}.
 *
 * <pre>{@code
 * NativeModule<Counter> m = NativeModule.<Counter>builder("counter", 1)
 *     .state(ctx -> new Counter(), (ctx, parent) -> parent.copy(), Counter::close)
 *     .export("add", "0i_i", (counter, call) -> {
 *         call.results().setI32(0, counter.add(call.args().i32(0)));
 *         return CallOutcome.COMPLETED;
 *     })
 *     .build();
 * }</pre>
 *
 * <p>Exports are sorted by name at build time and found by binary search; their calling
 * conventions are parsed then, and checked against importers when a context links them. Native
 * frames carry {@value NativeCall#LOCAL_I32_COUNT} i32 and {@value NativeCall#LOCAL_REF_COUNT} ref
 * locals. Immutable and thread-safe; per-context state thread-safety is the author's concern.
 *
 * @param <S> per-context state type ({@code Void} for stateless modules)
 */
public final class NativeModule<S> implements Module {
    private record Import(String fullName, CallingConvention cconv, boolean optional) { }

    private record Export<S>(String name, CallingConvention cconv, Map<String, String> attrs, NativeFunction<S> body) { }

    /** Per-context state: the author's state plus the resolved import table. */
    private static final class ContextState<S> {
        final S user;
        final Function[] imports;

        ContextState(S user, int importCount) {
            this.user = user;
            this.imports = new Function[importCount];
        }
    }

    private final String name;
    private final int version;
    private final Map<String, String> attrs;
    private final List<ModuleDependency> dependencies;
    private final List<Function> imports;
    private final List<Function> exports;
    private final String[] exportNames;
    private final NativeFunction<S>[] bodies;
    private final java.util.function.Function<Context, S> allocState;
    private final BiFunction<Context, S, S> forkState;
    private final Consumer<S> freeState;
    private final BiConsumer<S, Signal> notify;

    @SuppressWarnings("unchecked")
    private NativeModule(Builder<S> b) {
        this.name = b.name;
        this.version = b.version;
        this.attrs = Map.copyOf(b.attrs);
        this.dependencies = List.copyOf(b.dependencies);
        List<Function> imps = new ArrayList<>();
        for (int i = 0; i < b.imports.size(); i++) {
            Import decl = b.imports.get(i);
            imps.add(new Function(this, decl.optional ? Linkage.IMPORT_OPTIONAL : Linkage.IMPORT, i,
                    decl.fullName, decl.cconv, Map.of()));
        }
        this.imports = List.copyOf(imps);
        List<Export<S>> sorted = new ArrayList<>(b.exports);
        sorted.sort(Comparator.comparing(Export::name));
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i - 1).name.equals(sorted.get(i).name)) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "module '" + name + "' exports '" + sorted.get(i).name + "' twice");
            }
        }
        List<Function> exps = new ArrayList<>();
        this.exportNames = new String[sorted.size()];
        this.bodies = new NativeFunction[sorted.size()];
        for (int i = 0; i < sorted.size(); i++) {
            Export<S> e = sorted.get(i);
            exps.add(new Function(this, Linkage.EXPORT, i, e.name, e.cconv, e.attrs));
            exportNames[i] = e.name;
            bodies[i] = e.body;
        }
        this.exports = List.copyOf(exps);
        this.allocState = b.allocState;
        this.forkState = b.forkState;
        this.freeState = b.freeState;
        this.notify = b.notify;
    }

    /**
     * Starts a module named {@code name} with {@code version}.
     *
     * @throws StatusException INVALID_ARGUMENT for an empty name or one containing '.'
     */
    public static <S> Builder<S> builder(String name, int version) {
        return new Builder<>(name, version);
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
        int i = Arrays.binarySearch(exportNames, exportName);
        return i >= 0 ? exports.get(i) : null;
    }

    @Override
    public Object allocState(Context context) {
        return new ContextState<>(allocState == null ? null : allocState.apply(context), imports.size());
    }

    @Override
    @SuppressWarnings("unchecked")
    public Object forkState(Context childContext, Object parentState) {
        ContextState<S> parent = (ContextState<S>) parentState;
        S user = null;
        if (parent.user != null) {
            if (forkState == null) {
                throw new StatusException(StatusCode.UNIMPLEMENTED, "native module '" + name
                        + "' must implement fork_state if it provides module state");
            }
            user = forkState.apply(childContext, parent.user);
        }
        ContextState<S> child = new ContextState<>(user, imports.size());
        System.arraycopy(parent.imports, 0, child.imports, 0, parent.imports.length);
        return child;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void freeState(Object state) {
        ContextState<S> s = (ContextState<S>) state;
        if (freeState != null && s.user != null) {
            freeState.accept(s.user);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public void resolveImport(Object state, int ordinal, Function function) {
        ContextState<S> s = (ContextState<S>) state;
        if (ordinal < 0 || ordinal >= s.imports.length) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "import ordinal " + ordinal + " out of range [0, " + s.imports.length + ")");
        }
        s.imports[ordinal] = function;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void notify(Object state, Signal signal) {
        if (notify != null) {
            notify.accept(((ContextState<S>) state).user, signal);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public CallOutcome beginCall(Stack stack, Call call) {
        Function f = call.function();
        if (f.module() != this || f.linkage() != Linkage.EXPORT || f.ordinal() < 0 || f.ordinal() >= bodies.length) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "function " + f + " is not an export of module '"
                    + name + "' (ordinal " + f.ordinal() + " of " + bodies.length + ")");
        }
        // Locals are zeroed by NativeCall.locals() when an activation first asks for them: most
        // exports never do, and zeroing them on every call was a fixed cost of every import call.
        Frame frame = stack.enter(FrameType.NATIVE, f, NativeCall.LOCAL_I32_COUNT, NativeCall.LOCAL_REF_COUNT, call,
                false);
        NativeCall nc = frame.scratch() instanceof NativeCall cached ? cached : new NativeCall();
        return run(stack, frame, nc, state(stack, nc), false, null);
    }

    @Override
    @SuppressWarnings("unchecked")
    public CallOutcome resumeCall(Stack stack, Frame frame) {
        StatusException waitStatus = null;
        if (frame.type() == FrameType.WAIT) {
            waitStatus = stack.leaveWait();
            frame = stack.top();
        }
        if (frame == null || frame.type() != FrameType.NATIVE || frame.function().module() != this) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "no frame of module '" + name
                    + "' at top of stack to resume");
        }
        NativeCall nc = frame.scratch() instanceof NativeCall cached ? cached : new NativeCall();
        return run(stack, frame, nc, state(stack, nc), true, waitStatus);
    }

    /**
     * This module's state in the stack's context: the one {@code nc} (a frame's reused native
     * call) found last time, if that was for this module and context (a frame at one depth
     * usually calls the same module's exports over and over), else looked up and remembered.
     */
    @SuppressWarnings("unchecked")
    private ContextState<S> state(Stack stack, NativeCall nc) {
        Context context = stack.context();
        if (nc.stateModule == this && nc.stateContext == context) {
            return (ContextState<S>) nc.state;
        }
        Object state = stack.moduleState(this);
        nc.stateModule = this;
        nc.stateContext = context;
        nc.state = state;
        return (ContextState<S>) state;
    }

    private CallOutcome run(Stack stack, Frame frame, NativeCall nc, ContextState<S> state, boolean resume,
            StatusException waitStatus) {
        frame.setScratch(nc);
        nc.bind(stack, frame, state.imports, resume, waitStatus);
        CallOutcome outcome = bodies[frame.function().ordinal()].call(state.user, nc);
        if (outcome == CallOutcome.COMPLETED) {
            stack.leave(frame);
        }
        return outcome;
    }

    @Override
    public String toString() {
        return "NativeModule[" + name + " v" + version + ", " + exports.size() + " exports]";
    }

    /**
     * Declares a {@link NativeModule}. Not thread-safe; {@link #build()} may be called once per
     * configuration.
     *
     * @param <S> per-context state type
     */
    public static final class Builder<S> {
        private final String name;
        private final int version;
        private final Map<String, String> attrs = new LinkedHashMap<>();
        private final List<ModuleDependency> dependencies = new ArrayList<>();
        private final List<Import> imports = new ArrayList<>();
        private final List<Export<S>> exports = new ArrayList<>();
        private java.util.function.Function<Context, S> allocState;
        private BiFunction<Context, S, S> forkState;
        private Consumer<S> freeState;
        private BiConsumer<S, Signal> notify;

        private Builder(String name, int version) {
            if (name == null || name.isEmpty() || name.indexOf('.') >= 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "invalid module name '" + name + "'");
            }
            this.name = name;
            this.version = version;
        }

        /** Adds a module reflection attribute. */
        public Builder<S> attr(String key, String value) {
            attrs.put(Objects.requireNonNull(key), Objects.requireNonNull(value));
            return this;
        }

        /** Declares a dependency on module {@code moduleName} at {@code minimumVersion} or newer. */
        public Builder<S> dependency(String moduleName, int minimumVersion, boolean required) {
            dependencies.add(new ModuleDependency(moduleName, minimumVersion, required));
            return this;
        }

        /**
         * Declares import {@code fullName} ({@code module.function}) with the expected
         * {@code cconv} (checked at link time; empty skips the check). Ordinals follow
         * declaration order.
         *
         * @throws StatusException INVALID_ARGUMENT if not fully qualified, or as
         *     {@link CallingConvention#parse}
         */
        public Builder<S> importFunction(String fullName, String cconv, boolean optional) {
            int dot = fullName.indexOf('.');
            if (dot <= 0 || dot == fullName.length() - 1) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "import name not fully-qualified (module.func): '" + fullName + "'");
            }
            imports.add(new Import(fullName, CallingConvention.parse(cconv), optional));
            return this;
        }

        /**
         * Declares the per-context state: {@code alloc} when a context registers the module,
         * {@code fork} (may be null: forking then fails with UNIMPLEMENTED) and {@code free}
         * (may be null) on context close.
         */
        public Builder<S> state(java.util.function.Function<Context, S> alloc, BiFunction<Context, S, S> fork,
                                Consumer<S> free) {
            this.allocState = Objects.requireNonNull(alloc, "alloc");
            this.forkState = fork;
            this.freeState = free;
            return this;
        }

        /** Receives {@link Context#notify} signals for each context's state. */
        public Builder<S> onNotify(BiConsumer<S, Signal> handler) {
            this.notify = handler;
            return this;
        }

        /** Declares export {@code exportName} with {@code cconv}; see {@link #export(String, String, Map, NativeFunction)}. */
        public Builder<S> export(String exportName, String cconv, NativeFunction<S> body) {
            return export(exportName, cconv, Map.of(), body);
        }

        /**
         * Declares export {@code exportName} with {@code cconv}, reflection {@code attrs} and its
         * implementation.
         *
         * @throws StatusException as {@link CallingConvention#parse}
         */
        public Builder<S> export(String exportName, String cconv, Map<String, String> attrs, NativeFunction<S> body) {
            exports.add(new Export<>(Objects.requireNonNull(exportName), CallingConvention.parse(cconv),
                    Map.copyOf(attrs), Objects.requireNonNull(body)));
            return this;
        }

        /**
         * Builds the module.
         *
         * @throws StatusException INVALID_ARGUMENT if two exports share a name
         */
        public NativeModule<S> build() {
            return new NativeModule<>(this);
        }
    }
}
