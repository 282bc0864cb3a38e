package dev.ortho.modules.hal.internal;

import dev.ortho.base.Deadline;
import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.WaitSource;
import java.util.ArrayList;
import java.util.List;

/** {@code hal.fence.*}: create, join, query, signal, fail and the yielding {@code await}. */
final class FenceExports {
    /** Most fences one {@code fence.await} may pass (IREE's stack limit). */
    static final int MAX_AWAIT_FENCES = 32;
    /** IREE's {@code IREE_STATUS_CODE_MASK}: the bits of a status code in {@code fence.fail}. */
    static final int STATUS_CODE_MASK = 0x1F;

    private FenceExports() {
    }

    private static Fence fence(CallBuffer args, int refSlot) {
        return Args.deref(args, refSlot, HalTypes.FENCE, Fence.class);
    }

    /**
     * {@code fence.create(device, flags) -> fence}, {@code 0rI_r}: a fence on a new semaphore of
     * the device at 0, reached when the semaphore reaches 1. For a device of the module, a fence
     * given back to its {@link FencePool} unobserved is handed out instead, moved on to its
     * semaphore's next value (nobody can tell it from a new one).
     */
    static CallOutcome create(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = Args.deref(a, 0, HalTypes.DEVICE, Device.class);
        FencePool pool = state.fencePoolOf(device);
        if (pool != null) {
            FencePool.Lease lease = pool.take();
            call.results().setRef(0, HalRef.adopt(HalTypes.FENCE, lease.fence(), lease));
            return CallOutcome.COMPLETED;
        }
        Fence fence;
        try (Semaphore semaphore = device.createSemaphore(0)) {
            fence = Fence.at(semaphore, 1);
        }
        call.results().setRef(0, HalRef.adopt(HalTypes.FENCE, fence, fence));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code fence.join(flags, [fences...]) -> fence or null}, {@code 0ICrD_r}: a fence reached
     * when all are (max-merged per semaphore); null refs are skipped and null is returned when no
     * timepoint remains (an already-reached fence, as IREE).
     */
    static CallOutcome join(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        int count = Args.spanCount(a, 1);
        Args.requireLayout(call, count);
        int timepoints = 0;
        for (int i = 0; i < count; i++) {
            Fence fence = Args.derefOrNull(a, i, HalTypes.FENCE, Fence.class);
            timepoints += fence == null ? 0 : fence.timepointCount();
        }
        Fence joined = null;
        if (timepoints > 0) {
            joined = new Fence();
            for (int i = 0; i < count; i++) {
                Fence fence = Args.derefOrNull(a, i, HalTypes.FENCE, Fence.class);
                if (fence != null) {
                    joined.extend(fence);
                }
            }
        }
        call.results().setRef(0, joined == null ? null : HalRef.adopt(HalTypes.FENCE, joined, joined));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code fence.query(fence) -> status}, {@code 0r_i}: 0 (OK) if reached, DEFERRED (17) if not
     * yet, or the failure's status code. Never fails for a failed fence.
     */
    static CallOutcome query(HalState state, NativeCall call) {
        Fence fence = fence(call.args(), 0);
        int code;
        try {
            code = fence.query() ? StatusCode.OK.value() : StatusCode.DEFERRED.value();
        } catch (StatusException e) {
            code = e.code().value();
        }
        call.results().setI32(0, code);
        return CallOutcome.COMPLETED;
    }

