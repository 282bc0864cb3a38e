package dev.ortho.hal.cpu.internal.vmvx;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.cpu.kernel.DispatchState;
import dev.ortho.hal.cpu.kernel.WorkgroupState;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Context;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.RefType;
import dev.ortho.vm.Stack;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One worker's VM state for a VMVX executable (IREE's {@code iree_hal_vmvx_worker_state_t}):
 * a context linking the common modules and the executable's bytecode module, a reused
 * {@link Stack}, and the {@code vm.buffer} views of the current dispatch.
 *
 * <p>Views are kept per dispatch for the last {@value #VIEW_SETS} {@link DispatchState}s the
 * worker ran (a state's binding segments never change) and rebuilt only for a state not among
 * them, or when the workgroup's local memory segment changes: running another workgroup of the
 * same dispatch allocates nothing, and neither does a program that runs a few dispatches in turn
 * on every call, when the device reuses their states (a resubmitted command buffer). Binding views
 * alias the mapped HAL memory (no copy) and are mutable; the constants view is read-only.
 *
 * <p>Not thread-safe: one thread at a time owns a worker ({@link #tryAcquire}/{@link #release}).
 */
final class VmvxWorker {
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final int BINDING_ACCESS = VmBuffer.ACCESS_MUTABLE | VmBuffer.ACCESS_ORIGIN_HOST;
    private static final int READ_ONLY_BINDING_ACCESS = VmBuffer.ACCESS_ORIGIN_HOST;

    private final Context context;
    private final Stack stack;
    private final AtomicBoolean busy = new AtomicBoolean();
    private final Arena arena = Arena.ofShared();
    /**
     * How many dispatches' views a worker keeps (a power of two). A program whose call runs more
     * dispatches of one executable than this rebuilds every view on every call (round robin over a
     * cycle longer than the cache): IREE's op-zoo {@code zoo_int} runs 10, and with 8 sets its
     * views were 42 % of the bytes a call allocated (issue 16).
     */
    static final int VIEW_SETS = 32;
    private final Views[] views = new Views[VIEW_SETS];
    /** The set a view miss rebuilds next (round robin). */
    private int nextViews;
    /**
     * Where the next lookup starts: after the last hit. A program runs its dispatches in the same
     * order on every call, so the set it needs next is usually the next one: one comparison.
     */
    private int expectedViews;
    private MemorySegment lastLocal;
    private VmBuffer local;
    private boolean spare;

    VmvxWorker(Context context) {
        this.context = context;
        this.stack = new Stack(context);
    }

    /** Marks a worker of the overflow pool (set once, before it is shared). */
    void markSpare() {
        spare = true;
    }

    /** True for overflow-pool workers, which go back to the pool after each workgroup. */
    boolean isSpare() {
        return spare;
    }

    /** Claims the worker for the calling thread; false if another thread holds it. */
    boolean tryAcquire() {
        return busy.compareAndSet(false, true); // acquire: pairs with the release in release()
    }

    /** Gives the worker back; its views stay cached for the next dispatch. */
    void release() {
        busy.set(false); // release: publishes the cached views to the next owner
    }

    /**
     * Calls dispatch function {@code function} for the workgroup {@code workgroup} of
     * {@code dispatch}.
     *
     * @throws StatusException the function's failure annotated with the VM backtrace
     */
    void run(Function function, DispatchState dispatch, WorkgroupState workgroup) {
        Views bound = views(dispatch);
        VmBuffer constants = bound.constants;
        VmList bindings = bound.bindings;
        MemorySegment localMemory = workgroup.localMemory();
        if (localMemory != lastLocal) {
            local = VmBuffer.wrap(BINDING_ACCESS, localMemory, null);
            lastLocal = localMemory;
        }
        Frame base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        Call call = base.outgoing().prepare(function);
        CallBuffer args = call.arguments();
        args.setRef(0, local);
        args.setRef(1, constants);
        args.setRef(2, bindings);
        args.setI32(0, workgroup.workgroupIdX());
        args.setI32(1, workgroup.workgroupIdY());
        args.setI32(2, workgroup.workgroupIdZ());
        args.setI32(3, dispatch.workgroupSizeX());
        args.setI32(4, dispatch.workgroupSizeY());
        args.setI32(5, dispatch.workgroupSizeZ());
        args.setI32(6, dispatch.workgroupCountX());
        args.setI32(7, dispatch.workgroupCountY());
        args.setI32(8, dispatch.workgroupCountZ());
        try {
            CallOutcome outcome = function.module().beginCall(stack, call);
            if (outcome != CallOutcome.COMPLETED || stack.top() != base) {
                throw new StatusException(StatusCode.FAILED_PRECONDITION, "dispatch function '" + function.name()
                        + "' yielded; VMVX dispatch functions must run to completion");
            }
            stack.leave(base);
        } catch (StatusException e) {
            if (stack.depth() > 1) {
                e.annotate(stack.formatBacktrace());
            }
            stack.unwind();
            throw e;
        } catch (RuntimeException e) {
            stack.unwind();
            throw e;
        }
    }

    /** The views of {@code dispatch}: kept ones, or rebuilt in the next set. */
    private Views views(DispatchState dispatch) {
        for (int k = 0, i = expectedViews; k < VIEW_SETS; k++, i = (i + 1) & (VIEW_SETS - 1)) {
            Views v = views[i];
            if (v != null && v.dispatch == dispatch && v.bindings.size() == dispatch.bindingCount()) {
                expectedViews = (i + 1) & (VIEW_SETS - 1);
                return v; // a kernel may resize the list: then rebuilt
            }
        }
        int slot = nextViews;
        Views v = views[slot];
        if (v == null) {
            v = new Views();
            views[slot] = v;
        }
        nextViews = (slot + 1) & (VIEW_SETS - 1);
        expectedViews = nextViews;
        v.bind(dispatch, arena);
        return v;
    }

    /** The constant and binding views of one dispatch. */
    private static final class Views {
        final VmList bindings = VmList.ofRefs(RefType.VM_BUFFER, 4);
        MemorySegment constantStorage = MemorySegment.NULL;
        VmBuffer constants;
        DispatchState dispatch;

        /** Rebuilds the views for {@code dispatch}, taking constant storage from {@code arena}. */
        void bind(DispatchState dispatch, Arena arena) {
            this.dispatch = null; // not valid until rebuilt
            int constantCount = dispatch.constantCount();
            long constantBytes = 4L * constantCount;
            if (constantStorage.byteSize() < constantBytes) {
                constantStorage = arena.allocate(Math.max(constantBytes, 64), 64);
                constants = null; // the old view aliases the old storage
            }
            for (int i = 0; i < constantCount; i++) {
                constantStorage.set(U32, 4L * i, dispatch.constant(i));
            }
            if (constants == null || constants.length() != constantBytes) {
                constants = VmBuffer.wrap(VmBuffer.ACCESS_ORIGIN_HOST,
                        constantStorage.asSlice(0, constantBytes).asReadOnly(), null);
            }
            bindings.clear();
            for (int i = 0; i < dispatch.bindingCount(); i++) {
                // Read-only memory (an immutable import, e.g. constants imported from rodata) becomes a
                // read-only vm.buffer: kernels may read it; a write fails with PERMISSION_DENIED.
                MemorySegment binding = dispatch.binding(i);
                bindings.pushRefMove(VmBuffer.wrap(binding.isReadOnly() ? READ_ONLY_BINDING_ACCESS : BINDING_ACCESS,
                        binding, null));
            }
            this.dispatch = dispatch;
        }

        void clear() {
            bindings.clear();
            constants = null;
            dispatch = null;
        }
    }

    /** Frees the context and the worker's memory; the worker must not be used afterwards. */
    void close() {
        for (Views v : views) {
            if (v != null) {
                v.clear();
            }
        }
        lastLocal = null;
        local = null;
        context.close();
        arena.close();
    }
}
