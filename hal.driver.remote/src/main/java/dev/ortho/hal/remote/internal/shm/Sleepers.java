package dev.ortho.hal.remote.internal.shm;

/**
 * One side's half of the doorbell handshake of a {@link Mailbox}: who on this side blocks on its
 * {@link Doorbell} waiting for what, and whom the peer must ring after it publishes a state.
 *
 * <p>A side has two possible sleepers: its pump thread ({@link Doorbell#PUMP}) and the caller
 * holding the receiving role in {@link MailboxTransport#receiveWhile} ({@link Doorbell#CALLER}).
 * Three words in the mailbox say what they wait for: {@link #PUMP_IN} and {@link #CALLER_IN} an
 * incoming block (TASK_READY or SHUTDOWN on the side's incoming channel), {@link #PUMP_OUT} the
 * peer consuming the side's last block (TASK_DONE on its outgoing channel, only while bytes wait
 * to go out, or while a closing side waits for its last block to be consumed). The rule is Dekker's: a publisher stores the state ({@link #publish}, volatile) and
 * then loads the peer's words for that state; a sleeper stores its words and then re-checks the
 * states before it blocks. With all four accesses sequentially consistent, either the sleeper
 * sees the state and does not block, or the publisher sees the word and rings: no lost wake-up,
 * and no system call while the peer spins (its words are clear) or has nothing to send (a
 * TASK_DONE rings nobody).
 *
 * <p>While a caller receives, the pump is not needed for incoming blocks and must not be rung for
 * each: {@link #callerEnters} clears {@link #PUMP_IN} and the pump blocks un-rung for them
 * ({@link #pumpMaySleepUnrung}, until its tick). When the caller leaves ({@link #callerLeaves})
 * it sets {@link #PUMP_IN} on the pump's behalf and re-checks the incoming channel (waking the
 * pump locally if a block is there already), so from then on the peer rings the pump even though
 * the pump went to sleep un-rung. The pump's clear in {@link #pumpMaySleepUnrung} comes before
 * its load of {@code callerReceiving}, and the caller's clear of that flag before its store of
 * the word, so a pump that reads "a caller receives" never overwrites the word the leaving caller
 * set (jcstress {@code ShmDoorbellStress}).
 *
 * <p>Thread-safe: the pump methods are called by the pump thread, the caller methods by the
 * holder of the receiving role, {@link #publish} by any sender.
 */
public final class Sleepers {
    /** Word: the pump blocks until a block (or SHUTDOWN) comes in. */
    public static final int PUMP_IN = 0;
    /** Word: the receiving caller blocks until a block (or SHUTDOWN) comes in. */
    public static final int CALLER_IN = 1;
    /** Word: the pump blocks with bytes queued until the peer consumes the side's last block. */
    public static final int PUMP_OUT = 2;
    /** Sleeper words per side. */
    static final int WORDS = 3;
    /** {@link #publish}'s answer: ring the peer's pump. */
    public static final int RING_PUMP = 1;
    /** {@link #publish}'s answer: ring the peer's receiving caller. */
    public static final int RING_CALLER = 2;

    private final Mailbox mailbox;
    private final boolean parent;
    private volatile boolean callerReceiving;

    /** @param parent whether this is the client's (parent's) side */
    public Sleepers(Mailbox mailbox, boolean parent) {
        this.mailbox = mailbox;
        this.parent = parent;
    }

    /**
     * Publishes {@code state} on {@code channel} (volatile) and answers which of the peer's
     * sleepers wait for it ({@link #RING_PUMP} | {@link #RING_CALLER}; 0 while the peer spins):
     * TASK_DONE (on this side's incoming channel) concerns the peer's {@link #PUMP_OUT}, anything
     * else (on the outgoing channel) its {@link #PUMP_IN} and {@link #CALLER_IN}. TASK_DONE
     * replaces only the TASK_READY it answers (a compare-and-set): a SHUTDOWN the peer wrote after
     * that block stays, so the receiver still sees the session end (before, the peer's SHUTDOWN
     * was lost when it came while the block was being copied out, and the receiver waited for a
     * peer that had gone; found by {@code ShmHostileFramesTest}).
     */
    public int publish(int channel, int state) {
        if (state == Mailbox.TASK_DONE) {
            if (!mailbox.casState(channel, Mailbox.TASK_READY, Mailbox.TASK_DONE)) {
                return 0; // the peer shut the channel down meanwhile: its SHUTDOWN stands, nobody waits for this
            }
            return mailbox.lvSleeping(!parent, PUMP_OUT) ? RING_PUMP : 0;
        }
        mailbox.svState(channel, state);
        return (mailbox.lvSleeping(!parent, PUMP_IN) ? RING_PUMP : 0)
                | (mailbox.lvSleeping(!parent, CALLER_IN) ? RING_CALLER : 0);
    }

    /** A caller took the receiving role: the pump need not be rung for incoming blocks while it receives. */
    public void callerEnters() {
        callerReceiving = true;
        mailbox.svSleeping(parent, PUMP_IN, false);
    }

    /**
     * The receiving caller left: the pump is rung for incoming blocks from now on (it may be
     * blocked un-rung). The caller must re-check the incoming channel afterwards and wake the pump
     * if a block is there.
     */
    public void callerLeaves() {
        callerReceiving = false;
        mailbox.svSleeping(parent, PUMP_IN, true);
    }

    /** Whether a caller holds the receiving role (the pump then neither spins nor needs rings for blocks). */
    public boolean callerReceiving() {
        return callerReceiving;
    }

    /**
     * The pump is about to block: announces whether it waits for its outgoing channel
     * ({@code waitsForOut}: bytes are queued, or it closes once its last block is consumed),
     * clears its incoming word and answers whether it may block un-rung for incoming blocks (a
     * caller receives, and that caller's leaving sets the word again). If false, the pump
     * {@link #pumpSleeps} and re-checks instead. Either way it re-checks the outgoing channel if
     * it waits for it.
     */
    public boolean pumpMaySleepUnrung(boolean waitsForOut) {
        mailbox.svSleeping(parent, PUMP_OUT, waitsForOut);
        mailbox.svSleeping(parent, PUMP_IN, false);
        return callerReceiving;
    }

    /** Whether the pump announced it waits for its outgoing channel (a sender need not wake it then). */
    public boolean pumpWaitsForOut() {
        return mailbox.lvSleeping(parent, PUMP_OUT);
    }

    /** The pump announces it blocks until a block comes in; it re-checks the states before blocking. */
    public void pumpSleeps() {
        mailbox.svSleeping(parent, PUMP_IN, true);
    }

    /** The pump is awake (it announces again before it next blocks). */
    public void pumpAwake() {
        mailbox.svSleeping(parent, PUMP_IN, false);
        mailbox.svSleeping(parent, PUMP_OUT, false);
    }

    /** The receiving caller announces it blocks until a block comes in; it re-checks the states before blocking. */
    public void callerSleeps() {
        mailbox.svSleeping(parent, CALLER_IN, true);
    }

    /** The receiving caller is awake. */
    public void callerAwake() {
        mailbox.svSleeping(parent, CALLER_IN, false);
    }
}
