package dev.ortho.hal.remote.internal.shm;

import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The client's side of a worker's mailbox played by hand, for what a real client never does:
 * blocks of any bytes and length, states the protocol never writes, blocks it never consumes.
 * Each publish rings the worker's pump and caller (spurious rings are harmless). Waits are hang
 * guards only. Consuming a block follows the doorbell handshake ({@link Sleepers}): the worker's
 * pump is rung only if it announced that it waits for it.
 */
final class RawShmClient {
    private final Mailbox mailbox;
    private final Doorbell bell;
    private final Sleepers sleepers;

    /** @param bell the client's end of the worker's doorbell */
    RawShmClient(Mailbox mailbox, Doorbell bell) {
        this.mailbox = mailbox;
        this.bell = bell;
        this.sleepers = new Sleepers(mailbox, true);
    }

    /** Whether the worker shut its side of the session down. */
    boolean shutDown() {
        return mailbox.lvState(Mailbox.TO_PARENT) == Mailbox.SHUTDOWN;
    }

    /** Publishes {@code state} on the client's channel and rings the worker. */
    void publish(int state) {
        mailbox.svState(Mailbox.TO_CHILD, state);
        bell.ring(Doorbell.PUMP);
        bell.ring(Doorbell.CALLER);
    }

    /**
     * Writes {@code length} in the block's length word and {@code bytes} into the block, and
     * publishes it, once the worker consumed the last one; false (nothing written) if the worker
     * shut down first.
     */
    boolean block(byte[] bytes, int length) {
        HangGuard.await(() -> shutDown() || mailbox.lvState(Mailbox.TO_CHILD) != Mailbox.TASK_READY,
                "the worker consumed the last block");
        if (shutDown()) {
            return false;
        }
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, mailbox.data(Mailbox.TO_CHILD), 0, bytes.length);
        mailbox.length(Mailbox.TO_CHILD, length);
        publish(Mailbox.TASK_READY);
        return true;
    }

    /** Writes {@code bytes} as blocks of at most the mailbox's capacity; false if the worker shut down first. */
    boolean write(byte[] bytes) {
        int capacity = (int) mailbox.capacity();
        for (int at = 0; at < bytes.length; at += capacity) {
            byte[] piece = java.util.Arrays.copyOfRange(bytes, at, Math.min(bytes.length, at + capacity));
            if (!block(piece, piece.length)) {
                return false;
            }
        }
        return true;
    }

    /** {@link #write}s {@code frame} (length prefix included). */
    boolean send(FrameWriter frame) {
        ByteBuffer bytes = frame.finish();
        byte[] raw = new byte[bytes.remaining()];
        bytes.get(raw);
        return write(raw);
    }

    /** Waits until the worker consumed the last block (true) or shut down (false). */
    boolean awaitConsumed() {
        HangGuard.await(() -> shutDown() || mailbox.lvState(Mailbox.TO_CHILD) != Mailbox.TASK_READY,
                "the worker consumed the block or shut down");
        return !shutDown();
    }

    /**
     * The next block the worker sent, which must hold exactly one frame (handshake replies),
     * consumed (TASK_DONE) unless {@code consume} is false; its body as a reader.
     */
    FrameReader readFrame(boolean consume) {
        HangGuard.await(() -> mailbox.lvState(Mailbox.TO_PARENT) == Mailbox.TASK_READY || shutDown(),
                "the worker sent a block");
        if (mailbox.lvState(Mailbox.TO_PARENT) != Mailbox.TASK_READY) {
            throw new AssertionError("the worker shut the session down instead of sending a block");
        }
        int length = mailbox.length(Mailbox.TO_PARENT);
        byte[] bytes = mailbox.data(Mailbox.TO_PARENT).asSlice(0, length).toArray(ValueLayout.JAVA_BYTE);
        if (consume) { // rings the worker's pump only if it announced it waits for this (as a real client)
            if ((sleepers.publish(Mailbox.TO_PARENT, Mailbox.TASK_DONE) & Sleepers.RING_PUMP) != 0) {
                bell.ring(Doorbell.PUMP);
            }
        }
        ByteBuffer frame = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int frameLength = frame.getInt();
        if (frameLength != bytes.length - Protocol.LENGTH_BYTES) {
            throw new AssertionError("a block of " + bytes.length + " bytes holds a frame of " + frameLength);
        }
        return new FrameReader(frame.slice().order(ByteOrder.LITTLE_ENDIAN));
    }

    /** HELLO and AUTH proving {@code token}; the AUTH reply's status code. */
    int authenticate(byte[] token) {
        send(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION));
        FrameReader challenge = readFrame(true);
        int status = challenge.i32("status");
        if (status != 0) {
            return status;
        }
        ByteBuffer nonce = challenge.bytes("nonce");
        byte[] n = new byte[nonce.remaining()];
        nonce.get(n);
        byte[] proof = Challenge.prove(token, n);
        send(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length));
        return readFrame(true).i32("status");
    }
}
