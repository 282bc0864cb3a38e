package dev.ortho.hal.cpu.kernel;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One dispatchable function of a {@code jvm-static} executable: IREE's
 * {@code iree_hal_executable_dispatch_v0_t} in Java form.
 *
 * <p>The device calls {@link #run} once per workgroup of the dispatch grid, in any order and,
 * on multi-threaded devices, concurrently from up to {@link DispatchState#maxConcurrency()}
 * threads. Both arguments are borrowed for the duration of the call only: the
 * {@link WorkgroupState} is reused for the next workgroup the same thread runs, and the binding
 * segments must not be kept. Implementations must be thread-safe and stateless across calls, and
 * should not allocate (the dispatch loop is a hot path).
 *
 * <p>Failure: throw a {@link dev.ortho.base.StatusException} (e.g. OUT_OF_RANGE when a binding
 * is too small for the constants); the device stops issuing further workgroups of the dispatch
 * and fails the submission's signal semaphores with it. Any other exception is reported the same
 * way with code UNKNOWN (OUT_OF_RANGE for out-of-bounds segment accesses).
 */
@ConsumerType
@FunctionalInterface
public interface Kernel {

    /** Runs workgroup {@code workgroup.workgroupId…()} of the dispatch described by {@code dispatch}. */
    void run(DispatchState dispatch, WorkgroupState workgroup);
}
