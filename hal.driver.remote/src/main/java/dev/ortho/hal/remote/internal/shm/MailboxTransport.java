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
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A {@link Transport} over a {@link Mailbox}: one pump thread ({@code ortho-remote-shm-N},
 * daemon) per side moves queued frames into the outgoing channel and incoming blocks into frames.
 *
 * <p><b>Waiting.</b> When there is nothing to do the pump spins briefly ({@link #SPINS}
 * {@link Thread#onSpinWait()} rounds, where a reply usually arrives), then parks for
 * exponentially growing slices from 1 µs up to {@link #MAX_PARK_NANOS}. Every wait is bounded,
 * none is a fixed sleep.
 *
 * <p><b>No hand-offs on a round trip.</b> A sender writes its frames into the outgoing channel
 * itself when the channel is free and nobody else is writing (the pump writes what is left, once
 * the peer consumed the last block); a caller waiting for the peer ({@link #receiveWhile})
 * takes the receiving role from the pump and polls the incoming channel itself, spinning
 * {@link #CALLER_SPINS} rounds, then parking in growing slices, while the pump parks. A round
 * trip is so caller → peer's pump → caller (two threads, each seeing the other's block while
 * spinning), not caller → pump → peer → pump → caller, whose two extra wake-ups made the round
 * trip bimodal on a busy machine (a parked pump is only woken by its own park slice, ≥ the
 * kernel's ~50 µs timer slack). Two roles ({@code sending}, {@code receiving}), each an
 * {@link AtomicBoolean} taken with a CAS, keep one writer per channel and one assembler of
 * incoming frames.
 *
 * <p><b>Liveness.</b> {@code peerAlive} is checked between parks (the parent passes the child
 * process's {@code isAlive}, the child its parent's), and process exit callbacks close the
 * transport at once, so a dead peer is noticed within a park slice. A peer that writes
 * {@link Mailbox#SHUTDOWN} closes it too. The mailbox is closed (unmapped) by the pump thread
 * when it exits.
 */
public final class MailboxTransport implements Transport {
    static final int SPINS = 2_000;
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Rounds a receiving caller spins before it parks in slices (about as long as the pump spins). */
    static final int CALLER_SPINS = 2_000;
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final Mailbox mailbox;
    private final int out;
    private final int in;
    private final boolean parent;
    private final BooleanSupplier peerAlive;
    private final String peer;
    private final int maxFrameBytes;
    private final Queue<ByteBuffer> outbound = new ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicLong queuedBytes = new java.util.concurrent.atomic.AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Held by whoever writes the outgoing channel (a sender or the pump). */
    private final AtomicBoolean sending = new AtomicBoolean();
    /** Held by whoever takes incoming blocks and assembles frames (the pump or a waiting caller). */
    private final AtomicBoolean receiving = new AtomicBoolean();
    /** A caller holds {@link #receiving}: the pump parks instead of spinning. */
    private volatile boolean callerReceiving;
    private final ByteBuffer lengthPrefix = ByteBuffer.allocate(Protocol.LENGTH_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final Thread pump;
    private final Runnable tick;
    private volatile Listener listener;
    private volatile long lastReceiveNanos = System.nanoTime();
    private volatile long peerSinceNanos = NO_PEER_YET;
    private volatile StatusException closeReason;
    private volatile boolean flushThenClose;
    private ByteBuffer body; // holder of `receiving` only

    /**
     * @param parent true on the client side (writes {@link Mailbox#TO_CHILD})
     * @param peerAlive whether the other side still exists
     * @param tick run by the pump about every 10 ms (liveness pings); must not block
     */
    public MailboxTransport(Mailbox mailbox, boolean parent, BooleanSupplier peerAlive, String peer, int maxFrameBytes,
            Runnable tick) {
        this.mailbox = mailbox;
        mailbox.acquire(); // released when the pump exits
        this.parent = parent;
        this.out = parent ? Mailbox.TO_CHILD : Mailbox.TO_PARENT;
        this.in = parent ? Mailbox.TO_PARENT : Mailbox.TO_CHILD;
        this.peerAlive = peerAlive;
        this.peer = peer;
        this.maxFrameBytes = maxFrameBytes;
        this.tick = tick;
        this.pump = Thread.ofPlatform().daemon().name("ortho-remote-shm-" + THREADS.incrementAndGet())
                .unstarted(this::run);
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
        queuedBytes.addAndGet(frame.remaining());
        outbound.add(frame);
        trySend(); // straight into the channel when it is free: no hand-off to the pump
        if (!outbound.isEmpty()) {
            LockSupport.unpark(pump);
        }
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
            return pumpIn();
        } finally {
            receiving.set(false);
        }
    }

    @Override
    public boolean receiveWhile(BooleanSupplier waiting, long deadlineNanos) {
        if (closed.get() || !receiving.compareAndSet(false, true)) {
            return false;
        }
        callerReceiving = true;
        try {
            int idle = 0;
            while (waiting.getAsBoolean() && !closed.get()) {
                boolean progress = pumpIn();
                progress |= trySend();
                if (progress) {
                    idle = 0;
                    continue;
                }
                if (Transport.passed(deadlineNanos) || Thread.currentThread().isInterrupted()) {
                    break;
                }
                if (++idle < CALLER_SPINS) {
                    Thread.onSpinWait();
                } else {
                    LockSupport.parkNanos(this, Math.min(MAX_PARK_NANOS, 1000L << Math.min(idle - CALLER_SPINS, 20)));
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
            callerReceiving = false;
            receiving.set(false);
        }
        return true;
    }

    private void run() {
        int idle = 0;
        long nextTick = System.nanoTime();
        try {
            while (!closed.get()) {
                boolean progress = tryReceive() | trySend();
                if (flushThenClose && outbound.isEmpty() && !sending.get() && mailbox.lvState(out) != Mailbox.TASK_READY) {
                    finish(closeReason);
                    break;
                }
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    nextTick = now + TimeUnit.MILLISECONDS.toNanos(10);
                    tick.run();
                }
                if (progress) {
                    idle = 0;
                } else if (callerReceiving) {
                    idle = Math.max(idle + 1, SPINS); // a waiting caller polls: do not spin beside it
                    if (!peerAlive.getAsBoolean()) {
                        finish(unavailable("the peer process is gone"));
                        break;
                    }
                    LockSupport.parkNanos(this, Math.min(MAX_PARK_NANOS, 1000L << Math.min(idle - SPINS, 20)));
                } else if (++idle < SPINS) {
                    Thread.onSpinWait();
                } else {
                    if (!peerAlive.getAsBoolean()) {
                        finish(unavailable("the peer process is gone"));
                        break;
                    }
                    LockSupport.parkNanos(this, Math.min(MAX_PARK_NANOS, 1000L << Math.min(idle - SPINS, 20)));
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
            mailbox.soState(out, Mailbox.SHUTDOWN); // tell the peer this session is over
            mailbox.close();
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
        mailbox.soState(out, Mailbox.TASK_READY); // release: publishes the block
        return true;
    }

    /** Takes a ready incoming block and delivers the frames it completes. */
    private boolean pumpIn() {
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
        byte[] block = mailbox.data(in).asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        mailbox.soState(in, Mailbox.TASK_DONE); // the block is copied out; the peer may reuse the channel
        lastReceiveNanos = System.nanoTime();
        if (peerSinceNanos == NO_PEER_YET) {
            peerSinceNanos = lastReceiveNanos;
        }
        assemble(ByteBuffer.wrap(block));
        return true;
    }

    private void assemble(ByteBuffer chunk) {
        while (chunk.hasRemaining() && !closed.get()) {
            if (body == null) {
                while (lengthPrefix.hasRemaining() && chunk.hasRemaining()) {
                    lengthPrefix.put(chunk.get());
                }
                if (lengthPrefix.hasRemaining()) {
                    return;
                }
                int length = lengthPrefix.getInt(0);
                lengthPrefix.clear();
                if (length < Protocol.HEADER_BYTES || length > maxFrameBytes) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT, "frame length "
                            + Integer.toUnsignedString(length) + " from " + peer + " is outside ["
                            + Protocol.HEADER_BYTES + ", " + maxFrameBytes + "]");
                }
                body = ByteBuffer.allocate(length);
            }
            int n = Math.min(chunk.remaining(), body.remaining());
            body.put(body.position(), chunk, chunk.position(), n);
            body.position(body.position() + n);
            chunk.position(chunk.position() + n);
            if (!body.hasRemaining()) {
                ByteBuffer frame = body.flip();
                body = null;
                listener.onFrame(frame);
            }
        }
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
        LockSupport.unpark(pump);
    }

    @Override
    public void closeAfterFlush(StatusException reason) {
        closeReason = reason;
        flushThenClose = true;
        LockSupport.unpark(pump);
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
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
