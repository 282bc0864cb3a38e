package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Device;
import dev.ortho.hal.Fence;
import dev.ortho.hal.Semaphore;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.vm.Function;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmList;

/**
 * The {@code iree.abi.model=coarse-fences} convention: the caller appends a wait fence (here
 * already reached) and a signal fence to the arguments and waits on the signal fence after
 * the call, as IREE's tools do. One semaphore per run, its value advanced per call.
 *
 * <p>Not thread-safe; one tool run at a time.
 */
final class CoarseFences implements AutoCloseable {
    private final Semaphore semaphore;
    private Fence signal;
    private long value;

    CoarseFences(Device device) {
        this.semaphore = device.createSemaphore(0);
    }

    /** Appends a fresh (wait, signal) pair to {@code arguments}. */
    void append(VmList arguments) {
        Fence wait = new Fence();
        try {
            arguments.pushRefMove(HalRefs.wrap(wait));
        } finally {
            wait.release();
        }
        arguments.pushRefMove(nextSignal());
    }

    /** Replaces the last two arguments with a fresh pair (for repeated calls). */
    void renew(VmList arguments) {
        arguments.resize(arguments.size() - 2);
        append(arguments);
    }

    private RefObject nextSignal() {
        if (signal != null) {
            signal.release();
        }
        signal = Fence.at(semaphore, ++value);
        return HalRefs.wrap(signal);
    }

    /** Waits until the call has signalled its fence (or failed it). */
    void await() {
        try {
            signal.await(Timeout.infinite());
        } catch (StatusException e) {
            throw e.annotate("waiting on finish fence");
        }
    }

    @Override
    public void close() {
        if (signal != null) {
            signal.release();
        }
        semaphore.close();
    }

    /**
     * The fences for calls of {@code function} in {@code session}, or null if the function does
     * not declare {@code iree.abi.model=coarse-fences}.
     *
     * @throws StatusException FAILED_PRECONDITION if it does but the session has no HAL device
     */
    static CoarseFences forFunction(Function function, ToolSession session) {
        if (!"coarse-fences".equals(function.attr("iree.abi.model"))) {
            return null;
        }
        if (session.device() == null) {
            throw new StatusException(StatusCode.FAILED_PRECONDITION,
                    "coarse-fences functions need a HAL device, but no module depends on the 'hal' module");
        }
        return new CoarseFences(session.device());
    }
}
