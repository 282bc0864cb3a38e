package dev.ortho.hal.remote.internal.shm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/**
 * A {@link Transport} over a {@link Mailbox}: one pump thread ({@code ortho-remote-shm-N},
 * daemon) per side moves queued frames into the outgoing channel and incoming blocks into frames.
 *
 * <p><b>No hand-offs on a round trip.</b> A sender writes its frames into the outgoing channel
 * itself when the channel is free and nobody else is writing (the pump writes what is left, once
 * the peer consumed the last block); a caller waiting for the peer ({@link #receiveWhile})
 * takes the receiving role from the pump and polls the incoming channel itself. A round trip is
 * so caller → peer's pump → caller. Two roles ({@code sending}, {@code receiving}), each an
 * {@link AtomicBoolean} taken with a CAS, keep one writer per channel and one assembler of
 * incoming frames.
 *
 * <p><b>Waiting.</b> A side with nothing to do spins (up to {@link #SPINS} {@link Thread#onSpinWait()}
 * rounds for the pump, {@link #CALLER_SPINS} for a receiving caller: about 130 µs, where a reply
 * usually arrives; shorter while waits keep needing a ring, see {@link #MIN_SPINS}), then sleeps
 * on its {@link Doorbell}: it announces in the mailbox that it
 * sleeps, re-checks the channels, and blocks until the peer rings (the peer writes a byte only
 * when it publishes a state and sees the word set, see {@link Sleepers}), a local sender, close or
 * {@link #wakeReceiver} wakes it, or the tick is due. No progress depends on a timer: a sleeper
 * is always rung, so a descheduled side that ran out of spinning costs one blocking wake-up, not
 * a park slice (the timer slack made those ≥ 50 µs, slices grew to 1 ms). While a caller receives,
 * the pump blocks un-rung until its tick ({@link Sleepers#callerEnters}). A peer that spins sees
 * no system call.
 *
 * <p><b>Placement.</b> A client's threads that write blocks or wait for them name their CPU in
 * the mailbox ({@link #nameClientCpu}); a worker's pump that finds itself on that CPU moves to
 * another ({@link #moveOffClientsCpu}), as two sides that share a CPU cannot both spin. Nothing
 * is pinned unless {@code worker_cpus} asks.
 *
 * <p><b>Hostile peers.</b> The TCP server's limits hold here too: an incoming length prefix is
 * checked against the frame limit before anything is allocated (a worker's transport starts at
 * {@link Protocol#HANDSHAKE_MAX_FRAME_BYTES} and takes its full maximum once its session
 * {@linkplain #authenticated() authenticated} the client, see {@link #forServer}); a body starts
 * at {@link #FIRST_BODY_CHUNK} bytes and grows with the bytes that arrive; a block longer than
 * the mailbox's capacity is refused; and a peer that stops consuming may leave at most four
 * maximum frames queued before the transport closes (RESOURCE_EXHAUSTED). A violation closes
 * this transport with a status, and so only the peer's own session.
 *
 * <p><b>Liveness.</b> The doorbell's end of stream reports a dead peer process at once
 * (UNAVAILABLE); {@code peerAlive} is also checked before each sleep, and process exit callbacks
 * close the transport. A peer that writes {@link Mailbox#SHUTDOWN} closes it too. The mailbox is
 * closed (unmapped) by the pump thread when it exits.
 */
