package dev.ortho.hal.remote.internal.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.server.FuzzFrames;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Hostile clients of a shared-memory worker ({@code HostileFramesTest} over TCP): valid frames of
 * every opcode, truncated, mutated and random ones, before and after authentication, and blocks
 * and states no client writes, against one worker while another worker of the same executor
 * serves a well-behaved client throughout. A worker may answer with a status or close the
 * hostile session; it must never fail inside (an INTERNAL or UNKNOWN status, a session closed
 * with INTERNAL or UNKNOWN), and both workers serve the next client afterwards. Time limits are
 * hang guards only.
 */
class ShmHostileFramesTest {
    private static final byte[] TOKEN = ShmWorkerLimitsTest.TOKEN;

    /** A client transport on a worker's mailbox; what the worker sends is checked and kept. */
    private static final class Client implements Transport.Listener, AutoCloseable {
        final MailboxTransport transport;
        final BlockingQueue<FrameReader> received = new LinkedBlockingQueue<>();
        final List<String> faults;

        Client(ShmWorkerLimitsTest.Worker worker, List<String> faults) {
            this.faults = faults;
            transport = new MailboxTransport(worker.mailbox, worker.bells[0], true, () -> true, "test client",
                    Protocol.DEFAULT_MAX_FRAME_BYTES, () -> { });
            transport.start(this);
        }

        @Override
        public void onFrame(ByteBuffer body) {
            ByteBuffer frame = ByteBuffer.allocate(Protocol.LENGTH_BYTES + body.remaining()).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(body.remaining()).put(body.duplicate()).flip();
            String fault = FuzzFrames.serverFault(frame);
            if (fault != null) {
                faults.add(fault);
            }
            received.add(new FrameReader(body.order(ByteOrder.LITTLE_ENDIAN)));
        }

        @Override
        public void onClosed(StatusException reason) {
        }

        void send(byte[] body) {
            transport.send(ByteBuffer.allocate(Protocol.LENGTH_BYTES + body.length).order(ByteOrder.LITTLE_ENDIAN)
                    .putInt(body.length).put(body).flip());
        }

