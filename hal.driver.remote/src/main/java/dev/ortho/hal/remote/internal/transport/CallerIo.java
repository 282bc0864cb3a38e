package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.function.BooleanSupplier;

/**
 * Blocking I/O on a caller's own thread for one plain-TCP {@link TcpConnection}: writing a
 * frame with a large payload ({@link #write}, while holding the write role) and receiving while
 * waiting for the peer ({@link #receive}, while holding the read role). Each blocks in a selector
 * of its own on the connection's channel, so the kernel wakes the caller itself; neither hands
 * work to the I/O loop per socket-buffer-full or per reply. See {@link TcpConnection}'s class
 * comment for why.
 *
 * <p><b>Ownership and threads.</b> The connection owns the channel and decides who may call
 * (plain TCP, registered, not on the loop thread); this object owns the two selectors, each
 * opened at first use and used only by the holder of its role: the write selector by the holder
 * of the write role, the read selector by the holder of the read role. {@link #closeSelectors}
 * (from {@link TcpConnection#close}, any thread) closes both, which wakes a blocked caller; a
 * selector opened concurrently with close is closed by its opener. {@link #wakeReceiver} may be
 * called from any thread.
 */
final class CallerIo {
    /** Longest one block of a caller, so conditions nobody wakes it for are seen. */
    static final long CALLER_SELECT_MILLIS = 50;

    private final TcpConnection connection;
    private final SocketChannel channel;
    private final IoLoop loop;
    private final OutboundQueue out;
    private final FrameReceiver receiver;
    private final ReadRole readRole;
    /** The selector a receiving caller blocks in (opened at first use; guarded by the read role). */
    private volatile Selector callerSelector;
    /** The selector a caller writing a large frame blocks in until the socket takes bytes (guarded by the write role). */
    private volatile Selector writeSelector;
    /** Whether a receiving caller polls before it blocks (guarded by the read role). */
    private final SpinBudget spin = new SpinBudget();

    CallerIo(TcpConnection connection, SocketChannel channel, IoLoop loop, OutboundQueue out, FrameReceiver receiver,
            ReadRole readRole) {
        this.connection = connection;
        this.channel = channel;
        this.loop = loop;
        this.out = out;
        this.receiver = receiver;
        this.readRole = readRole;
    }

