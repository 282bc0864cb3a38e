package dev.ortho.hal.remote.internal.transport;

import dev.ortho.base.StatusException;
import java.nio.ByteBuffer;

/**
 * A bidirectional, ordered, frame-oriented link between a remote HAL client and a device server
 * (TCP, or a shared-memory mailbox). Frames are whole protocol frames including the length
 * prefix ({@link dev.ortho.hal.remote.internal.protocol.Protocol}).
 *
 * <p>Thread-safe: any thread may {@link #send}; frames from one thread are delivered in order.
 * Incoming frames and the close notification are delivered to the {@link Listener} on the
 * transport's own thread, one at a time.
 */
public interface Transport {

    /** Receives what arrives on a transport. */
    interface Listener {
        /**
         * One received frame: the body after the length prefix (header and payload), owned by
         * the listener. Throwing a {@link StatusException} closes the transport with it.
         */
        void onFrame(ByteBuffer body);

        /** The transport closed (called once); {@code reason} says why. */
        void onClosed(StatusException reason);

        /**
         * A frame of {@code bodyLength} bytes (after the length prefix) of at least
         * {@link #SINK_MIN_BODY_BYTES} is arriving, of which {@code prefix} holds the first
         * {@link #SINK_PREFIX_BYTES} (header included; read it without keeping it): a sink that
         * receives the rest of the body straight into memory the bytes are bound for, or null to
         * receive the frame whole and have it delivered to {@link #onFrame} as usual. A sink's
         * frame is not delivered to {@code onFrame}: the sink {@linkplain BodySink#complete completes}
         * instead. Answer null for anything {@code onFrame} would reject, so failures are reported
         * as usual. Transports may never ask (TLS, shared memory). By default null.
         */
        default BodySink bodySink(ByteBuffer prefix, int bodyLength) {
            return null;
        }

        /**
         * Whether the listener expects frames now that nobody is waiting to receive: replies or
         * reports owed to callers that are parked, or to callbacks. A transport that lends its
         * receiving to waiting callers ({@link #receiveWhile}) and may watch the socket again
         * only some time after the last of them returns does it at once when this answers true.
         * Must be cheap and must not block. By default true.
         */
        default boolean expectsFrames() {
            return true;
        }
    }

    /** Frames shorter than this are received whole ({@link Listener#bodySink} is not asked). */
    int SINK_MIN_BODY_BYTES = 64 << 10;
    /** The bytes of a large frame's body {@link Listener#bodySink} is shown. */
    int SINK_PREFIX_BYTES = 32;

    /**
     * Queues {@code frame} (positioned for reading; not modified by the caller afterwards) for
     * sending. Never blocks; frames sent after close are dropped.
     */
    void send(ByteBuffer frame);

    /**
     * Queues {@code frame} like {@link #send} without writing it now: it goes out with the next
     * {@link #send} or {@link #flush} (in order, in one gathering write where the transport can),
     * or soon on the transport's own thread if neither comes. For bursts of small frames, so a
     * burst costs one write instead of one per frame. By default the same as {@link #send}.
     */
    default void sendDeferred(ByteBuffer frame) {
        send(frame);
    }

    /**
     * {@link #send}s {@code frames} in order, in one gathering write where the transport can;
     * the list is not kept.
     */
    default void sendAll(java.util.List<ByteBuffer> frames) {
        for (ByteBuffer frame : frames) {
            send(frame);
        }
    }

    /**
     * Sends one frame made of {@code head} (its length prefix counting {@code payload} too, and
     * the fields before the payload) followed by {@code payload}, in order with the calling
     * thread's other frames, and returns once {@code payload} is no longer needed: the caller may
     * reuse its memory at once. A transport that can write from the caller's thread does so
     * (blocking until the socket takes the bytes, so a bulk transfer costs no copy and no hand-off);
     * by default the two are copied into one frame and {@link #send sent}. Never call it from
     * the transport's own thread, a listener or a timepoint callback.
     */
    default void sendWithPayload(ByteBuffer head, ByteBuffer payload) {
        ByteBuffer frame = ByteBuffer.allocateDirect(head.remaining() + payload.remaining());
        frame.put(head).put(payload).flip();
        send(frame);
    }

