package dev.ortho.vm;

import static dev.ortho.base.MessageText.printable;

import dev.ortho.base.MemoryPool;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.internal.SpareSlot;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * An isolated instantiation of modules (IREE's {@code iree_vm_context_t}): modules are linked in
 * registration order, each gets its own state, and invocations run against those states.
 *
 * <p>Registering a module (IREE's order of operations): allocate its state; check its
 * {@linkplain Module#dependencies() dependencies} against modules registered before it
 * (NOT_FOUND "required module 'x' not registered on the context" or "… version mismatch; have N
 * but require M"); resolve each import by searching modules newest-registered first (the first
 * module with the import's module name decides), leaving unresolvable optional imports
 * unresolved; check the import's calling convention against the export's (INTERNAL "import
 * function … signature mismatch …"); then run its {@code __init} export if present. A failure
 * undoes that module and every later one of the same call ({@code __deinit}, free state) and is
 * annotated with the module name.
 *
 * <p>{@link #close()} runs {@code __deinit} and frees states in reverse registration order. A
 * context created with modules, or {@link #freeze() frozen}, rejects further registration with
 * FAILED_PRECONDITION.
 *
 * <p>Thread-safety: registration, freeze, fork, notify and close are serialized; lookups and
 * invocations may run concurrently with each other (module states must then be thread-safe,
 * as in IREE). The caller must not close a context while invocations run on it.
 */
public final class Context implements AutoCloseable {
    /** Most bytes of idle {@code vm.buffer} memory a context's {@link #bufferPool()} retains. */
    public static final long BUFFER_POOL_RETAINED_BYTES = 16L << 20;

    private record Linked(Module[] modules, Object[] states) {
        int count() {
            return modules.length;
        }
    }

    private final Instance instance;
    private final int id;
    private final HostMemoryLimit hostMemoryLimit;
    /** Created by the first {@link #bufferPool()} call; closed with the context. */
    private volatile MemoryPool bufferPool;
    private volatile Linked linked = new Linked(new Module[0], new Object[0]);
    /** One stack kept across {@link Invocation#invoke} calls (taken by one invocation at a time). */
    final SpareSlot<Stack> spareStack = new SpareSlot<>();
    private boolean frozen;
    private boolean closed;

    private Context(Instance instance, HostMemoryLimit hostMemoryLimit) {
        this.instance = Objects.requireNonNull(instance, "instance");
        this.hostMemoryLimit = Objects.requireNonNull(hostMemoryLimit, "hostMemoryLimit");
        this.id = instance.nextContextId();
    }

    /** Creates an empty context that modules can be registered with later. */
    public static Context create(Instance instance) {
        return new Context(instance, HostMemoryLimit.UNLIMITED);
    }

    /**
     * Creates a context with {@code modules} registered in order, then frozen (as IREE's
     * create_with_modules).
     *
     * @throws StatusException as {@link #registerModules}
     */
    public static Context create(Instance instance, Module... modules) {
        return create(instance, HostMemoryLimit.UNLIMITED, modules);
    }

    /**
     * As {@link #create(Instance, Module...)}, with the lists and buffers that programs in the
     * context allocate charged to {@code hostMemoryLimit} (RESOURCE_EXHAUSTED past it). Several
     * contexts may share one limit. With no modules, the context stays open for registration.
     *
     * @throws StatusException as {@link #registerModules}
     */
    public static Context create(Instance instance, HostMemoryLimit hostMemoryLimit, Module... modules) {
        Context context = new Context(instance, hostMemoryLimit);
        context.registerModules(modules);
        context.frozen = modules.length > 0;
        return context;
    }

    /**
     * The host memory limit of the lists and buffers programs allocate here
     * ({@link HostMemoryLimit#UNLIMITED} by default).
     */
    public HostMemoryLimit hostMemoryLimit() {
        return hostMemoryLimit;
    }

    /**
     * The pool that {@code vm.buffer.alloc} and {@code vm.buffer.clone} in this context take their
     * memory from (see {@link MemoryPool}): a freed buffer's block is reused by the next buffer of
     * its size class, and up to {@value #BUFFER_POOL_RETAINED_BYTES} bytes of idle blocks stay
     * with the context until it closes. Buffers still alive when the context closes keep their
     * memory and give it back to the system on their last release. Created on first use;
     * thread-safe.
     */
    public MemoryPool bufferPool() {
        MemoryPool pool = bufferPool; // volatile: pairs with the store in createBufferPool()
        return pool != null ? pool : createBufferPool();
    }

    private synchronized MemoryPool createBufferPool() {
        if (bufferPool == null) {
            MemoryPool pool = new MemoryPool("vm.buffer pool of context " + id, BUFFER_POOL_RETAINED_BYTES);
            if (closed) {
                pool.close(); // still allocates, pools nothing
            }
            bufferPool = pool;
        }
        return bufferPool;
    }

    /** The instance. */
    public Instance instance() {
        return instance;
    }

    /** An id unique within the instance, for diagnostics. */
    public int id() {
        return id;
    }

    /** Number of registered modules. */
    public int moduleCount() {
        return linked.count();
    }

    /** Registered modules in registration order. */
    public List<Module> modules() {
        return List.of(linked.modules);
    }

    /**
     * Registers {@code modules} in order; see the class description for the steps and errors.
     *
     * @throws StatusException FAILED_PRECONDITION if frozen or closed, INVALID_ARGUMENT for a null
     *     module, NOT_FOUND for unmet dependencies or required imports, INTERNAL for cconv
     *     mismatches, and whatever a module's state allocation or {@code __init} throws
     */
    public synchronized void registerModules(Module... modules) {
        checkOpen();
        if (frozen) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "context is frozen and cannot register modules after creation");
        }
        for (int i = 0; i < modules.length; i++) {
            if (modules[i] == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "modules[" + i + "] is null");
            }
        }
        Linked original = linked;
        try {
            for (Module module : modules) {
                registerOne(module);
            }
        } catch (RuntimeException e) {
            release(original.count(), linked.count());
            linked = original;
            throw e;
        }
    }

    private void registerOne(Module module) {
        Linked before = linked;
        Object state = module.allocState(this);
        try {
            resolveImports(module, state);
        } catch (StatusException e) {
            module.freeState(state);
            throw e.annotate("resolving module '" + module.name() + "' imports");
        } catch (RuntimeException e) {
            module.freeState(state);
            throw e;
        }
        Module[] ms = Arrays.copyOf(before.modules, before.count() + 1);
        Object[] ss = Arrays.copyOf(before.states, before.count() + 1);
        ms[before.count()] = module;
        ss[before.count()] = state;
        linked = new Linked(ms, ss);
        runOptional(module, "__init");
    }

    private void resolveImports(Module module, Object state) {
        for (ModuleDependency dep : module.dependencies()) {
            checkDependency(dep);
        }
        List<Function> imports = module.imports();
        for (int ordinal = 0; ordinal < imports.size(); ordinal++) {
            Function decl = imports.get(ordinal);
            Function target;
            try {
                target = resolveFunction(decl.name());
            } catch (StatusException e) {
                if (e.code() == StatusCode.NOT_FOUND && decl.linkage() == Linkage.IMPORT_OPTIONAL) {
                    continue;
                }
                throw e;
            }
            if (!decl.cconv().text().isEmpty() && !decl.cconv().matches(target.cconv())) {
                throw new StatusException(StatusCode.INTERNAL, "import function " + printable(decl.name())
                        + " signature mismatch between " + printable(module.name()) + " and source "
                        + printable(target.module().name()) + "; expected " + printable(decl.cconv().text())
                        + " but got "
                        + printable(target.cconv().text()));
            }
            module.resolveImport(state, ordinal, target);
        }
    }

    private void checkDependency(ModuleDependency dep) {
        Linked l = linked;
        for (int i = 0; i < l.count(); i++) {
            Module m = l.modules[i];
            if (m.name().equals(dep.name())) {
                if (dep.required() && m.version() < dep.minimumVersion()) {
                    throw new StatusException(StatusCode.NOT_FOUND, "required module '" + printable(dep.name())
                            + "' version mismatch; have " + m.version() + " but require " + dep.minimumVersion());
                }
                return;
            }
        }
        if (dep.required()) {
            throw new StatusException(StatusCode.NOT_FOUND,
                    "required module '" + printable(dep.name()) + "' not registered on the context");
        }
    }

    /**
     * Resolves {@code fullName} ({@code module.function}) to an export, searching modules newest
     * registered first; the first module with that name decides.
     *
     * @throws StatusException INVALID_ARGUMENT if not fully qualified, NOT_FOUND if no module has
     *     that name or the module has no such export
     */
    public Function resolveFunction(String fullName) {
        int dot = fullName.indexOf('.');
        if (dot < 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "import name not fully-qualified (module.func): '" + printable(fullName) + "'");
        }
        String moduleName = fullName.substring(0, dot);
        String functionName = fullName.substring(dot + 1);
        Linked l = linked;
        for (int i = l.count() - 1; i >= 0; i--) {
            Module m = l.modules[i];
            if (m.name().equals(moduleName)) {
                Function f = m.lookupExport(functionName);
                if (f == null) {
                    throw new StatusException(StatusCode.NOT_FOUND,
                            "no function `" + printable(functionName) + "` exported by module `"
                                    + printable(moduleName) + "`");
                }
                return f;
            }
        }
        throw new StatusException(StatusCode.NOT_FOUND, "module '" + printable(moduleName)
                + "' required for import '" + printable(fullName) + "' not registered with the context");
    }

    /**
     * The state of {@code module} in this context.
     *
     * @throws StatusException NOT_FOUND if the module is not registered here
     */
    public Object moduleState(Module module) {
        Linked l = linked;
        for (int i = 0; i < l.modules.length; i++) {
            if (l.modules[i] == module) {
                return l.states[i];
            }
        }
        throw new StatusException(StatusCode.NOT_FOUND,
                "module '" + module.name() + "' not registered with context " + id);
    }

    /** Prevents further registration. */
    public synchronized void freeze() {
        frozen = true;
    }

    /** True if registration is closed. */
    public synchronized boolean isFrozen() {
        return frozen;
    }

    /**
     * Creates a child context with the same modules and forked states, then notifies it with
     * {@link Signal#FORK}. The child is frozen if it has modules.
     *
     * @throws StatusException UNIMPLEMENTED if a module cannot fork its state (the partial child
     *     is torn down)
     */
    public synchronized Context fork() {
        checkOpen();
        Linked l = linked;
        Context child = new Context(instance, hostMemoryLimit);
        Object[] states = new Object[l.count()];
        int forked = 0;
        try {
            for (; forked < l.count(); forked++) {
                states[forked] = l.modules[forked].forkState(child, l.states[forked]);
            }
            child.linked = new Linked(l.modules.clone(), states);
            child.frozen = l.count() > 0;
            child.notify(Signal.FORK);
            return child;
        } catch (RuntimeException e) {
            if (child.linked.count() > 0) {
                child.close();
            } else {
                for (int i = forked - 1; i >= 0; i--) {
                    l.modules[i].freeState(states[i]);
                }
            }
            throw e;
        }
    }

    /**
     * Delivers {@code signal} to every module: forward signals (RESUME, FORK) in registration
     * order calling {@link Module#notify} then the module's {@code __notify(i32)} export;
     * reverse signals (SUSPEND, LOW_MEMORY) in reverse order, {@code __notify} first. Stops at the
     * first failure and throws it.
     */
    public synchronized void notify(Signal signal) {
        checkOpen();
        Linked l = linked;
        if (signal.isForward()) {
            for (int i = 0; i < l.count(); i++) {
                l.modules[i].notify(l.states[i], signal);
                callNotify(l.modules[i], signal);
            }
        } else {
            for (int i = l.count() - 1; i >= 0; i--) {
                callNotify(l.modules[i], signal);
                l.modules[i].notify(l.states[i], signal);
            }
        }
    }

    private void callNotify(Module module, Signal signal) {
        Function f = module.lookupExport("__notify");
        if (f == null) {
            return;
        }
        Stack stack = new Stack(this);
        Call call = new Call().prepare(f);
        if (call.arguments().primitiveCount() > 0) {
            call.arguments().setI32(0, signal.ordinal());
        }
        Invocation.runToCompletion(stack, call);
    }

    private void runOptional(Module module, String name) {
        Function f = module.lookupExport(name);
        if (f != null) {
            Invocation.runToCompletion(new Stack(this), new Call().prepare(f));
        }
    }

    /** Runs __deinit and frees states for modules [from, to) in reverse order. */
    private void release(int from, int to) {
        Linked l = linked;
        for (int i = to - 1; i >= from; i--) {
            try {
                runOptional(l.modules[i], "__deinit");
            } catch (StatusException ignored) {
                // IREE ignores __deinit failures: teardown continues for every module.
            }
        }
        for (int i = to - 1; i >= from; i--) {
            l.modules[i].freeState(l.states[i]);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION, "context " + id + " is closed");
        }
    }

    /**
     * Runs {@code __deinit} and frees module states in reverse registration order, then closes the
     * {@link #bufferPool()}. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        release(0, linked.count());
        linked = new Linked(new Module[0], new Object[0]);
        closed = true;
        MemoryPool pool = bufferPool;
        if (pool != null) {
            pool.close(); // after the modules' teardown, which may free buffers into it
        }
    }

    @Override
    public String toString() {
        List<String> names = new ArrayList<>();
        for (Module m : linked.modules) {
            names.add(m.name());
        }
        return "Context#" + id + names;
    }
}
