package dev.ortho.hal;

import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.frontier.SemaphoreScope;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A timeline semaphore: a monotonically increasing 64-bit payload that queues and the host wait
 * on and signal forward, IREE's {@code iree_hal_semaphore_t}. Failure is sticky: once failed,
 * every current and future waiter sees the failure.
 *
 * <p>Values are in {@code [0, MAX_VALUE]}. Each value is signalled at most once and only forward:
 * signalling a value at or below the current one is {@code INVALID_ARGUMENT}.
 *
 * <p>Thread-safe. Waits park the calling thread; never wait inside a drain function or a
 * {@link TimepointCallback}.
 */
@ProviderType
public interface Semaphore extends Resource {

    /**
     * The largest valid payload value, IREE's {@code IREE_HAL_SEMAPHORE_MAX_VALUE} (INT32_MAX - 1,
     * the lowest bound Vulkan implementations guarantee).
     */
    long MAX_VALUE = 2147483647L - 1;

    /**
     * The visibility this semaphore was created with, fixed for its life (see
     * {@link Device#createSemaphore(long, SemaphoreScope)}). Semaphores made by the host rather
     * than by a device are {@link SemaphoreScope#PROCESS}-scoped unless their implementation
     * says otherwise.
     */
    default SemaphoreScope scope() {
        return SemaphoreScope.PROCESS;
    }

    /**
     * The current payload value.
     *
     * @throws StatusException the failure (same code and message, a fresh exception per call with
     *     the original as its cause) if the semaphore has failed
     */
    long query();

    /** The failure this semaphore carries, or null if it has not failed. */
    StatusException failure();

    /**
     * Advances the payload to {@code value} and dispatches every timepoint at or below it.
     *
     * @throws StatusException INVALID_ARGUMENT if {@code value} is not above the current value,
     *     OUT_OF_RANGE if it exceeds {@link #MAX_VALUE}; the failure if the semaphore has failed
     */
    void signal(long value);

    /**
     * Advances the payload to {@code value} like {@link #signal(long)} and records
     * {@code frontier} (the signaller's causal past; copied, not retained; {@code null} for none)
     * as the frontier of {@code value}, so waiters for that value can import it
     * ({@link #frontierAt}). A plain {@link #signal(long)} records no dependencies, as IREE's
     * signal with a {@code NULL} frontier does.
     *
     * @throws StatusException as {@link #signal(long)}
     */
    void signal(long value, Frontier frontier);

    /**
     * Copies into {@code out} the frontier a waiter for {@code value} imports: the one recorded
     * at the smallest signalled value at or above {@code value} (seed 002: a waiter for 2 gets
     * value 2's causal past, not the latest). Where the semaphore kept no record (tracking
     * disabled, or the value pruned) {@code out} is left empty and tainted, so nothing is ever
     * elided on its strength. A value that is reached but whose signal is still being recorded by
     * a concurrent signaller reports {@code false}, as if not yet reached.
     *
     * @return false, leaving {@code out} unchanged, if {@code value} is not reached yet
     * @throws StatusException the failure, as for {@link #query()}
     */
    boolean frontierAt(long value, Frontier out);

    /**
     * Fails the semaphore with {@code status}: waiters wake with it and timepoints receive it. The
     * first failure wins; later calls are ignored. Ownership of {@code status} passes to the
     * semaphore, which shares it with every waiter (do not annotate it afterwards).
     */
    void fail(StatusException status);

    /**
     * Blocks until the payload reaches {@code value}, the semaphore fails, or {@code timeout}
     * expires. {@link Timeout#immediate()} polls.
     *
     * @throws StatusException DEADLINE_EXCEEDED naming the semaphore, the value waited for and the
     *     value reached; the failure (as for {@link #query()}); ABORTED if the thread is
     *     interrupted (the interrupt flag stays set)
     */
    void await(long value, Timeout timeout);

    /**
     * Calls {@code callback} once when the payload reaches {@code value} or the semaphore fails
     * or is destroyed. If that has already happened, the callback runs inline before this method
     * returns.
     *
     * @return a handle to cancel the timepoint
     */
    Timepoint addTimepoint(long value, TimepointCallback callback);
}