    /**
     * Queues one frame made of {@code head} (as in {@link #sendWithPayload}) followed by
     * {@code payload} like {@link #send} (never blocks), and runs {@code returned} once
     * {@code payload}'s memory is no longer needed: written, or the transport closed (possibly at
     * once, on the calling thread). For a reply whose data is a device buffer's mapped memory: the
     * mapping stays open until the socket took the bytes, and nothing is copied. By default the
     * two are copied into one frame, which is sent, and {@code returned} runs at once.
     */
    default void sendLent(ByteBuffer head, ByteBuffer payload, Runnable returned) {
        ByteBuffer frame;
        try {
            frame = ByteBuffer.allocateDirect(head.remaining() + payload.remaining());
            frame.put(head).put(payload).flip();
        } finally {
            returned.run();
        }
        send(frame);
    }

    /**
     * Runs {@code task} on the transport's own thread after about {@code delayNanos}: a bound on
     * how long work deferred for a burst may wait. By default at once, on the caller's thread.
     */
    default void executeLater(Runnable task, long delayNanos) {
        task.run();
    }

    /**
     * Lets the calling thread receive for this transport while {@code waiting} answers true and
     * {@link System#nanoTime()} is before {@code deadlineNanos}: frames go to the listener on the
     * caller's thread (still one at a time), so the frame a caller waits for reaches it without a
     * hand-off from the transport's own thread. Answers false at once when another thread is
     * receiving now or the transport cannot lend its receiving (the caller then waits as before:
     * whoever receives delivers the frames); true once it has received for a while, whatever
     * {@code waiting} answers now (it may also return early, e.g. when the wait grows long, and
     * hand receiving back to the transport's thread). A frame the listener rejects closes the
     * transport as on its own thread. Must not be called from a listener or a timepoint callback.
     * By default: false.
     */
    default boolean receiveWhile(java.util.function.BooleanSupplier waiting, long deadlineNanos) {
        return false;
    }

    /**
     * A caller is about to wait without receiving itself (several replies are in flight, and the
     * transport's thread should receive the next while the caller handles this one): the
     * transport's own thread receives from now on, if a receiving caller left it idle. By default
     * nothing.
     */
    default void receiveOnOwnThread() {
    }

    /**
     * Wakes a caller blocked in {@link #receiveWhile}: something other than a frame may have
     * ended its wait (a host signal, a failure). By default nothing (a transport whose receiving
     * caller polls needs no wake-up).
     */
    default void wakeReceiver() {
    }

    /**
     * Whether {@link System#nanoTime()} reached {@code deadlineNanos}, which may also be one of
     * {@link dev.ortho.base.Deadline}'s sentinels ({@code Long.MIN_VALUE}: already, {@code Long.MAX_VALUE}: never).
     */
    static boolean passed(long deadlineNanos) {
        return deadlineNanos == Long.MIN_VALUE
                || (deadlineNanos != Long.MAX_VALUE && System.nanoTime() - deadlineNanos >= 0);
    }

    /** Writes the frames {@link #sendDeferred} queued now, on the caller's thread where possible. */
    default void flush() {
    }

    /** Closes at once (queued frames may be lost) and notifies the listener with {@code reason}. Idempotent. */
    void close(StatusException reason);

    /** Closes once every frame queued so far has been written, notifying with {@code reason}. */
    void closeAfterFlush(StatusException reason);

    /**
     * The peer authenticated: a transport that limits frames more tightly during the handshake
     * accepts frames up to its full maximum from now on. Called by a server on its own transport thread.
     */
    default void authenticated() {
    }

    /** Whether the transport is still open. */
    boolean isOpen();

    /** Bytes queued for sending and not yet handed to the peer (for sender backpressure). */
    long queuedBytes();

    /** {@link System#nanoTime()} when the last frame arrived (or when the transport opened). */
    long lastReceiveNanos();

    /** {@link #peerSinceNanos()} of a transport no peer has reached yet. */
    long NO_PEER_YET = Long.MIN_VALUE;

    /**
     * {@link System#nanoTime()} from which a server times its peer's handshake: when a TCP
     * connection was accepted; for a worker's mailbox, when the first block arrived, since a
     * prepared worker has no client until one picks it ({@link #NO_PEER_YET} until then, so an
     * idle worker never times out waiting to be picked).
     */
    long peerSinceNanos();

    /**
     * A one-line description of this transport's state for a test's hang report (queued bytes,
     * who reads, whether it closed). By default its class name.
     */
    default String diagnostics() {
        return getClass().getSimpleName();
    }
}