    /** {@code fence.signal(fence)}, {@code 0r_v}: signals every timepoint (the semaphore's errors propagate). */
    static CallOutcome signal(HalState state, NativeCall call) {
        fence(call.args(), 0).signal();
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code fence.fail(fence, status)}, {@code 0ri_v}: fails every semaphore with the status code
     * in the low 5 bits (IREE's mask); OK or an unknown code becomes UNKNOWN, since a failure
     * cannot be OK.
     */
    static CallOutcome fail(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Fence fence = fence(a, 0);
        int value = a.i32(0) & STATUS_CODE_MASK;
        StatusCode code = StatusCode.UNKNOWN;
        for (StatusCode c : StatusCode.values()) {
            if (c.value() == value && c != StatusCode.OK) {
                code = c;
            }
        }
        fence.fail(new StatusException(code, "fence failed by the program with status code " + value));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code fence.await(timeout_millis, flags, [fences...]) -> status}, {@code 0iICrD_i}: returns
     * 0 once every fence is reached (null fences count as reached) or DEADLINE_EXCEEDED (4) if the
     * timeout ({@code -1}: none; {@code 0}: poll) passes first; fails with a fence's failure.
     *
     * <p>Never blocks: if a timepoint is pending it enters a wait frame on all of them with the
     * absolute deadline and yields; the invocation resumes this function when they are reached
     * (or fail, or the deadline passes). At most {@value #MAX_AWAIT_FENCES} fences (OUT_OF_RANGE).
     */
    static CallOutcome await(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        if (call.isResume()) {
            return resumeAwait(call);
        }
        int timeoutMillis = a.i32(0);
        int count = Args.spanCount(a, 2);
        Args.requireLayout(call, count);
        Args.requireAtMost(count, MAX_AWAIT_FENCES, "hal.fence");
        // The timeout runs from the call, however long the checks below take (as IREE).
        long start = System.nanoTime();
        List<SemaphoreWaitSource> pending = null;
        for (int i = 0; i < count; i++) {
            Fence fence = Args.derefOrNull(a, i, HalTypes.FENCE, Fence.class);
            if (fence != null) {
                pending = addPending(fence.toSemaphoreList(), pending);
            }
        }
        if (pending == null) {
            call.results().setI32(0, StatusCode.OK.value());
            return CallOutcome.COMPLETED;
        }
        Deadline deadline = timeoutMillis == -1 ? Deadline.infinite()
                : Deadline.atNanos(Deadline.deadlineNanosAfter(Integer.toUnsignedLong(timeoutMillis) * 1_000_000L,
                        start));
        return call.waitAll(deadline, pending.toArray(WaitSource[]::new));
    }

    /**
     * Adds the unreached timepoints of {@code timepoints} to {@code pending} (created on first
     * need), one per semaphore at the largest value; throws a semaphore's failure.
     */
    private static List<SemaphoreWaitSource> addPending(SemaphoreList timepoints, List<SemaphoreWaitSource> pending) {
        outer:
        for (int i = 0; i < timepoints.size(); i++) {
            Semaphore semaphore = timepoints.semaphore(i);
            long value = timepoints.value(i);
            if (semaphore.query() >= value) {
                continue;
            }
            if (pending == null) {
                pending = new ArrayList<>();
            }
            for (int j = 0; j < pending.size(); j++) {
                SemaphoreWaitSource existing = pending.get(j);
                if (existing.semaphore() == semaphore) {
                    pending.set(j, new SemaphoreWaitSource(semaphore, Math.max(value, existing.value())));
                    continue outer;
                }
            }
            pending.add(new SemaphoreWaitSource(semaphore, value));
        }
        return pending;
    }

    private static CallOutcome resumeAwait(NativeCall call) {
        StatusException wait = call.waitResult();
        if (wait == null) {
            call.results().setI32(0, StatusCode.OK.value());
            return CallOutcome.COMPLETED;
        }
        if (wait.code() == StatusCode.DEADLINE_EXCEEDED) {
            call.results().setI32(0, StatusCode.DEADLINE_EXCEEDED.value());
            return CallOutcome.COMPLETED;
        }
        // The wait reports the first failure it saw; prefer a fence's own failure (full message).
        CallBuffer a = call.args();
        int count = a.i32(2);
        for (int i = 0; i < count; i++) {
            Fence fence = Args.derefOrNull(a, i, HalTypes.FENCE, Fence.class);
            if (fence != null) {
                fence.query(); // throws a fresh copy of the fence's failure
            }
        }
        // The wait status may be an exception shared by the semaphore's waiters: never annotate it.
        throw new StatusException(wait.code(), wait.getMessage(), wait);
    }
}
