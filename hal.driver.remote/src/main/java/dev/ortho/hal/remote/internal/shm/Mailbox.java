package dev.ortho.hal.remote.internal.shm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The shared-memory mailbox between a client and a worker (seed 001's PROCESS mode): a memory
 * mapped file (or, for THREAD mode, plain shared memory) holding a header and two one-way
 * channels, parent to child and child to parent.
 *
 * <p>Each channel is seed 001's state machine on one {@code int}: the sender waits for
 * {@link #IDLE}, writes a block of bytes and its length, and publishes {@link #TASK_READY}; the
 * receiver copies the block out and answers {@link #TASK_DONE}; the sender then returns the
 * channel to {@link #IDLE}. {@link #SHUTDOWN} on either channel ends the conversation. The blocks
 * carry the protocol's byte stream, so frames larger than a block span several hand-offs.
 *
 * <p>Layout (little-endian): {@code 0} magic, {@code 4} version, {@code 8} token length,
 * {@code 12..76} token; channel {@code c} has its state at {@code 128 + c * stride}, its length 4
 * bytes later and its data 64 bytes after the state, {@code stride = 64 + capacity} rounded up
 * to 64. States are read with acquire and written with release ordering, so a block's bytes are
 * visible before its state says so. Thread-safe per channel role (one sender, one receiver).
 *
 * <p><b>Sleeper words</b> ({@code 100..124}): per side, three words saying who on that side
 * blocks on its {@link Doorbell} waiting for what ({@link Sleepers#PUMP_IN},
 * {@link Sleepers#CALLER_IN}, {@link Sleepers#PUMP_OUT}; the parent's at {@code 100}, the child's
 * at {@code 112}). They and the states a sleeper waits for are accessed with volatile
 * (sequentially consistent) ordering where {@link Sleepers} needs it: a publisher's state store
 * comes before its load of the peer's words, a sleeper's word store before its re-check of the
 * states, so either the sleeper sees the state or the publisher sees the word and rings.
 *
 * <p><b>Futex bells</b> (version 3): {@code 76} and {@code 80} say whether the parent and the
 * child can use Linux futexes ({@link Futex}; each side writes its own before the doorbell is
 * connected); where both can, each sleeper's bell is a sequence word the ringer increments and
 * wakes ({@link Doorbell}): the parent's pump and caller at bytes 8 and 12 of channel
 * {@link #TO_PARENT}'s line, the child's at bytes 8 and 12 of {@link #TO_CHILD}'s.
 *
 * <p><b>Worker CPUs</b> ({@code 84}, a long): the CPUs the worker's pump keeps to
 * ({@link #workerCpus(long)}), 0 for any; a worker that does not know the field ignores it.
 *
 * <p><b>Client CPU</b> (16 bytes after channel {@link #TO_CHILD}'s state, an int, in the line
 * the worker's pump reads with each block): one more than the CPU the client's thread that last
 * wrote a block or waited for one ran on, 0 where the client cannot tell ({@link #clientCpu(int)});
 * a worker's pump that finds itself on that CPU moves off it. A side that does not know the field
 * leaves it 0 or ignores it.
 */
public final class Mailbox implements AutoCloseable {
    public static final int IDLE = 0;
    public static final int TASK_READY = 1;
    public static final int TASK_DONE = 2;
    public static final int SHUTDOWN = 3;

    /** "OSHM". */
    static final int MAGIC = 0x4D48534F;
    /** 3: the futex bells (2: the sleeper words and the doorbell; a version 1 child would never ring its client). */
    static final int VERSION = 3;
    static final int MAX_TOKEN = 64;
    private static final long HEADER = 128;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final VarHandle STATE = INT.varHandle();

    /** Channel written by the parent (client). */
    public static final int TO_CHILD = 0;
    /** Channel written by the child (worker). */
    public static final int TO_PARENT = 1;

    private final Arena arena;
    private final java.util.concurrent.atomic.AtomicInteger users;
    private final MemorySegment memory;
    private final long capacity;
    private final long stride;
    /** Each channel's data block, sliced once (a slice per block would be an allocation per hand-off). */
    private final MemorySegment[] data;

    private Mailbox(Arena arena, MemorySegment memory, long capacity, int users) {
        this.arena = arena;
        this.users = new java.util.concurrent.atomic.AtomicInteger(users);
        this.memory = memory;
        this.capacity = capacity;
        this.stride = (64 + capacity + 63) & ~63L;
        this.data = new MemorySegment[] {memory.asSlice(stateOffset(TO_CHILD) + 64, capacity),
                memory.asSlice(stateOffset(TO_PARENT) + 64, capacity)};
    }

    /** Bytes a mailbox with {@code capacity}-byte blocks occupies. */
    public static long size(long capacity) {
        return HEADER + 2 * ((64 + capacity + 63) & ~63L);
    }

    /** A new mailbox in {@code file} (created or truncated), both channels IDLE, with {@code token}. */
    public static Mailbox create(Path file, long capacity, byte[] token) {
        Mailbox mailbox = map(file, capacity, true);
        mailbox.initialize(token);
        return mailbox;
    }

    /** A mailbox in process memory, for THREAD-mode workers. */
    public static Mailbox inMemory(long capacity, byte[] token) {
        Arena arena = Arena.ofShared();
        Mailbox mailbox = new Mailbox(arena, arena.allocate(size(capacity), 64), capacity, 1);
        mailbox.initialize(token);
        return mailbox;
    }

    /**
     * Opens a mailbox another process created.
     *
     * @throws StatusException INVALID_ARGUMENT if the file is not a mailbox of this version
     */
    public static Mailbox open(Path file, long capacity) {
        Mailbox mailbox = map(file, capacity, false);
        if (mailbox.memory.byteSize() < HEADER || mailbox.memory.get(INT, 0) != MAGIC || mailbox.memory.get(INT, 4) != VERSION) {
            mailbox.close();
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "file '" + file + "' is not a version "
                    + VERSION + " remote HAL mailbox");
        }
        return mailbox;
    }

    private static Mailbox map(Path file, long capacity, boolean create) {
        if (capacity < 4096 || capacity > (1L << 30)) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "mailbox capacity " + capacity
                    + " is outside [4096, 2^30]");
        }
        Arena arena = Arena.ofShared();
        try (FileChannel channel = create
                ? FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)
                : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = size(capacity);
            if (!create && channel.size() != size) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "mailbox file '" + file + "' has "
                        + channel.size() + " bytes, expected " + size);
            }
            MemorySegment memory = channel.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
            return new Mailbox(arena, memory, capacity, 1);
        } catch (IOException e) {
            arena.close();
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot map mailbox file '" + file + "': "
                    + e.getMessage());
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    private void initialize(byte[] token) {
        if (token.length > MAX_TOKEN) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "mailbox token of " + token.length
                    + " bytes exceeds " + MAX_TOKEN);
        }
        memory.set(INT, 0, MAGIC);
        memory.set(INT, 4, VERSION);
        memory.set(INT, 8, token.length);
        MemorySegment.copy(MemorySegment.ofArray(token), 0, memory, 12, token.length);
        STATE.setRelease(memory, stateOffset(TO_CHILD), IDLE);
        STATE.setRelease(memory, stateOffset(TO_PARENT), IDLE);
    }

    /** The token the creator stored (the child presents it in its handshake check). */
    public byte[] token() {
        int length = memory.get(INT, 8);
        if (length < 0 || length > MAX_TOKEN) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "mailbox token length " + length + " is invalid");
        }
        return memory.asSlice(12, length).toArray(ValueLayout.JAVA_BYTE);
    }

    public long capacity() {
        return capacity;
    }

    private long stateOffset(int channel) {
        return HEADER + channel * stride;
    }

    /** Acquire load of the channel's state; pairs with {@link #soState}. */
    public int lvState(int channel) {
        return (int) STATE.getAcquire(memory, stateOffset(channel));
    }

    /** Release store of the channel's state: publishes the block written before it. */
    public void soState(int channel, int state) {
        STATE.setRelease(memory, stateOffset(channel), state);
    }

    /** The channel's block length (read after seeing TASK_READY). */
    public int length(int channel) {
        return memory.get(INT, stateOffset(channel) + 4);
    }

    /** Sets the block length (before publishing TASK_READY). */
    public void length(int channel, int length) {
        memory.set(INT, stateOffset(channel) + 4, length);
    }

    /** The channel's data block ({@link #capacity()} bytes; the same segment every call). */
    public MemorySegment data(int channel) {
        return data[channel];
    }

    /** Offset of the int the child sets to 1 once it has mapped the mailbox and is serving. */
    private static final long READY = 96;

    /** Marks the child side as serving or not (release; pairs with {@link #lvReady()}). */
    public void soReady(boolean ready) {
        STATE.setRelease(memory, READY, ready ? 1 : 0);
    }

    /** Offset of the parent's first sleeper word; see the class comment. */
    private static final long SLEEPERS = 100;

    private static long sleeperOffset(boolean parentSide, int word) {
        if (word < 0 || word >= Sleepers.WORDS) {
            throw new IllegalArgumentException("sleeper word " + word);
        }
        return SLEEPERS + (parentSide ? 0 : 4L * Sleepers.WORDS) + 4L * word;
    }

    /**
     * Volatile store of a channel's state: like {@link #soState}, and ordered before a following
     * {@link #lvSleeping} (the publisher's half of the doorbell handshake).
     */
    public void svState(int channel, int state) {
        STATE.setVolatile(memory, stateOffset(channel), state);
    }

    /**
     * Volatile store of the parent's or the child's sleeper {@code word} ({@link Sleepers#PUMP_IN}
     * …); ordered before the sleeper's re-check of the states.
     */
    public void svSleeping(boolean parentSide, int word, boolean sleeping) {
        STATE.setVolatile(memory, sleeperOffset(parentSide, word), sleeping ? 1 : 0);
    }

    /**
     * Volatile compare-and-set of a channel's state (ordered like {@link #svState}): how a receiver
     * hands a block back, so it never overwrites a SHUTDOWN the sender wrote meanwhile.
     */
    public boolean casState(int channel, int expected, int state) {
        return STATE.compareAndSet(memory, stateOffset(channel), expected, state);
    }

    /** Volatile load of a sleeper word written by {@link #svSleeping}. */
    public boolean lvSleeping(boolean parentSide, int word) {
        return (int) STATE.getVolatile(memory, sleeperOffset(parentSide, word)) == 1;
    }

    /**
     * Returns both channels to IDLE and clears the sleeper words for the next session (the child,
     * once the client has shut down, before it marks itself ready).
     */
    public void reset() {
        for (int word = 0; word < Sleepers.WORDS; word++) {
            svSleeping(true, word, false);
            svSleeping(false, word, false);
        }
        soState(TO_PARENT, IDLE);
        soState(TO_CHILD, IDLE);
    }

    /** Offset of the parent's futex capability; the child's is 4 bytes later. */
    private static final long CAN_FUTEX = 76;

    /** Says whether this side ({@code parentSide}) can use futex bells (release; before the doorbell connects). */
    public void soCanFutex(boolean parentSide, boolean can) {
        STATE.setRelease(memory, CAN_FUTEX + (parentSide ? 0 : 4), can ? 1 : 0);
    }

    /** Whether the parent or the child said it can use futex bells. */
    public boolean lvCanFutex(boolean parentSide) {
        return (int) STATE.getAcquire(memory, CAN_FUTEX + (parentSide ? 0 : 4)) == 1;
    }

    /** The futex word of a side's bell {@code who} ({@link Doorbell#PUMP}, {@link Doorbell#CALLER}). */
    MemorySegment bell(boolean parentSide, int who) {
        return memory.asSlice(bellOffset(parentSide, who), 4);
    }

    private long bellOffset(boolean parentSide, int who) {
        if (who != Doorbell.PUMP && who != Doorbell.CALLER) {
            throw new IllegalArgumentException("bell " + who);
        }
        return stateOffset(parentSide ? TO_PARENT : TO_CHILD) + 8 + 4L * who;
    }

    /**
     * Volatile load of a side's futex bell word: what a sleeper takes before it announces itself
     * (a ring after it changes the word, and the futex wait then returns at once).
     */
    public int lvBell(boolean parentSide, int who) {
        return (int) STATE.getVolatile(memory, bellOffset(parentSide, who));
    }

    /** Increments a side's futex bell word (volatile): a ring, before the futex wake. */
    public void incrementBell(boolean parentSide, int who) {
        STATE.getAndAdd(memory, bellOffset(parentSide, who), 1);
    }

    /** Offset of the worker's CPU mask (a long; 0: any CPU), written by the pool before the worker starts. */
    private static final long WORKER_CPUS = 84;

    /**
     * Sets the CPUs (bits 0 to 63) the worker's pump runs on, 0 for any: a plain store, made before
     * the worker starts (its process or thread is started after it).
     */
    public void workerCpus(long mask) {
        memory.set(ValueLayout.JAVA_LONG_UNALIGNED, WORKER_CPUS, mask);
    }

    /** The CPUs the worker's pump runs on, 0 for any (read by the worker as it starts serving). */
    public long workerCpus() {
        return memory.get(ValueLayout.JAVA_LONG_UNALIGNED, WORKER_CPUS);
    }

    /** Offset of the client CPU word in channel {@link #TO_CHILD}'s line. */
    private long clientCpuOffset() {
        return stateOffset(TO_CHILD) + 16;
    }

    /**
     * Names the CPU a client thread that writes blocks or waits for them runs on, -1 for unknown
     * (opaque store of a hint: ordered with nothing; a stale value costs at most a needless move).
     */
    public void clientCpu(int cpu) {
        STATE.setOpaque(memory, clientCpuOffset(), cpu + 1);
    }

    /** The CPU a client thread last named ({@link #clientCpu(int)}), -1 if unknown (opaque load). */
    public int clientCpu() {
        return (int) STATE.getOpaque(memory, clientCpuOffset()) - 1;
    }

    /** Whether the child side is serving. */
    public boolean lvReady() {
        return (int) STATE.getAcquire(memory, READY) == 1;
    }

    /** Adds a user (a transport pumping it); each user closes it once. */
    public void acquire() {
        users.incrementAndGet();
    }

    /**
     * Drops a user; the last one unmaps it. The creator is the first user; each transport
     * {@link #acquire()}s it while pumping, so memory is never unmapped under a running pump.
     */
    @Override
    public void close() {
        if (users.decrementAndGet() == 0) {
            arena.close();
        }
    }
}
