package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.KernelExecutable;
import dev.ortho.hal.cpu.kernel.KernelFunction;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import dev.ortho.vm.Function;
import dev.ortho.vm.bytecode.BytecodeModule;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Supplier;

/**
 * A prepared {@code vmvx-bytecode-fb} executable: a bytecode module whose dispatch functions are
 * exposed as {@link KernelFunction}s, so both CPU devices run them with their ordinary dispatch
 * loops.
 *
 * <p>Each processor id gets its own {@link VmvxWorker} (VM context + stack), created on first use
 * and reused for every later workgroup it runs (IREE keeps one worker state per worker). When
 * two threads present the same processor id at once (concurrent {@code local-sync} callers) the
 * second borrows a spare worker from an overflow pool. Thread-safe. The contexts are closed
 * when the last reference is released; the device retains executables used by in-flight work.
 */
public final class VmvxExecutable implements KernelExecutable {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(VmvxWorker[].class);

    private final String name;
    private final Function[] entries;
    /** The functions, their reflection and the reference count; the last release closes the workers. */
    private final KernelExecutable functions;
    private final Supplier<VmvxWorker> workerFactory;
    private final ConcurrentLinkedDeque<VmvxWorker> spares = new ConcurrentLinkedDeque<>();
    private final List<VmvxWorker> all = new ArrayList<>();
    private volatile VmvxWorker[] workers;
    private boolean closed;

    /**
     * @param first the worker created while preparing (it becomes processor 0's)
     */
    VmvxExecutable(String name, Function[] entries, ExecutableFunctionInfo[] infos, Supplier<VmvxWorker> workerFactory,
            VmvxWorker first) {
        this.name = name;
        this.entries = entries;
        this.workerFactory = workerFactory;
        List<KernelFunction> list = new ArrayList<>();
        for (int i = 0; i < entries.length; i++) {
            Function entry = entries[i];
            list.add(new KernelFunction(infos[i], (dispatch, workgroup) -> run(entry, dispatch, workgroup)));
        }
        this.functions = KernelExecutable.of(VmvxLoader.FORMAT, toString(), list, this::closeWorkers);
        this.workers = new VmvxWorker[] {first};
        all.add(first);
    }

    /**
     * For each function of the executable's module, null if it runs compiled, else why not
     * ({@link BytecodeModule#compilationReport()}); diagnostics and tests.
     */
    List<String> compilationReport() {
        return entries.length == 0 ? List.of() : ((BytecodeModule) entries[0].module()).compilationReport();
    }

    private void run(Function entry, DispatchState dispatch, WorkgroupState workgroup) {
        VmvxWorker worker = acquire(workgroup.processorId());
        try {
            worker.run(entry, dispatch, workgroup);
        } finally {
            worker.release();
            if (worker.isSpare()) {
                spares.offerFirst(worker);
            }
        }
    }

    private VmvxWorker acquire(int processorId) {
        VmvxWorker[] current = workers; // volatile: the array grows under the lock
        if (processorId >= 0 && processorId < current.length) {
            // acquire: pairs with the setRelease in acquireSlowPath, publishes the worker
            VmvxWorker worker = (VmvxWorker) SLOT.getAcquire(current, processorId);
            if (worker != null && worker.tryAcquire()) {
                return worker;
            }
        }
        return acquireSlowPath(processorId);
    }

    private VmvxWorker acquireSlowPath(int processorId) {
        VmvxWorker spare;
        synchronized (this) {
            if (closed) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, this + " was released while dispatching");
            }
            if (processorId >= 0 && processorId < 4096) {
                VmvxWorker[] current = workers;
                if (processorId >= current.length) {
                    VmvxWorker[] grown = new VmvxWorker[Math.max(processorId + 1, current.length * 2)];
                    System.arraycopy(current, 0, grown, 0, current.length);
                    workers = grown; // volatile: publishes the grown array
                    current = grown;
                }
                if (current[processorId] == null) {
                    VmvxWorker worker = newWorker();
                    worker.tryAcquire();
                    SLOT.setRelease(current, processorId, worker);
                    return worker;
                }
            }
            spare = spares.pollFirst();
            if (spare == null) {
                spare = newWorker();
                spare.markSpare();
            }
        }
        spare.tryAcquire();
        return spare;
    }

    /** Called with the lock held. */
    private VmvxWorker newWorker() {
        VmvxWorker worker = workerFactory.get();
        all.add(worker);
        return worker;
    }

    /** The export list order of dispatch functions. */
    @Override
    public KernelFunction function(int ordinal) {
        return functions.function(ordinal);
    }

    @Override
    public String format() {
        return VmvxLoader.FORMAT;
    }

    @Override
    public int functionCount() {
        return functions.functionCount();
    }

    @Override
    public ExecutableFunctionInfo functionInfo(int ordinal) {
        return functions.functionInfo(ordinal);
    }

    @Override
    public int lookupFunction(String functionName) {
        return functions.lookupFunction(functionName);
    }

    @Override
    public void retain() {
        functions.retain();
    }

    @Override
    public void release() {
        functions.release();
    }

    /** Closes every worker's context; runs once, at the last release. */
    private synchronized void closeWorkers() {
        closed = true;
        all.forEach(VmvxWorker::close);
        all.clear();
        spares.clear();
    }

    @Override
    public String toString() {
        return "vmvx-bytecode-fb executable '" + name + "'";
    }
}
