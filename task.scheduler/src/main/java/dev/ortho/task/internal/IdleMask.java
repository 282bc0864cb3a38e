package dev.ortho.task.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One bit per worker (IREE's {@code worker_idle_mask}): set while the worker is parked or about
 * to park (a spinning worker polls the run lists itself and holds no bit; see
 * {@code Worker.idleUntilWork}). Schedulers claim a bit by clearing it, so two schedulers never
 * both post to the same idle worker. Words are spaced 16 longs apart so each sits on its own cache-line pair.
 */
final class IdleMask {
    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int STRIDE = 16;

    private final long[] words;
    private final int workerCount;

    IdleMask(int workerCount) {
        this.workerCount = workerCount;
        this.words = new long[((workerCount + 63) / 64) * STRIDE + STRIDE];
    }

    private static int slot(int word) {
        return STRIDE + word * STRIDE;
    }

    /**
     * Marks worker {@code i} idle. Volatile RMW: the worker's half of the park/wake Dekker pair
     * (it then re-checks the run lists; a scheduler publishes work, then reads this mask).
     */
    void setIdle(int i) {
        WORDS.getAndBitwiseOr(words, slot(i >>> 6), 1L << (i & 63));
    }

    /** Marks worker {@code i} active (volatile RMW). */
    void setActive(int i) {
        WORDS.getAndBitwiseAnd(words, slot(i >>> 6), ~(1L << (i & 63)));
    }

    /**
     * Claims one idle worker other than {@code exclude} by clearing its bit; returns its index or
     * -1. Volatile read then CAS: the read pairs with {@link #setIdle} (Dekker), the CAS makes
     * the claim exclusive.
     */
    int claimIdle(int exclude) {
        int wordCount = (workerCount + 63) / 64;
        for (int w = 0; w < wordCount; w++) {
            int at = slot(w);
            long word = (long) WORDS.getVolatile(words, at);
            long excludeBit = (exclude >>> 6) == w && exclude >= 0 ? 1L << (exclude & 63) : 0L;
            long candidates = word & ~excludeBit;
            while (candidates != 0) {
                long low = Long.lowestOneBit(candidates);
                long seen = (long) WORDS.compareAndExchange(words, at, word, word & ~low);
                if (seen == word) {
                    return w * 64 + Long.numberOfTrailingZeros(low);
                }
                word = seen;
                candidates = word & ~excludeBit;
            }
        }
        return -1;
    }

    /** Number of workers marked idle (a snapshot, for spin scaling and stats). */
    int idleCount() {
        int n = 0;
        int wordCount = (workerCount + 63) / 64;
        for (int w = 0; w < wordCount; w++) {
            n += Long.bitCount((long) WORDS.getVolatile(words, slot(w)));
        }
        return n;
    }

    boolean isIdle(int i) {
        return ((long) WORDS.getVolatile(words, slot(i >>> 6)) & (1L << (i & 63))) != 0;
    }
}
