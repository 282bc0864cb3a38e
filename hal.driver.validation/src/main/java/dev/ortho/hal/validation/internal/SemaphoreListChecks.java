package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.ForwardingSemaphore;

/**
 * The semaphore-list rules of one {@link ValidatingDevice}'s queue operations: which semaphores
 * it may wait on and signal (its own, a compatible validating device's, plain host semaphores),
 * payload ranges, failed waits that would lose their failure, and signal values that must
 * strictly increase; plus the bookkeeping of what accepted submissions will signal. Messages
 * name the call, the list and index, the semaphore and the value.
 *
 * <p>Thread-safe as the device is.
 */
final class SemaphoreListChecks {
    private final ValidatingDevice device;

    SemaphoreListChecks(ValidatingDevice device) {
        this.device = device;
    }

    /**
     * The semaphore lists of a queue operation: non-null; every semaphore usable here; payloads
     * within IREE's maximum (OUT_OF_RANGE); a failed wait only with signals to carry the failure
     * (else the failure itself is thrown); each signal once per list (INVALID_ARGUMENT), above the
     * semaphore's current value and above every value already scheduled (INVALID_ARGUMENT).
     */
    void check(String call, SemaphoreList waits, SemaphoreList signals) {
        if (waits == null || signals == null) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, waits == null ? "waits" : "signals",
                    "is null (use SemaphoreList.empty())");
        }
        for (int i = 0; i < waits.size(); i++) {
            Semaphore inner = usableSemaphore(call, "waits", i, waits.semaphore(i));
            long value = waits.value(i);
            if (value < 0 || value > Semaphore.MAX_VALUE) {
                throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "waits[" + i + "]", "value " + value
                        + " is outside [0, " + Semaphore.MAX_VALUE + "]");
            }
            StatusException failure = inner.failure();
            if (failure != null && signals.isEmpty()) {
                throw new StatusException(failure.code(), call + " waits[" + i + "]: " + waits.semaphore(i)
                        + " has failed (" + failure.getMessage() + ") and the operation signals nothing, so the"
                        + " failure would be lost: observe it with query/await or give signals to carry it", failure);
            }
        }
        for (int i = 0; i < signals.size(); i++) {
            Semaphore outer = signals.semaphore(i);
            Semaphore inner = usableSemaphore(call, "signals", i, outer);
            long value = signals.value(i);
            if (value < 0 || value > Semaphore.MAX_VALUE) {
                throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "signals[" + i + "]", "value " + value
                        + " is outside [0, " + Semaphore.MAX_VALUE + "]");
            }
            for (int j = 0; j < i; j++) {
                if (signals.semaphore(j) == outer) {
                    throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "signals[" + i + "]", outer
                            + " is also signals[" + j + "]; a list signals each semaphore once");
                }
            }
            if (inner.failure() != null) {
                continue; // the operation fails it further; nothing to order
            }
            long current;
            try {
                current = inner.query();
            } catch (StatusException failedMeanwhile) {
                continue;
            }
            if (value <= current) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "signals[" + i + "]", "value " + value
                        + " is not above the current value " + current + " of " + outer
                        + " (signals must strictly increase)");
            }
            // A lower value than an earlier submission's is legal on an asynchronous device (this
            // operation may run first: execution follows wait resolution); the same value never is.
            if (outer instanceof ValidatingSemaphore validating && value == validating.scheduled()) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "signals[" + i + "]", "value " + value
                        + " is what an earlier submission will signal " + outer
                        + " to (each value is signalled once; signals must strictly increase)");
            }
        }
    }

    /** The semaphore the inner device will see; FAILED_PRECONDITION if released, INVALID_ARGUMENT if foreign. */
    private Semaphore usableSemaphore(String call, String list, int index, Semaphore semaphore) {
        if (semaphore instanceof ValidatingSemaphore validating) {
            if (!compatible(validating)) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, list + "[" + index + "]", semaphore
                        + " was created by " + validating.device() + ", which is not compatible with " + device);
            }
            validating.checkLive(call, list, index);
            return validating.delegate();
        }
        if (semaphore instanceof ForwardingSemaphore foreign) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, list + "[" + index + "]", semaphore
                    + " belongs to " + foreign.owner() + ", which is not compatible with " + device);
        }
        return semaphore; // a plain host semaphore: every device can wait on and signal it
    }

    /** Remembers what a successful submission will signal. */
    static void schedule(SemaphoreList signals) {
        for (int i = 0; i < signals.size(); i++) {
            if (signals.semaphore(i) instanceof ValidatingSemaphore validating) {
                validating.schedule(signals.value(i));
            }
        }
    }

    /** Ours, or another validating device's whose inner device is of the same implementation. */
    boolean compatible(ValidatingSemaphore semaphore) {
        return semaphore.owner() == device || semaphore.device().delegate().getClass() == device.delegate().getClass();
    }

    /**
     * Retains each of this wrapper's semaphores in {@code signals} until its inner semaphore
     * reaches the value (a blocking host call may keep the list and signal it later).
     */
    static void retainUntilSignalled(SemaphoreList signals) {
        for (int i = 0; i < signals.size(); i++) {
            if (signals.semaphore(i) instanceof ValidatingSemaphore semaphore) {
                semaphore.retain();
                semaphore.delegate().addTimepoint(signals.value(i), (inner, value, failure) -> semaphore.release());
            }
        }
    }
}