public final class MailboxTransport implements Transport {
    static final int SPINS = 2_000;
    /** Rounds a receiving caller spins before it sleeps on the doorbell (about as long as the pump spins). */
    static final int CALLER_SPINS = 2_000;
    /**
     * The fewest rounds a side spins: after a wait that spinning did not satisfy (it had to be
     * rung), the next spin is a quarter as long, down to this; a wait satisfied while spinning
     * doubles it again, up to {@link #SPINS}. A ring wakes the sleeper on the ringer's CPU (Linux
     * treats a socket or pipe write as a synchronous wake-up), and two sides that then spin their
     * full windows on one CPU each wait out the other's window: about 200 µs per round trip
     * (measured). Short spins turn that into a ping-pong of wake-ups until the sides are apart
     * again and spinning succeeds.
     */
    static final int MIN_SPINS = 64;
    /**
     * After this many waits in a row that needed a ring, the next wait spins the whole window once
     * (a probe). Short spins on both sides are also a stable state where they are not needed: when
     * a round trip starts slow (a cold JIT), each side sleeps before the other's answer, every wait
     * needs a ring, and no spin is ever satisfied to grow again — measured on an idle machine at
     * p50 27 µs against 1.5–3 µs. A probe that catches the answer while spinning puts the side
     * back on the fast path; one that fails (the sides share a CPU) costs one window per this
     * many round trips.
     */
    static final int PROBE_AFTER = 64;
    /**
     * Bytes of an incoming body allocated before its bytes arrive (TCP's first chunk too): the
     * body then doubles as they do, so a peer that announces a large frame and sends little
     * makes this side hold at most twice what it sent.
     */
    static final int FIRST_BODY_CHUNK = 64 << 10;
    /** The pump's tick period, and the longest any side blocks before it re-checks anyway. */
    static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Mailbox mailbox;
    private final int out;
    private final int in;
    private final boolean parent;
    private final BooleanSupplier peerAlive;
    private final String peer;
    private final int maxFrameBytes;
    /** The largest frame accepted now: a server's handshake limit until {@link #authenticated()}, then {@link #maxFrameBytes}. */
    private volatile int frameLimit;
    /** Bytes that may wait to be sent: a peer that stops consuming cannot make this side hold more. */
    private final long maxQueuedBytes;
    private final Queue<ByteBuffer> outbound = new ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicLong queuedBytes = new java.util.concurrent.atomic.AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Held by whoever writes the outgoing channel (a sender or the pump). */
    private final AtomicBoolean sending = new AtomicBoolean();
    /** Held by whoever takes incoming blocks and assembles frames (the pump or a waiting caller). */
    private final AtomicBoolean receiving = new AtomicBoolean();
    private final Doorbell doorbell;
    private final Sleepers sleepers;
    private final long tickNanos;
    /** The pump is in (or about to enter) its doorbell wait: local senders and close wake it. */
    private volatile boolean pumpSleeping;
    /** The receiving caller is in (or about to enter) its doorbell wait: {@link #wakeReceiver} wakes it. */
    private volatile boolean callerSleeping;
    /** Doorbell waits so far of the pump and of receiving callers: tests check the doorbell path ran. */
    private final AtomicInteger pumpSleeps = new AtomicInteger();
    private final AtomicInteger callerSleeps = new AtomicInteger();
    /** Rounds the pump spins before it sleeps (pump thread only); see {@link #MIN_SPINS}. */
    private int pumpSpins = SPINS;
    /** Waits in a row the pump had to be rung for (pump thread only); see {@link #PROBE_AFTER}. */
    private int pumpSleptInARow;
    /** Rounds a receiving caller spins before it sleeps (holder of {@code receiving} only). */
    private int callerSpins = CALLER_SPINS;
    /** Waits in a row a receiving caller had to be rung for (holder of {@code receiving} only). */
    private int callerSleptInARow;
    private final ByteBuffer lengthPrefix = ByteBuffer.allocate(Protocol.LENGTH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    /** Frames a block completed, delivered once the block is handed back (holder of {@code receiving} only). */
    private final java.util.ArrayList<ByteBuffer> completed = new java.util.ArrayList<>();
    /** Body bytes allocated for incoming frames so far (holder of {@code receiving} writes; diagnostics and tests read). */
    private volatile long bodyBytesAllocated;
    private final Thread pump;
    private final Runnable tick;
    private volatile Listener listener;
    private volatile long lastReceiveNanos = System.nanoTime();
    private volatile long peerSinceNanos = NO_PEER_YET;
    private volatile StatusException closeReason;
    private volatile boolean flushThenClose;
    private ByteBuffer body; // holder of `receiving` only
    /** CPUs the pump keeps to, 0 for any ({@link #pinPumpTo}; set before start, read by the pump). */
    private long pumpCpus;
    /** Whether the pump pinned itself to {@link #pumpCpus} (diagnostics). */
    private volatile boolean pumpPinned;
    /** Times the worker's pump moved off the client's CPU ({@link #moveOffClientsCpu}; diagnostics, tests). */
    private final AtomicInteger movesOffClient = new AtomicInteger();
    /** Whether this is a worker's pump that moves off the client's CPU (set by the pump as it starts). */
    private boolean keepOffClient;
    /** How often the pump may move off the client's CPU (pump thread only). */
    private final MoveBackoff moves = new MoveBackoff();
    /**
     * The CPU this client side last named in the mailbox ({@link #nameClientCpu}): a racy hint
     * shared by the sending and the receiving role, so the word is written only when it changes.
     */
    private int namedCpu = -1;
    /** Idle rounds between two looks at the CPU a spinning client caller runs on. */
    private static final int CPU_CHECK_ROUNDS = 8;
    private int bodyLength; // of the frame in `body`; holder of `receiving` only

    /**
     * A transport that accepts frames up to {@code maxFrameBytes} from the start (a client's).
     *
     * @param doorbell this side's end of the mailbox's doorbell (borrowed: it outlives the transport)
     * @param parent true on the client side (writes {@link Mailbox#TO_CHILD})
     * @param peerAlive whether the other side still exists
     * @param tick run by the pump about every 10 ms (liveness pings); must not block
     */
    public MailboxTransport(Mailbox mailbox, Doorbell doorbell, boolean parent, BooleanSupplier peerAlive, String peer,
            int maxFrameBytes, Runnable tick) {
        this(mailbox, doorbell, parent, peerAlive, peer, maxFrameBytes, maxFrameBytes, tick, TICK_NANOS);
    }

    /** As above with a tick period of {@code tickNanos} (tests: a very long one shows no wake-up waits for it). */
    MailboxTransport(Mailbox mailbox, Doorbell doorbell, boolean parent, BooleanSupplier peerAlive, String peer,
            int maxFrameBytes, Runnable tick, long tickNanos) {
        this(mailbox, doorbell, parent, peerAlive, peer, maxFrameBytes, maxFrameBytes, tick, tickNanos);
    }

    /**
     * A worker's transport to its client (the child side): as a TCP server's connection, frames
     * are limited to {@link Protocol#HANDSHAKE_MAX_FRAME_BYTES} until the session calls
     * {@link #authenticated()}, then to {@code maxFrameBytes}.
     */
    public static MailboxTransport forServer(Mailbox mailbox, Doorbell doorbell, BooleanSupplier peerAlive, String peer,
            int maxFrameBytes, Runnable tick) {
        return new MailboxTransport(mailbox, doorbell, false, peerAlive, peer, Protocol.HANDSHAKE_MAX_FRAME_BYTES,
                maxFrameBytes, tick, TICK_NANOS);
    }

    /**
     * @param initialMaxFrameBytes the frame limit until {@link #authenticated()}
     * @param maxFrameBytes the frame limit afterwards; four times it may wait to be sent
     */
    MailboxTransport(Mailbox mailbox, Doorbell doorbell, boolean parent, BooleanSupplier peerAlive, String peer,
            int initialMaxFrameBytes, int maxFrameBytes, Runnable tick, long tickNanos) {
        this.mailbox = mailbox;
        this.doorbell = doorbell;
        this.sleepers = new Sleepers(mailbox, parent);
        this.tickNanos = tickNanos;
        mailbox.acquire(); // released when the pump exits
        this.parent = parent;
        this.out = parent ? Mailbox.TO_CHILD : Mailbox.TO_PARENT;
        this.in = parent ? Mailbox.TO_PARENT : Mailbox.TO_CHILD;
        this.peerAlive = peerAlive;
        this.peer = peer;
        this.maxFrameBytes = maxFrameBytes;
        this.frameLimit = Math.min(initialMaxFrameBytes, maxFrameBytes);
        this.maxQueuedBytes = 4L * maxFrameBytes;
        this.tick = tick;
        this.pump = Thread.ofPlatform().daemon().name("ortho-remote-shm-" + THREADS.incrementAndGet())
                .unstarted(this::run);
    }

    /**
     * Keeps the pump thread on the CPUs {@code mask} names (bits 0 to 63) once it starts, where
     * this JVM can pin threads ({@link Affinity}); before {@link #start}.
     */
    void pinPumpTo(long mask) {
        this.pumpCpus = mask;
    }

    /** Starts pumping, delivering to {@code listener}. Call once (the mailbox is held until the pump exits). */
    public void start(Listener listener) {
        this.listener = listener;
        pump.start();
    }

    @Override
    public void send(ByteBuffer frame) {
        if (closed.get()) {
            return;
        }
        int bytes = frame.remaining();
        if (queuedBytes.addAndGet(bytes) > maxQueuedBytes) {
            queuedBytes.addAndGet(-bytes);
            close(new StatusException(StatusCode.RESOURCE_EXHAUSTED, "more than " + maxQueuedBytes
                    + " bytes are waiting to be sent to " + peer + ", which is not consuming them"));
            return;
        }
        outbound.add(frame);
        trySend(); // straight into the channel when it is free: no hand-off to the pump
        // bytes left over (the channel is busy, or another thread held it a moment): the pump
        // writes them; a sleeping pump is woken unless the peer's TASK_DONE will ring it
        if (!outbound.isEmpty() && pumpSleeping && !pumpRungWhenChannelFree()) {
            doorbell.wakeup(Doorbell.PUMP);
        }
    }

    /** Whether the sleeping pump announced it waits for the outgoing channel, and the peer has yet to free it. */
    private boolean pumpRungWhenChannelFree() {
        try {
            return sleepers.pumpWaitsForOut() && mailbox.lvState(out) == Mailbox.TASK_READY;
        } catch (IllegalStateException unmapped) {
            return true; // closed meanwhile: nothing more goes out
        }
    }

    /** Publishes {@code state} on {@code channel} and rings the peer's sleepers that announced themselves. */
    private void publish(int channel, int state) {
        int ring = sleepers.publish(channel, state);
        if ((ring & Sleepers.RING_PUMP) != 0) {
            long at = WaitLog.ON ? System.nanoTime() : 0;
            doorbell.ring(Doorbell.PUMP);
            if (WaitLog.ON) {
                WaitLog.rang(parent, Doorbell.PUMP, at);
            }
        }
        if ((ring & Sleepers.RING_CALLER) != 0) {
            long at = WaitLog.ON ? System.nanoTime() : 0;
            doorbell.ring(Doorbell.CALLER);
            if (WaitLog.ON) {
                WaitLog.rang(parent, Doorbell.CALLER, at);
            }
        }
    }

    /**
     * Whether a block or a shutdown came in, or queued bytes can go out (checked after announcing
     * a sleep: the sleeper's half of the handshake).
     */
    private boolean channelWork() {
        int inState = mailbox.lvState(in);
        return inState == Mailbox.TASK_READY || inState == Mailbox.SHUTDOWN || outWork();
    }

    /** Whether queued bytes can go out now. */
    private boolean outWork() {
        if (outbound.isEmpty()) {
            return false;
        }
        int outState = mailbox.lvState(out);
        return outState == Mailbox.IDLE || outState == Mailbox.TASK_DONE;
    }

    /** {@link #pumpOut} if nobody else is writing; true if a block went out. */
    private boolean trySend() {
        if (!sending.compareAndSet(false, true)) {
            return false;
        }
        try {
            return pumpOut();
        } catch (IllegalStateException unmapped) {
            return false; // closed meanwhile: the pump exited and unmapped the mailbox
        } finally {
            sending.set(false);
        }
    }

    /** {@link #pumpIn} if nobody else is receiving; true if a block came in. */
    private boolean tryReceive() {
        if (!receiving.compareAndSet(false, true)) {
            return false;
        }
        try {
            return pumpIn(true);
        } finally {
            receiving.set(false);
        }
    }

    @Override
    public boolean receiveWhile(BooleanSupplier waiting, long deadlineNanos) {
        if (closed.get()) {
            return false;
        }
        if (!receiving.compareAndSet(false, true)) {
            if (WaitLog.ON) {
                WaitLog.refused(parent, System.nanoTime());
            }
            return false;
        }
        try {
            sleepers.callerEnters();
            if (parent) {
                nameClientCpu(); // a worker's pump keeps off this CPU
            }
            int idle = 0;
            boolean slept = false;
            WaitLog.Wait log = WaitLog.ON ? new WaitLog.Wait(WaitLog.CALLER_WAIT, parent) : null;
            while (waiting.getAsBoolean() && !closed.get()) {
                boolean progress = pumpIn(false);
                progress |= trySend();
                if (WaitLog.ON) {
                    log.round(progress, idle);
                }
                if (progress) {
                    callerSleptInARow = slept ? callerSleptInARow + 1 : 0;
                    callerSpins = adapt(callerSpins, idle, slept, CALLER_SPINS, callerSleptInARow);
                    idle = 0;
                    slept = false;
                    continue;
                }
                if (Transport.passed(deadlineNanos) || Thread.currentThread().isInterrupted()) {
                    break;
                }
                if (++idle < callerSpins) {
                    if (parent && idle % CPU_CHECK_ROUNDS == 0) {
                        nameClientCpu(); // Linux may have moved this thread meanwhile
                    }
                    Thread.onSpinWait();
                } else {
                    int sleep = callerSleep(waiting, deadlineNanos);
                    slept |= sleep != NOT_BLOCKED;
                    if (parent && sleep != NOT_BLOCKED) {
                        nameClientCpu(); // woken, perhaps on another CPU
                    }
                    if (WaitLog.ON && sleep != NOT_BLOCKED) {
                        log.slept(sleep == RUNG);
                    }
                }
            }
        } catch (StatusException e) {
            finish(e);
        } catch (IllegalStateException e) {
            finish(unavailable("the mailbox was unmapped: " + e.getMessage()));
        } catch (RuntimeException e) {
            finish(new StatusException(StatusCode.INTERNAL, "mailbox transport to " + peer + " failed: " + e, e));
        } catch (Error e) {
            // as a pump would: the transport fails (its waiters get UNAVAILABLE naming it), not the caller's thread
            finish(unavailable("receiving on a waiting caller's thread stopped by " + e));
        } finally {
            receiving.set(false);
            handBackToPump();
        }
        return true;
    }

    /**
     * The receiving caller leaves: the pump is rung from now on, and woken here if a block came in
     * (or bytes can go out) before its word was set.
     */
    private void handBackToPump() {
        try {
            sleepers.callerLeaves();
            if (closed.get() || channelWork()) {
                doorbell.wakeup(Doorbell.PUMP);
            }
        } catch (IllegalStateException unmapped) {
            // closed meanwhile: the pump exited and unmapped the mailbox
        }
    }

    /**
     * The next spin length after progress: shorter if the wait needed a wake-up, longer if
     * spinning satisfied it (see {@link #MIN_SPINS}); the whole window after {@link #PROBE_AFTER}
     * waits in a row that needed one ({@code sleptInARow} counts them, this one included).
     */
    static int adapt(int spins, int idle, boolean slept, int max, int sleptInARow) {
        if (slept) {
            return sleptInARow % PROBE_AFTER == 0 ? max : Math.max(MIN_SPINS, spins >> 2);
        }
        return idle > 0 ? Math.min(max, spins << 1) : spins;
    }

    /** {@link #callerSleep}'s answers: it did not block, it blocked (woken or timed out), it blocked and was rung. */
    private static final int NOT_BLOCKED = 0;
    private static final int BLOCKED = 1;
    private static final int RUNG = 2;

    /**
     * The receiving caller blocks on its bell until rung, woken, its deadline or the tick period;
     * {@link #NOT_BLOCKED}, {@link #BLOCKED} or {@link #RUNG}.
     */
    private int callerSleep(BooleanSupplier waiting, long deadlineNanos) {
        long nanos = deadlineNanos == Long.MAX_VALUE ? tickNanos
                : Math.min(tickNanos, deadlineNanos - System.nanoTime());
        if (nanos <= 0) {
            return NOT_BLOCKED;
        }
        callerSleeping = true;
        try {
            int prepared = doorbell.prepare(Doorbell.CALLER); // before announcing: a ring after it is kept
            sleepers.callerSleeps();
            if (!channelWork() && waiting.getAsBoolean() && !closed.get()) {
                callerSleeps.incrementAndGet();
                return doorbell.await(Doorbell.CALLER, prepared, nanos, peer) ? RUNG : BLOCKED;
            }
            return NOT_BLOCKED;
        } finally {
            callerSleeping = false;
            sleepers.callerAwake();
        }
    }

    @Override
    public void wakeReceiver() {
        if (callerSleeping) {
            doorbell.wakeup(Doorbell.CALLER);
        }
    }

    /** Whether the pump is in (or about to enter) its doorbell wait (tests: an idle connection's pump sleeps). */
    boolean pumpAsleep() {
        return pumpSleeping;
    }

    /** The pump's doorbell waits so far (tests). */
    int pumpSleeps() {
        return pumpSleeps.get();
    }

    /** Receiving callers' doorbell waits so far (tests). */
    int callerSleeps() {
        return callerSleeps.get();
    }

    private void run() {
        if (pumpCpus != 0) {
            pumpPinned = Affinity.restrictCurrentThread(pumpCpus);
        }
        // a worker's pump that the user did not pin keeps off the CPU its client's thread runs on
        keepOffClient = !parent && pumpCpus == 0 && Affinity.available();
        int idle = 0;
        boolean slept = false; // the last wait spun out and slept ringable
        long nextTick = System.nanoTime();
        WaitLog.Wait log = WaitLog.ON ? new WaitLog.Wait(WaitLog.PUMP_WAIT, parent) : null;
        try {
            while (!closed.get()) {
                boolean progress = tryReceive() | trySend();
                if (WaitLog.ON) {
                    log.round(progress, idle);
                }
                if (flushThenClose && outbound.isEmpty() && !sending.get() && mailbox.lvState(out) != Mailbox.TASK_READY) {
                    finish(closeReason);
                    break;
                }
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    nextTick = now + tickNanos;
                    tick.run();
                }
                if (progress) {
                    pumpSleptInARow = slept ? pumpSleptInARow + 1 : 0;
                    pumpSpins = adapt(pumpSpins, idle, slept, SPINS, pumpSleptInARow);
                    idle = 0;
                    slept = false;
                } else if (!sleepers.callerReceiving() && idle < pumpSpins) {
                    idle++;
                    Thread.onSpinWait();
                } else { // spun out, or a waiting caller polls: do not spin beside it
                    if (!peerAlive.getAsBoolean()) {
                        finish(unavailable("the peer process is gone"));
                        break;
                    }
                    boolean standby = sleepers.callerReceiving();
                    int sleep = pumpSleep(nextTick - now);
                    slept |= !standby; // spinning failed (a stand-by beside a receiving caller did not spin)
                    if (WaitLog.ON && sleep != NOT_BLOCKED) {
                        log.slept(sleep == RUNG);
                    }
                    idle = pumpSpins; // after a wake-up without work, sleep again at once
                }
            }
        } catch (StatusException e) {
            finish(e);
        } catch (RuntimeException e) {
            finish(new StatusException(StatusCode.INTERNAL, "mailbox transport to " + peer + " failed: " + e, e));
        } catch (Error e) {
            // a listener's Error while the pump delivered: the transport fails naming it (as on a caller's thread)
            finish(unavailable("the mailbox pump was stopped by " + e));
        } finally {
            if (parent) {
                mailbox.soReady(false); // the worker is not serving a new client until it has reset
            }
            publish(out, Mailbox.SHUTDOWN); // tell the peer this session is over
            mailbox.close();
        }
    }

