package dev.ortho.hal.frontier;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hands out queue axes that are never reused while the allocator lives (seed 002: "An axis is a
 * globally unique, never-reused 64-bit identifier"). Each device {@linkplain #allocateDevice
 * takes} one (session, device index) pair and builds its queues' axes with
 * {@link Axis#queue(int, int, int, int)}; pairs are handed out in order, 256 device indexes per
 * session epoch, from a starting session chosen at random for {@link #process()}, so two
 * processes that exchange frontiers (a client and a {@code serve-device} server) are unlikely to
 * share one and different machine indexes keep them apart for certain.
 *
 * <p>There are 65,536 pairs per allocator (8-bit session times 8-bit device index; the queue axis
 * layout leaves no other bits). After the last one, {@link #allocateDevice} answers
 * {@link #EXHAUSTED}: such a device must run without an axis of its own, recording its signals
 * as tainted so nothing ever elides a wait on their strength, rather than reuse an axis (which
 * would let a stale frontier prove work on a new queue done).
 *
 * <p>Thread-safe and lock-free. The process allocator lives as long as the class; one per
 * process is the point, so drivers share {@link #process()} and tests build their own.
 */
public final class QueueAxes {

    /** What {@link #allocateDevice} answers once every (session, device) pair is taken. */
    public static final int EXHAUSTED = -1;

    /** Pairs per allocator: 256 session epochs times 256 device indexes. */
    public static final int CAPACITY = 256 * 256;

    private static final QueueAxes PROCESS = new QueueAxes(new SplittableRandom().nextInt(256), 0, CAPACITY);

    private final int firstSession;
    private final int machine;
    private final int capacity;
    private final AtomicInteger next = new AtomicInteger();

    /**
     * An allocator starting at session epoch {@code firstSession} on machine {@code machine}
     * that hands out at most {@code capacity} pairs (tests use small capacities to reach
     * exhaustion).
     *
     * @throws StatusException OUT_OF_RANGE naming the value if {@code firstSession} or
     *     {@code machine} is outside [0, 255] or {@code capacity} outside [1, 65536]
     */
    public QueueAxes(int firstSession, int machine, int capacity) {
        check("first session epoch", firstSession, 255);
        check("machine index", machine, 255);
        if (capacity < 1 || capacity > CAPACITY) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "queue axis capacity " + capacity + " is outside [1, " + CAPACITY + "]");
        }
        this.firstSession = firstSession;
        this.machine = machine;
        this.capacity = capacity;
    }

    /** The allocator every driver of this process shares: a random first session, machine 0. */
    public static QueueAxes process() {
        return PROCESS;
    }

    /** The machine index every axis of this allocator carries. */
    public int machine() {
        return machine;
    }

    /**
     * Takes the next unused (session, device index) pair.
     *
     * @return an opaque device handle for {@link #queueAxis}, or {@link #EXHAUSTED}
     */
    public int allocateDevice() {
        int taken = next.getAndUpdate(n -> n < capacity ? n + 1 : n);
        return taken < capacity ? taken : EXHAUSTED;
    }

    /**
     * The axis of queue {@code queue} of the device {@link #allocateDevice} answered
     * {@code device} for.
     *
     * @throws StatusException OUT_OF_RANGE naming the value if {@code device} was not handed out
     *     by this allocator or {@code queue} is outside [0, 255]
     */
    public long queueAxis(int device, int queue) {
        if (device < 0 || device >= Math.min(next.get(), capacity)) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "device handle " + device + " was not allocated by this queue axis allocator");
        }
        int session = (firstSession + (device >>> 8)) & 0xFF;
        return Axis.queue(session, machine, device & 0xFF, queue);
    }

    private static void check(String what, int value, int max) {
        if (value < 0 || value > max) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, what + " " + value + " is outside [0, " + max + "]");
        }
    }
}