        /** The next frame the worker sent with request id {@code id}, skipping others (notifications, earlier replies). */
        FrameReader reply(long id) {
            long guard = System.nanoTime() + HangGuard.GUARD_NANOS;
            while (true) {
                FrameReader frame;
                try {
                    frame = received.poll(Math.max(1, guard - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                if (frame == null) {
                    HangGuard.expired("reply " + id, transport::diagnostics);
                }
                if (frame.requestId() == id) {
                    return frame;
                }
            }
        }

        void authenticate() {
            send(FuzzFrames.body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION)));
            FrameReader challenge = reply(1);
            assertEquals(0, challenge.i32("status"));
            ByteBuffer nonce = challenge.bytes("nonce");
            byte[] n = new byte[nonce.remaining()];
            nonce.get(n);
            byte[] proof = Challenge.prove(TOKEN, n);
            send(FuzzFrames.body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
            assertEquals(0, reply(2).i32("status"));
        }

        /** A PING answered by its PONG. */
        void assertServes(long id) {
            send(FuzzFrames.body(FrameWriter.frame(Protocol.PING, id)));
            assertEquals(Protocol.PONG, reply(id).opcode());
        }

        @Override
        public void close() {
            transport.close(new StatusException(StatusCode.CANCELLED, "test client done"));
        }
    }

    /**
     * Waits until the worker took every byte {@code client} queued (or the session closed), so
     * each hostile frame reaches the worker before the next one or the end of the session.
     */
    private static void delivered(ShmWorkerLimitsTest.Worker worker, Client client) {
        HangGuard.await(() -> !client.transport.isOpen() || client.transport.queuedBytes() == 0
                && worker.mailbox.lvState(Mailbox.TO_CHILD) != Mailbox.TASK_READY, "the worker took the frames",
                client.transport::diagnostics);
    }

    /**
     * Ends the worker's current session from the client's side (the client's pump writes
     * SHUTDOWN and marks the worker not ready as it exits; a raw client writes SHUTDOWN) and
     * waits until the worker serves again.
     */
    private static void nextSession(ShmWorkerLimitsTest.Worker worker, Client client) {
        if (client != null) {
            client.close();
            try {
                if (!client.transport.awaitTermination(HangGuard.GUARD_NANOS)) {
                    HangGuard.expired("the client's pump exited", client.transport::diagnostics);
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        } else {
            worker.raw().publish(Mailbox.SHUTDOWN);
        }
        worker.awaitReady();
    }

    private static List<String> insideFailures(List<StatusException> reasons) {
        List<String> inside = new ArrayList<>();
        for (StatusException reason : reasons) {
            if (reason != null && (reason.code() == StatusCode.INTERNAL || reason.code() == StatusCode.UNKNOWN)) {
                inside.add(reason.toString());
            }
        }
        return inside;
    }

    @Test
    void hostileClientsOnlyEverCloseTheirOwnSessionOrAnswerAStatus() {
        List<String> faults = new CopyOnWriteArrayList<>();
        ServerOptions options = ServerOptions.defaults(TOKEN).withQuotas(4 << 20, 256, 16);
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> Thread.ofPlatform().daemon()
                .name("shm-hostile-exec").unstarted(r));
        try (ShmWorkerLimitsTest.Worker hostile = new ShmWorkerLimitsTest.Worker(options, executor);
                ShmWorkerLimitsTest.Worker served = new ShmWorkerLimitsTest.Worker(options, executor)) {
            Client good = new Client(served, faults);
            good.authenticate();
            long pings = 1000;
            Random random = new Random(0x5E3A);
            // before authentication: mutated handshakes and garbage
            byte[] hello = FuzzFrames.body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC)
                    .putI32(Protocol.VERSION));
            byte[] auth = FuzzFrames.body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(new byte[32], 0, 32));
            for (int i = 0; i < 40; i++) {
                Client peer = new Client(hostile, faults);
                peer.send(random.nextBoolean() ? FuzzFrames.mutate(hello, random) : hello);
                byte[] second = new byte[random.nextInt(600)];
                random.nextBytes(second);
                peer.send(random.nextBoolean() ? FuzzFrames.mutate(auth, random) : second);
                delivered(hostile, peer);
                nextSession(hostile, peer);
            }
            // blocks and states no client writes
            for (int i = 0; i < 20; i++) {
                RawShmClient raw = hostile.raw();
                byte[] bytes = new byte[1 + random.nextInt(64)];
                random.nextBytes(bytes);
                switch (i % 4) {
                    case 0 -> raw.block(bytes, random.nextBoolean() ? -1 - random.nextInt(1000)
                            : ShmWorkerLimitsTest.CAPACITY + 1 + random.nextInt(1000)); // lengths outside the block
                    case 1 -> raw.publish(4 + random.nextInt(1000)); // a state the protocol never writes
                    case 2 -> raw.block(bytes, bytes.length); // garbage where a length prefix belongs
                    default -> {
                        raw.publish(Mailbox.TASK_DONE); // "consumed" a block never sent
                        raw.block(bytes, random.nextInt(bytes.length + 1));
                    }
                }
                nextSession(hostile, null);
            }
            good.assertServes(pings++);
            // authenticated: every opcode, whole, cut short, mutated and random
            List<byte[]> samples = FuzzFrames.samples();
            Client peer = null;
            int sessions = 0;
            for (int i = 0; i < 1500; i++) {
                if (peer == null || !peer.transport.isOpen()) {
                    if (peer != null) {
                        nextSession(hostile, peer);
                    }
                    peer = new Client(hostile, faults);
                    peer.authenticate();
                    for (byte[] frame : FuzzFrames.setUp()) {
                        peer.send(frame);
                    }
                    delivered(hostile, peer);
                    sessions++;
                }
                byte[] sample = samples.get(random.nextInt(samples.size()));
                byte[] frame = switch (random.nextInt(8)) {
                    case 0 -> sample;
                    case 1 -> Arrays.copyOf(sample, random.nextInt(sample.length));
                    case 2 -> {
                        byte[] garbage = new byte[Protocol.HEADER_BYTES + random.nextInt(200)];
                        random.nextBytes(garbage);
                        yield garbage;
                    }
                    default -> FuzzFrames.mutate(sample, random);
                };
                peer.send(frame);
                delivered(hostile, peer);
                if (i % 100 == 0) {
                    good.assertServes(pings++); // served throughout
                }
            }
            nextSession(hostile, peer); // (not in a finally: a hang there would hide the failure that caused it)
            assertTrue(sessions > 1, "some frames closed their session");
            good.assertServes(pings++); // and after
            Client next = new Client(hostile, faults); // the hostile client's worker serves the next client
            next.authenticate();
            next.assertServes(pings++);
            assertEquals(List.of(), faults, "no request made a worker fail inside");
            assertEquals(List.of(), insideFailures(hostile.closed), "no session closed by a failure inside the worker");
            next.close();
            good.close();
        } finally {
            executor.shutdown();
        }
    }
}