    /**
     * A client thread that writes a block or waits for one names the CPU it runs on in the
     * mailbox, if that changed since the last time ({@link Mailbox#clientCpu(int)}).
     */
    private void nameClientCpu() {
        int cpu = Affinity.currentCpu();
        if (cpu != namedCpu) {
            namedCpu = cpu;
            mailbox.clientCpu(cpu);
        }
    }

    /**
     * A worker's pump took a block: if the client's thread that wrote it or waits for the answer
     * runs on this pump's CPU ({@code clientCpu}), the pump moves to another of its CPUs
     * ({@link Affinity#moveOff}: not a pin; the scheduler stays free to place it), as often as
     * {@link MoveBackoff} allows, before it handles the block. Two threads that hand a round
     * trip to each other on one CPU cannot both spin: each waits for the other to sleep, every
     * answer costs a wake-up (12–40 µs here against 1–2 µs apart), and Linux does not separate
     * them by itself, as only one of the two is runnable at a time (measured on an idle 2-CPU
     * machine: the slept round trips of the p99 ran on one CPU; bench/README.md). Before the
     * reply, so that the caller it wakes is still on its own CPU, the one the pump leaves. The
     * pump, not the client's thread, moves: that is the application's. Apart again, the pump's
     * spin window starts whole.
     */
    private void moveOffClientsCpu(int clientCpu) {
        if (clientCpu != Affinity.currentCpu()) {
            return;
        }
        long now = System.nanoTime();
        if (!moves.mayMove(now)) {
            return;
        }
        boolean moved = Affinity.moveOff(clientCpu);
        moves.tried(now, System.nanoTime() - now, moved);
        if (moved) {
            movesOffClient.incrementAndGet();
            pumpSpins = SPINS;
            pumpSleptInARow = 0;
        }
        if (WaitLog.ON) {
            WaitLog.moved(now, clientCpu, moved);
        }
    }

