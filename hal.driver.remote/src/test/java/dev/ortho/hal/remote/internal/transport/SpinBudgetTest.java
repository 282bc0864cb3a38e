package dev.ortho.hal.remote.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Issue 18: {@link SpinBudget} spins while spinning pays, and only every
 * {@value SpinBudget#PROBE_EVERY}th wait once a spin found nothing, until a probe pays again.
 */
class SpinBudgetTest {
    @Test
    void spinsWhileItPaysThenProbesEverySixteenthWaitUntilItPaysAgain() {
        SpinBudget spin = new SpinBudget();
        for (int i = 0; i < 100; i++) {
            assertTrue(spin.worthSpinning(), "a fresh or paying budget spins: " + i);
            spin.ended(true);
        }
        spin.ended(false); // the peer became slow
        int spins = 0;
        for (int i = 0; i < 10 * SpinBudget.PROBE_EVERY; i++) {
            if (spin.worthSpinning()) {
                spins++;
                spin.ended(false);
            }
        }
        assertEquals(10, spins, "one probe per " + SpinBudget.PROBE_EVERY + " waits");
        while (!spin.worthSpinning()) {
            // until the next probe
        }
        spin.ended(true); // the probe paid: the peer is quick again
        assertTrue(spin.worthSpinning());
    }
}