    /**
     * {@link TcpConnection#sendWithPayload} on the caller's thread: takes the write role (frames
     * queued before go first), writes {@code head} and {@code payload} in gathering writes (a heap
     * payload in {@value TcpConnection#IO_SLICE_BYTES}-byte slices) and blocks while the socket is
     * full; then hands the role on (frames queued meanwhile are written or handed to the loop).
     */
    void write(ByteBuffer head, ByteBuffer payload) {
        boolean interrupted = false;
        if (!out.acquire()) {
            return; // closed: frames sent after close are dropped
        }
        try {
            while (!out.drain()) { // what this and other threads queued before goes first
                interrupted |= awaitWritable();
            }
            while (head.hasRemaining() || payload.hasRemaining()) {
                if (!out.writePiece(head, payload)) {
                    interrupted |= awaitWritable(); // the socket is full
                }
            }
        } catch (IOException e) {
            connection.close(connection.unavailable("write failed: " + e.getMessage()));
        } catch (ClosedSelectorException e) {
            // closed meanwhile; close() has told the listener
        } catch (RuntimeException | Error e) {
            // e.g. the payload's memory was freed: part of the frame may be written, so nothing may follow it
            connection.close(connection.unavailable("write failed: " + e));
            if (e instanceof Error error) {
                throw error;
            }
        } finally {
            try {
                connection.finishWriting(); // frames queued meanwhile: written now, or handed to the loop
            } catch (IOException e) {
                out.release();
                connection.close(connection.unavailable("write failed: " + e.getMessage()));
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Blocks the holder of the write role until the socket may take bytes again (at most
     * {@value #CALLER_SELECT_MILLIS} ms; close() wakes it); whether the thread was interrupted
     * (the flag is cleared, so the select blocks, and the caller restores it).
     */
    private boolean awaitWritable() throws IOException {
        Selector selector = writeSelector;
        if (selector == null) {
            selector = ownSelector(SelectionKey.OP_WRITE, opened -> writeSelector = opened);
        }
        boolean interrupted = Thread.interrupted();
        selector.select(CALLER_SELECT_MILLIS);
        selector.selectedKeys().clear();
        if (connection.closed()) {
            throw new ClosedSelectorException();
        }
        return interrupted | Thread.interrupted();
    }

    /**
     * {@link TcpConnection#receiveWhile} once the caller took the read role: parses what arrives
     * while {@code waiting} holds, blocking in its own selector between reads (after polling it
     * for up to {@link SpinBudget#NANOS} while that pays: {@link SpinBudget}), then hands the role
     * back (and has the loop watch reads again if it stopped: at once if a frame may come that
     * nobody receives, else after {@link TcpConnection#rearmDelayNanos}).
     */
    void receive(BooleanSupplier waiting, long deadlineNanos) {
        try {
            Selector selector = callerSelector();
            boolean readable = receiver.hasUnparsed(); // bytes a reader left; else the selector says when to read
            while (!connection.closed() && waiting.getAsBoolean()) {
                if (readable) {
                    receiver.read();
                    if (connection.closed() || !waiting.getAsBoolean()) {
                        break;
                    }
                }
                if (Transport.passed(deadlineNanos) || Thread.currentThread().isInterrupted()) {
                    if (!readable) {
                        receiver.read(); // an immediate deadline still looks once
                    }
                    break;
                }
                readable = true;
                long millis = CALLER_SELECT_MILLIS;
                if (deadlineNanos != Long.MAX_VALUE) {
                    millis = Math.max(1, Math.min(millis, (deadlineNanos - System.nanoTime() + 999_999) / 1_000_000));
                }
                if (!spun(selector, deadlineNanos)) {
                    selector.select(millis);
                }
                selector.selectedKeys().clear();
            }
        } catch (IOException e) {
            connection.close(connection.unavailable("read failed: " + e.getMessage()));
        } catch (ClosedSelectorException e) {
            // closed meanwhile; close() has told the listener
        } catch (Error e) {
            // as on the loop thread: an Error while handling frames is not survived half-way; the
            // connection fails (its waiters get UNAVAILABLE naming it) instead of the caller's thread
            connection.close(connection.unavailable("receiving on a waiting caller's thread stopped by " + e));
        } finally {
            // if the loop stopped watching reads while this caller held the role, it watches again
            // at once when a frame may come that nobody waits for on a socket (a reply or report
            // owed to a parked caller or a callback, the rest of a frame); else about a
            // millisecond later, so callers waiting back to back do not wake it per round trip
            boolean urgent = receiver.midFrame() || connection.expectsFrames();
            switch (readRole.releaseByCaller(receiver.hasUnparsed(), urgent)) {
                case ReadRole.REARM_NOW -> loop.execute(connection::watchReadsAgain); // bytes already received: parse them
                case ReadRole.REARM_LATER -> loop.executeLater(connection::watchReadsAgain, connection.rearmDelayNanos);
                default -> { } // the loop still watches, or a rearm is on its way
            }
        }
    }

    /**
     * Polls the caller's selector for up to a spin budget (not past the deadline) if spinning
     * pays; whether the channel became readable meanwhile.
     */
    private boolean spun(Selector selector, long deadlineNanos) throws IOException {
        if (!spin.worthSpinning()) {
            return false;
        }
        long start = System.nanoTime();
        long budget = deadlineNanos == Long.MAX_VALUE ? SpinBudget.NANOS
                : Math.min(SpinBudget.NANOS, deadlineNanos - start);
        boolean found = false;
        while (!(found = selector.selectNow() > 0) && System.nanoTime() - start < budget) {
            Thread.yield(); // (a peer on this CPU runs; alone here, this vCPU stays awake)
        }
        spin.ended(found);
        return found;
    }

    /** Wakes a caller blocked in {@link #receive} (its condition may have changed without a frame); any thread. */
    void wakeReceiver() {
        Selector selector = callerSelector;
        if (selector != null && readRole.held()) {
            selector.wakeup();
        }
    }

    /** The receiving caller's selector, opened and registered at first use (read role held). */
    private Selector callerSelector() throws IOException {
        Selector selector = callerSelector;
        if (selector == null) {
            selector = ownSelector(SelectionKey.OP_READ, opened -> callerSelector = opened);
        }
        return selector;
    }

    /**
     * A selector of its own on the channel for {@code ops}, for a caller to block in, handed to
     * {@code publish} (the field {@link #closeSelectors} closes it through); fails if the
     * connection closed meanwhile.
     */
    private Selector ownSelector(int ops, java.util.function.Consumer<Selector> publish) throws IOException {
        Selector selector = Selector.open();
        channel.register(selector, ops);
        publish.accept(selector);
        if (connection.closed()) { // close() may have missed it
            selector.close();
            throw new ClosedSelectorException();
        }
        return selector;
    }

    /** The connection closed: closes both selectors, which wakes a blocked caller (it returns). */
    void closeSelectors() {
        Selector selector = callerSelector;
        if (selector != null) {
            try {
                selector.close(); // wakes a receiving caller; its select then fails, and it returns
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        Selector writer = writeSelector;
        if (writer != null) {
            try {
                writer.close(); // wakes a caller writing a large frame; it returns
            } catch (IOException ignored) {
                // closing anyway
            }
        }
    }
}
