package dev.ortho.hal.frontier;

import dev.ortho.base.StatusException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The single shared axis of one collective channel (all-reduce, all-gather, broadcast...). All
 * participants of a collective operation record one entry {@code (channel axis, sequence)}
 * instead of one entry per participating queue, so a collective across eight devices costs one
 * frontier entry, not eight (seed 002, "Collective Channel Axes").
 *
 * <p>Each participant holds its own {@code ChannelAxis} for the channel. Collectives are issued
 * in the same order on every participant (as channel semantics require), so numbering them
 * locally with {@link #nextSequence()} gives every participant the same sequence number for the
 * same operation without communication.
 *
 * <p>Thread-safe: sequence allocation is atomic. Lifetime: a plain value holder, nothing to
 * close.
 */
public final class ChannelAxis {

    private final long axis;
    private final AtomicLong lastSequence = new AtomicLong();

    /**
     * Creates the axis of channel {@code channelId} (coordinator-assigned) in the collective
     * domain; no operation has been numbered yet.
     *
     * @throws StatusException OUT_OF_RANGE naming the component if {@code session} or
     *     {@code machine} is outside [0, 255] or {@code channelId} outside [0, 2^40)
     */
    public ChannelAxis(int session, int machine, long channelId) {
        axis = Axis.collective(session, machine, channelId);
    }

    /** The channel's axis. */
    public long axis() {
        return axis;
    }

    /**
     * Numbers the next collective operation on this channel: 1 for the first, then 2, 3...
     * The number is the epoch its participants record on completion.
     */
    public long nextSequence() {
        return lastSequence.incrementAndGet();
    }

    /** The number of the last operation numbered by {@link #nextSequence()}, 0 if none. */
    public long lastSequence() {
        return lastSequence.get();
    }

    /**
     * Records in {@code participant} (a participating queue's frontier, owned by the caller) that
     * collective operation {@code sequence} completed: raises the channel axis to
     * {@code sequence}. Allocation-free; the frontier's own thread-safety rules apply.
     */
    public void recordCompletion(Frontier participant, long sequence) {
        participant.insertOrRaise(axis, sequence);
    }
}
