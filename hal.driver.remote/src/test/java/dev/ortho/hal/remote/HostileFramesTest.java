package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.server.FuzzFrames;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile peers over a real TCP connection: valid frames of every opcode, truncated, mutated and
 * random ones, before and after authentication, against a server a well-behaved client uses
 * throughout. The server may answer with a status or close the hostile connection; it must never
 * fail inside (an INTERNAL or UNKNOWN status, a session closed with INTERNAL, a stopped server),
 * and the good client is served during and after. Time limits are hang guards only.
 */
class HostileFramesTest {
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));

    /** A raw peer: sends bodies with their length prefix; a thread reads what comes back. */
    private static final class Peer implements AutoCloseable {
        final Socket socket;
        final OutputStream out;
        volatile boolean closed;

        Peer(Socket socket, List<String> faults) throws IOException {
            this.socket = socket;
            socket.setTcpNoDelay(true);
            out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) {
                        byte[] frame = new byte[Integer.reverseBytes(in.readInt()) + Protocol.LENGTH_BYTES];
                        in.readFully(frame, Protocol.LENGTH_BYTES, frame.length - Protocol.LENGTH_BYTES);
                        String fault = FuzzFrames.serverFault(ByteBuffer.wrap(frame));
                        if (fault != null) {
                            faults.add(fault);
                        }
                    }
                } catch (IOException | RuntimeException closedOrGarbled) {
                    closed = true;
                }
            });
        }

        /** A peer that has not authenticated. */
        static Peer open(int port, List<String> faults) throws IOException {
            return new Peer(new Socket("127.0.0.1", port), faults);
        }

        void send(byte[] body) {
            try {
                byte[] frame = new byte[body.length + Protocol.LENGTH_BYTES];
                ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN).putInt(body.length).put(body);
                out.write(frame);
                out.flush();
            } catch (IOException e) {
                closed = true; // the server closed it
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /**
     * An authenticated peer with the fuzz handles created, retrying while connections just closed
     * still count against the per-address limit (the server frees a slot as it notices a close).
     */
    private static Peer authenticated(int port, List<String> faults) throws Exception {
        long guard = System.nanoTime() + HangGuard.GUARD_NANOS;
        while (true) {
            Socket socket = new Socket("127.0.0.1", port);
            try {
                socket.setSoTimeout(30_000); // hang guard
                if (new RawHandshake(socket).authenticate()) {
                    socket.setSoTimeout(0);
                    Peer peer = new Peer(socket, faults);
                    for (byte[] frame : FuzzFrames.setUp()) {
                        peer.send(frame);
                    }
                    return peer;
                }
            } catch (IOException refusedOrClosed) {
                // over the limit for a moment
            }
            socket.close();
            if (System.nanoTime() - guard > 0) {
                HangGuard.expired("a hostile peer could not connect again", () -> "");
            }
            Thread.sleep(5);
        }
    }

    /** HELLO and AUTH on a blocking socket. */
    private static final class RawHandshake {
        private final Socket socket;
        private final DataInputStream in;

        RawHandshake(Socket socket) throws IOException {
            this.socket = socket;
            this.in = new DataInputStream(socket.getInputStream());
        }

        private FrameReader read() throws IOException {
            byte[] body = new byte[Integer.reverseBytes(in.readInt())];
            in.readFully(body);
            return new FrameReader(ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN));
        }

        private void send(FrameWriter frame) throws IOException {
            ByteBuffer bytes = frame.finish();
            byte[] raw = new byte[bytes.remaining()];
            bytes.get(raw);
            socket.getOutputStream().write(raw);
        }

        boolean authenticate() throws IOException {
            send(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION));
            FrameReader challenge = read();
            if (challenge.i32("status") != 0) {
                return false;
            }
            ByteBuffer nonce = challenge.bytes("nonce");
            byte[] n = new byte[nonce.remaining()];
            nonce.get(n);
            byte[] proof = Challenge.prove(Loopback.TOKEN.getBytes(StandardCharsets.UTF_8), n);
            send(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length));
            return read().i32("status") == 0;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task"})
    void hostileFramesOnlyEverCloseTheirOwnConnectionOrAnswerAStatus(String driver) throws Exception {
        Loopback loopback = driver.equals("local-sync") ? Loopback.start(o -> o.withQuotas(4 << 20, 256, 16))
                : Loopback.startLocalTask(202, false, o -> o.withQuotas(4 << 20, 256, 16));
        List<String> faults = new CopyOnWriteArrayList<>();
        try (loopback; Device good = loopback.connect()) {
            int port = loopback.server.address().getPort();
            Random random = new Random(0x7C9F);
            // before authentication: mutated handshakes and garbage
            byte[] hello = FuzzFrames.body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC)
                    .putI32(Protocol.VERSION));
            byte[] auth = FuzzFrames.body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(new byte[32], 0, 32));
            for (int i = 0; i < 40; i++) {
                try (Peer peer = Peer.open(port, faults)) {
                    peer.send(random.nextBoolean() ? FuzzFrames.mutate(hello, random) : hello);
                    byte[] second = new byte[random.nextInt(200)];
                    random.nextBytes(second);
                    peer.send(random.nextBoolean() ? FuzzFrames.mutate(auth, random) : second);
                }
            }
            TrustTest.assertServes(good);
            // authenticated: every opcode, whole, cut short, mutated and random
            List<byte[]> samples = FuzzFrames.samples();
            Peer peer = null;
            int connections = 0;
            try {
                for (int i = 0; i < 1500; i++) {
                    if (peer == null || peer.closed) {
                        if (peer != null) {
                            peer.close();
                        }
                        peer = authenticated(port, faults);
                        connections++;
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
                    if (i % 100 == 0) {
                        TrustTest.assertServes(good); // served throughout
                    }
                }
            } finally {
                if (peer != null) {
                    peer.close();
                }
            }
            assertTrue(connections > 1, "some frames closed their connection");
            HangGuard.await(() -> loopback.server.sessionCount() == 1, "every hostile session was dropped",
                    loopback.server::diagnostics);
            TrustTest.assertServes(good); // and after
            assertEquals(List.of(), faults, "no request made the server fail inside");
            assertEquals(0, loopback.server.internalFailures(), "no session closed by a failure inside the server");
            assertTrue(loopback.server.isRunning());
            assertNull(loopback.server.failure());
            HangGuard.await(() -> loopback.server.memoryBytes() == 0, "every session's memory was given back",
                    loopback.server::diagnostics);
        }
    }

    /**
     * A queue update holds its data (a frame's bytes) until its waits are reached; those bytes
     * count against the client's memory quota meanwhile. Before, 1,024 held updates of 4 MiB
     * (the default in-flight quota, the largest update) made a server hold 4 GiB whatever its
     * memory quota, and an OutOfMemoryError shuts the server down for every client.
     */
    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task"})
    void heldQueueUpdateDataCountsAgainstTheMemoryQuota(String driver) {
        // 48 KiB updates: local-task takes at most 64 KiB per update, as IREE
        Loopback loopback = driver.equals("local-sync") ? Loopback.start(o -> o.withQuotas(128 << 10, 1000, 100))
                : Loopback.startLocalTask(203, false, o -> o.withQuotas(128 << 10, 1000, 100));
        try (loopback; Device device = loopback.connect(); Semaphore gate = device.createSemaphore(0);
                Semaphore first = device.createSemaphore(0); Semaphore second = device.createSemaphore(0);
                Semaphore third = device.createSemaphore(0);
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 48 << 10)) {
            MemorySegment data = MemorySegment.ofArray(new byte[48 << 10]);
            device.queueUpdate(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(gate, 1), SemaphoreList.of(first, 1), data,
                    buffer, 0, 0);
            device.queueUpdate(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(gate, 1), SemaphoreList.of(second, 1), data,
                    buffer, 0, 0); // 48 KiB buffer + 2 x 48 KiB held > 128 KiB
            StatusException e = assertThrows(StatusException.class, () -> second.await(1, GUARD));
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code(), e.toString());
            assertTrue(e.getMessage().contains("queue update data") && e.getMessage().contains("client memory quota"),
                    e.getMessage());
            gate.signal(1);
            first.await(1, GUARD);
            HangGuard.await(() -> loopback.server.memoryBytes() == 48 << 10, "the held bytes were given back",
                    loopback.server::diagnostics);
            // another held update fits again
            device.queueUpdate(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(gate, 2), SemaphoreList.of(third, 1),
                    data, buffer, 0, 0);
            gate.signal(2);
            third.await(1, GUARD);
        }
    }

    /**
     * An executable's data and a command buffer's update data stay on the server as long as the
     * client keeps the handle; they count against the memory quota like buffers. Before, a client
     * could make the server hold a frame (16 MiB) per handle, 65,536 handles by default.
     */
    @org.junit.jupiter.api.Test
    void executableDataCountsAgainstTheMemoryQuota() {
        try (Loopback loopback = Loopback.start(o -> o.withQuotas(4096, 1000, 100)); Device device = loopback.connect();
                dev.ortho.hal.ExecutableCache cache = device.createExecutableCache("quota")) {
            dev.ortho.hal.ExecutableParams params = Loopback.testExecutable();
            long dataBytes = params.data().byteSize();
            Buffer filler = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4096 - dataBytes + 1);
            StatusException e = assertThrows(StatusException.class, () -> cache.prepareExecutable(params));
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code(), e.toString());
            assertTrue(e.getMessage().contains("executable") && e.getMessage().contains("data"), e.getMessage());
            filler.release();
            HangGuard.await(() -> loopback.server.memoryBytes() == 0, "the filler was freed", loopback.server::diagnostics);
            try (dev.ortho.hal.Executable executable = cache.prepareExecutable(params)) {
                assertEquals(dataBytes, loopback.server.memoryBytes());
            }
            HangGuard.await(() -> loopback.server.memoryBytes() == 0, "the executable's data was uncounted",
                    loopback.server::diagnostics);
        }
    }

    /** A command buffer recording {@code count} updates of all of the 4 KiB {@code buffer}. */
    private static dev.ortho.hal.CommandBuffer updates(Device device, Buffer buffer, int count) {
        dev.ortho.hal.CommandBuffer commands = device.createCommandBuffer(dev.ortho.hal.CommandBufferMode.DEFAULT,
                dev.ortho.hal.CommandCategory.TRANSFER, Device.QUEUE_AFFINITY_ANY, 0);
        commands.begin();
        for (int i = 0; i < count; i++) {
            commands.updateBuffer(MemorySegment.ofArray(new byte[4096]), dev.ortho.hal.BufferRef.of(buffer, 0, 4096), 0);
        }
        commands.end();
        return commands;
    }

    @org.junit.jupiter.api.Test
    void commandBufferUpdateDataCountsAgainstTheMemoryQuota() {
        try (Loopback loopback = Loopback.start(o -> o.withQuotas(8192, 1000, 100)); Device device = loopback.connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4096);
                Semaphore done = device.createSemaphore(0)) {
            dev.ortho.hal.CommandBuffer commands = updates(device, buffer, 2); // 4 KiB buffer + 8 KiB of data > 8 KiB
            StatusException e = assertThrows(StatusException.class, () -> {
                device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), commands,
                        null, 0);
                done.await(1, GUARD);
            });
            assertTrue(e.getMessage().contains("update data") && e.getMessage().contains("client memory quota"),
                    e.toString());
            commands.release();
        }
        try (Loopback loopback = Loopback.start(o -> o.withQuotas(8192, 1000, 100)); Device device = loopback.connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 4096);
                Semaphore done = device.createSemaphore(0)) {
            dev.ortho.hal.CommandBuffer commands = updates(device, buffer, 1);
            device.queueExecute(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), commands,
                    null, 0);
            done.await(1, GUARD); // within the quota: recorded and run
            assertEquals(8192, loopback.server.memoryBytes(), "the buffer and the command buffer's data");
            commands.release();
            HangGuard.await(() -> loopback.server.memoryBytes() == 4096, "released with the command buffer",
                    loopback.server::diagnostics);
        }
    }

    /**
     * An allocation's alignment counts against the memory quota: Java's arenas reserve and zero
     * {@code size + alignment - 1} bytes for large alignments, so a 64-byte buffer aligned to
     * 4 MiB took 4 MiB of the server while the quota counted 64 bytes.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAllocationsAlignmentCountsAgainstTheMemoryQuota(boolean queueAlloca) {
        try (Loopback loopback = Loopback.start(o -> o.withQuotas(1 << 20, 1000, 100)); Device device = loopback.connect()) {
            BufferParams host = BufferParams.hostLocal();
            java.util.function.LongFunction<Buffer> allocate = alignment -> {
                BufferParams params = new BufferParams(host.type(), host.access(), host.usage(), host.queueAffinity(),
                        alignment);
                if (!queueAlloca) {
                    return device.allocator().allocateBuffer(params, 64);
                }
                try (Semaphore done = device.createSemaphore(0)) {
                    Buffer buffer = device.queueAlloca(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(),
                            SemaphoreList.of(done, 1), params, 64, 0);
                    done.await(1, GUARD);
                    return buffer;
                }
            };
            StatusException e = assertThrows(StatusException.class, () -> allocate.apply(4 << 20).release());
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code(), e.toString());
            assertTrue(e.getMessage().contains("client memory quota"), e.getMessage());
            try (Buffer aligned = allocate.apply(4096)) {
                assertEquals(64 + 4096, loopback.server.memoryBytes(), "size and alignment");
            }
            HangGuard.await(() -> loopback.server.memoryBytes() == 0, "uncounted once released",
                    loopback.server::diagnostics);
        }
    }
}
