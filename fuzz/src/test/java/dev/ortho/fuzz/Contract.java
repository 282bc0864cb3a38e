package dev.ortho.fuzz;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;

/**
 * The contract every fuzz target asserts (DESIGN.md §6, "Bad input"): hostile input ends in a
 * {@link StatusException} carrying a non-OK IREE status code, or in success. Any other
 * throwable escapes the target, and Jazzer reports it as a finding (in fuzzing mode it also
 * writes the input next to the committed seeds, where regression mode replays it).
 */
final class Contract {
    /** Inputs above this are not tried: the targets check behaviour, not throughput. */
    static final int MAX_INPUT_BYTES = 1 << 16;

    private Contract() {
    }

    interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body}; a StatusException with a code is the accepted failure. */
    static void onlyStatus(Body body) throws Exception {
        try {
            body.run();
        } catch (StatusException e) {
            if (e.code() == null || e.code() == StatusCode.OK || e.getMessage() == null || e.getMessage().isEmpty()) {
                throw new AssertionError("status without a code or message: " + e, e);
            }
        }
    }
}