    /** Times the worker's pump moved off the client's CPU (tests). */
    int movesOffClient() {
        return movesOffClient.get();
    }

    /**
     * The pump blocks on its bell until rung, woken locally or {@code nanos} (the next tick) pass;
     * un-rung while a caller receives (that caller's leaving hands the ringing back).
     * {@link #NOT_BLOCKED}, {@link #BLOCKED} or {@link #RUNG}. A pump closing after a flush
     * ({@link #closeAfterFlush}) whose last block the peer has not consumed sleeps too, rung by
     * the peer's TASK_DONE: a peer that never consumes it costs a sleeper until the session's
     * timeout closes it, not a spinning thread.
     */
    private int pumpSleep(long nanos) {
        if (nanos <= 0) {
            return NOT_BLOCKED;
        }
        pumpSleeping = true;
        try {
            int prepared = doorbell.prepare(Doorbell.PUMP); // before announcing: a ring or local wake-up after it is kept
            boolean flushing = flushThenClose;
            // a caller receives: it takes the incoming blocks meanwhile
            boolean unrung = sleepers.pumpMaySleepUnrung(flushing || !outbound.isEmpty());
            if (!unrung) {
                sleepers.pumpSleeps();
            }
            boolean flushed = flushing && outbound.isEmpty() && mailbox.lvState(out) != Mailbox.TASK_READY;
            if (!closed.get() && !flushed && !(unrung ? outWork() : channelWork())) {
                pumpSleeps.incrementAndGet();
                return doorbell.await(Doorbell.PUMP, prepared, nanos, peer) ? RUNG : BLOCKED;
            }
            return NOT_BLOCKED;
        } finally {
            pumpSleeping = false;
            sleepers.pumpAwake();
        }
    }

    /** Moves queued bytes into the outgoing channel when it is free. */
    private boolean pumpOut() {
        int state = mailbox.lvState(out);
        if (state == Mailbox.TASK_DONE) {
            mailbox.soState(out, Mailbox.IDLE); // the peer consumed the last block
            state = Mailbox.IDLE;
        }
        if (state != Mailbox.IDLE || outbound.isEmpty()) {
            return false;
        }
        MemorySegment data = mailbox.data(out);
        long capacity = mailbox.capacity();
        int written = 0;
        ByteBuffer frame;
        while (written < capacity && (frame = outbound.peek()) != null) {
            int n = (int) Math.min(frame.remaining(), capacity - written);
            MemorySegment.copy(MemorySegment.ofBuffer(frame), 0, data, written, n);
            frame.position(frame.position() + n);
            queuedBytes.addAndGet(-n);
            written += n;
            if (!frame.hasRemaining()) {
                outbound.poll();
            }
        }
        mailbox.length(out, written);
        if (parent) {
            nameClientCpu(); // a worker's pump keeps off this CPU
        }
        publish(out, Mailbox.TASK_READY); // volatile: publishes the block; rings the peer if it sleeps
        return true;
    }

    /**
     * Takes a ready incoming block and delivers the frames it completes: their bytes are copied
     * from the mailbox into their bodies, the block is handed back (TASK_DONE, so the peer may
     * write the next one while these are handled), then the frames go to the listener in order.
     * {@code byPump}: the pump thread calls, which (a worker's) may move off the client's CPU first.
     */
    private boolean pumpIn(boolean byPump) {
        int state = mailbox.lvState(in);
        if (state == Mailbox.SHUTDOWN) {
            throw unavailable("the peer shut the mailbox down");
        }
        if (state != Mailbox.TASK_READY) {
            return false;
        }
        int length = mailbox.length(in);
        if (length < 0 || length > mailbox.capacity()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "mailbox block length " + length
                    + " from " + peer + " is outside [0, " + mailbox.capacity() + "]");
        }
        lastReceiveNanos = System.nanoTime();
        if (peerSinceNanos == NO_PEER_YET) {
            peerSinceNanos = lastReceiveNanos;
        }
        int clientCpu = keepOffClient && byPump ? mailbox.clientCpu() : -1; // in the block's line: read with its state
        try {
            assemble(mailbox.data(in), length);
            publish(in, Mailbox.TASK_DONE); // the block is copied out; the peer may reuse the channel
            if (clientCpu >= 0) {
                moveOffClientsCpu(clientCpu); // before the frames are handled and answered
            }
            deliverCompleted();
        } finally {
            completed.clear(); // a frame that closed the transport drops the rest
        }
        return true;
    }

    /** Little-endian int layout of a length prefix that lies whole in a block. */
    private static final java.lang.foreign.ValueLayout.OfInt PREFIX =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * Copies {@code [0, length)} of {@code block} into frame bodies (a length prefix is checked
     * against the frame limit before its body is allocated; a body grows with the bytes that
     * arrive, as TCP's does), queueing each frame it completes in {@link #completed}.
     */
    private void assemble(MemorySegment block, int length) {
        long at = 0;
        while (at < length) {
            if (body == null) {
                int frameLength;
                if (lengthPrefix.position() == 0 && length - at >= Protocol.LENGTH_BYTES) {
                    frameLength = block.get(PREFIX, at);
                    at += Protocol.LENGTH_BYTES;
                } else {
                    while (lengthPrefix.hasRemaining() && at < length) {
                        lengthPrefix.put(block.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at++));
                    }
                    if (lengthPrefix.hasRemaining()) {
                        return;
                    }
                    frameLength = lengthPrefix.getInt(0);
                    lengthPrefix.clear();
                }
                startBody(frameLength);
            }
            int n = (int) Math.min(length - at, bodyLength - body.position());
            if (body.remaining() < n) { // grow with what arrived: a peer makes this side hold at most twice what it sent
                int capacity = (int) Math.min(bodyLength, Math.max(2L * body.capacity(), (long) body.position() + n));
                bodyBytesAllocated += capacity;
                body = ByteBuffer.allocate(capacity).put(body.flip());
            }
            MemorySegment.copy(block, java.lang.foreign.ValueLayout.JAVA_BYTE, at, body.array(), body.position(), n);
            body.position(body.position() + n);
            at += n;
            if (body.position() == bodyLength) {
                completed.add(body.flip());
                body = null;
            }
        }
    }

    /**
     * Checks an incoming frame's length against the frame limit and allocates the start of its
     * body ({@link #FIRST_BODY_CHUNK} at most): a hostile length closes the transport with
     * INVALID_ARGUMENT having allocated nothing.
     */
    private void startBody(int frameLength) {
        int limit = frameLimit;
        if ((frameLength < Protocol.HEADER_BYTES || frameLength > limit) && limit < maxFrameBytes && !completed.isEmpty()) {
            deliverCompleted(); // an AUTH earlier in this block may raise the limit, as it would on TCP
            limit = frameLimit;
        }
        if (frameLength < Protocol.HEADER_BYTES || frameLength > limit) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "frame length "
                    + Integer.toUnsignedString(frameLength) + " from " + peer + " is outside ["
                    + Protocol.HEADER_BYTES + ", " + limit + "]" + (limit < maxFrameBytes ? " before authentication" : ""));
        }
        bodyLength = frameLength;
        int capacity = Math.min(frameLength, FIRST_BODY_CHUNK);
        bodyBytesAllocated += capacity;
        body = ByteBuffer.allocate(capacity);
    }

    /** Hands the frames the block completed to the listener, in order, while the transport is open. */
    private void deliverCompleted() {
        for (int i = 0; i < completed.size() && !closed.get(); i++) {
            ByteBuffer frame = completed.get(i);
            completed.set(i, null);
            listener.onFrame(frame);
        }
        completed.clear();
    }

    private void finish(StatusException reason) {
        if (closed.compareAndSet(false, true)) {
            if (parent && pump.isAlive()) {
                try {
                    mailbox.soReady(false); // before anyone can hand this worker to the next client
                } catch (IllegalStateException unmapped) {
                    // the pump exited and unmapped meanwhile: nobody can pick the worker through us
                }
            }
            Listener l = listener;
            if (l != null) {
                l.onClosed(reason);
            }
        }
    }

    @Override
    public void close(StatusException reason) {
        finish(reason);
        doorbell.wakeup(Doorbell.PUMP);
        doorbell.wakeup(Doorbell.CALLER);
    }

    @Override
    public void closeAfterFlush(StatusException reason) {
        closeReason = reason;
        flushThenClose = true;
        doorbell.wakeup(Doorbell.PUMP);
    }

    /** The client proved the token: frames up to the full maximum are accepted from now on (the server's session calls it). */
    @Override
    public void authenticated() {
        frameLimit = maxFrameBytes;
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    /** Body bytes allocated for incoming frames since this transport started (tests: what a hostile length costs). */
    long bodyBytesAllocated() {
        return bodyBytesAllocated;
    }

    @Override
    public String diagnostics() {
        return "MailboxTransport to " + peer + (closed.get() ? " closed" : " open") + " frameLimit=" + frameLimit
                + " queuedBytes=" + queuedBytes.get() + " bodyBytesAllocated=" + bodyBytesAllocated
                + " sending=" + sending.get() + " receiving=" + receiving.get() + " flushThenClose=" + flushThenClose
                + (pumpCpus == 0 ? "" : " pumpCpus=0x" + Long.toHexString(pumpCpus) + (pumpPinned ? " (pinned)" : " (not pinned)"))
                + (parent ? "" : " movesOffClient=" + movesOffClient.get());
    }

    @Override
    public long queuedBytes() {
        return queuedBytes.get();
    }

    @Override
    public long lastReceiveNanos() {
        return lastReceiveNanos;
    }

    /** When the first block arrived: a worker waiting to be picked has no peer yet. */
    @Override
    public long peerSinceNanos() {
        return peerSinceNanos;
    }

    /** Waits (bounded) for the pump thread to exit and unmap the mailbox. */
    public boolean awaitTermination(long nanos) throws InterruptedException {
        pump.join(java.time.Duration.ofNanos(nanos));
        return !pump.isAlive();
    }

    private StatusException unavailable(String why) {
        return new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": " + why);
    }
}
