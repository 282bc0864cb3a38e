package dev.ortho.hal.remote.internal.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Hostile input to the server's decoder: every prefix of valid frames of each kind, seeded byte
 * flips and random bodies. The only acceptable failure is a {@link StatusException} (which
 * closes the connection); never an index exception, a NullPointerException or an OOM.
 */
class ServerSessionFuzzTest {
    /** Records what the session sends; never closes anything. */
    private static final class RecordingTransport implements Transport {
        final AtomicInteger frames = new AtomicInteger();
        volatile StatusException closed;
        volatile ByteBuffer last;

        /** Statuses a client can never cause (see {@link FuzzFrames#serverFault}). */
        final List<String> faults = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void send(ByteBuffer frame) {
            frames.incrementAndGet();
            last = frame;
            String fault = FuzzFrames.serverFault(frame);
            if (fault != null) {
                faults.add(fault);
            }
        }

        /** The nonce of the last frame sent, a HELLO reply. */
        byte[] lastNonce() {
            ByteBuffer frame = last.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
            frame.position(Protocol.LENGTH_BYTES);
            dev.ortho.hal.remote.internal.protocol.FrameReader reply = new dev.ortho.hal.remote.internal.protocol
                    .FrameReader(frame.slice().order(java.nio.ByteOrder.LITTLE_ENDIAN));
            reply.i32("status");
            ByteBuffer nonce = reply.bytes("nonce");
            byte[] bytes = new byte[nonce.remaining()];
            nonce.get(bytes);
            return bytes;
        }

        @Override
        public void close(StatusException reason) {
            closed = reason;
        }

        @Override
        public void closeAfterFlush(StatusException reason) {
            closed = reason;
        }

        @Override
        public boolean isOpen() {
            return closed == null;
        }

        @Override
        public long queuedBytes() {
            return 0;
        }

        @Override
        public long lastReceiveNanos() {
            return System.nanoTime();
        }

        @Override
        public long peerSinceNanos() {
            return System.nanoTime();
        }
    }

    private static ByteBuffer body(FrameWriter writer) {
        ByteBuffer frame = writer.finish();
        return frame.position(Protocol.LENGTH_BYTES).slice();
    }

    /** {@code sample} with 1 to 4 bytes anywhere (opcode included) set at random. */
    private static byte[] anywhere(byte[] sample, Random random) {
        byte[] mutated = sample.clone();
        for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
            mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
        }
        return mutated;
    }

    private static void feed(ServerSession session, byte[] body) {
        try {
            session.onFrame(ByteBuffer.wrap(body));
        } catch (StatusException expected) {
            // the transport would close this connection
        } catch (Throwable e) {
            fail("frame " + java.util.HexFormat.of().formatHex(body) + " threw " + e, e);
        }
    }

    /**
     * A session whose device fails to close is still forgotten by its server: the close task
     * once ended at the device's exception (a non-reading client's lent buffer memory was still
     * being written when the device freed it: "Session is acquired by 2 clients"), the server
     * kept counting the session (TrustTest's non-reading client outlived its 60 s guard) and it
     * held a connection slot for good.
     */
    @org.junit.jupiter.api.Test
    void aSessionWhoseDeviceFailsToCloseIsStillForgotten() {
        RecordingTransport transport = new RecordingTransport();
        var registry = new dev.ortho.hal.DriverRegistry();
        registry.register(dev.ortho.hal.cpu.CpuDrivers.builder().localSyncFactory());
        ServerOptions options = ServerOptions.defaults("k".getBytes(StandardCharsets.UTF_8));
        java.util.concurrent.atomic.AtomicInteger forgotten = new java.util.concurrent.atomic.AtomicInteger();
        ServerSession session = new ServerSession(transport, options, () -> {
            Device real = registry.createDevice("local-sync");
            return (Device) java.lang.reflect.Proxy.newProxyInstance(Device.class.getClassLoader(),
                    new Class<?>[] {Device.class}, (proxy, method, args) -> {
                        if (method.getName().equals("close") && method.getParameterCount() == 0) {
                            real.close();
                            throw new IllegalStateException("Session is acquired by 2 clients");
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (java.lang.reflect.InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }, Runnable::run, s -> forgotten.incrementAndGet());
        byte[] token = "k".getBytes(StandardCharsets.UTF_8);
        session.onFrame(body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION)));
        byte[] proof = dev.ortho.hal.remote.internal.protocol.Challenge.prove(token, transport.lastNonce());
        session.onFrame(body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
        assertEquals(null, transport.closed, "authenticated");
        session.close(new StatusException(dev.ortho.base.StatusCode.CANCELLED, "client gone"));
        assertEquals(1, forgotten.get(), "the server forgets the session although its device's close threw");
    }

    /**
     * A frame that declares a list longer than the frame could carry fails before anything is
     * allocated for the list: a 30-byte frame declaring 65,536 wait semaphores made the server
     * allocate 1 MiB of arrays (and 1.5 MiB for a binding table, 256 KiB for constants or events)
     * before it found the frame truncated, a thousandfold amplification any authenticated peer
     * could repeat as fast as it can send.
     */
    @org.junit.jupiter.api.Test
    void aFrameDeclaringMoreEntriesThanItCarriesAllocatesNothingForThem() {
        RecordingTransport transport = new RecordingTransport();
        var registry = new dev.ortho.hal.DriverRegistry();
        registry.register(dev.ortho.hal.cpu.CpuDrivers.builder().localSyncFactory());
        byte[] token = "k".getBytes(StandardCharsets.UTF_8);
        ServerSession session = new ServerSession(transport, ServerOptions.defaults(token),
                () -> registry.createDevice("local-sync"), Runnable::run, s -> { });
        session.onFrame(body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION)));
        byte[] proof = dev.ortho.hal.remote.internal.protocol.Challenge.prove(token, transport.lastNonce());
        session.onFrame(body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
        FuzzFrames.setUp().forEach(frame -> feed(session, frame));
        int many = Protocol.MAX_LIST;
        List<byte[]> liars = List.of(
                FuzzFrames.body(FrameWriter.frame(Protocol.QUEUE_BARRIER, 3).putI64(-1).putI32(many)),
                FuzzFrames.body(FrameWriter.frame(Protocol.QUEUE_EXECUTE, 4).putI64(-1).putI32(0).putI32(0).putI64(0)
                        .putI32(many)),
                FuzzFrames.body(FrameWriter.frame(Protocol.CACHE_PREPARE, 5).putI64(FuzzFrames.CACHE).putI64(300)
                        .putString("vmvx-bytecode-fb").putI32(0).putI32(many)),
                FuzzFrames.body(FrameWriter.frame(Protocol.COMMAND_BUFFER, 6).putI64(301).putI32(0).putI32(3)
                        .putI64(-1).putI32(0).putI32(1).putU8(Protocol.CMD_WAIT_EVENTS).putI32(many)),
                FuzzFrames.body(FrameWriter.frame(Protocol.COMMAND_BUFFER, 7).putI64(302).putI32(0).putI32(3)
                        .putI64(-1).putI32(0).putI32(1).putU8(Protocol.CMD_BARRIER).putI32(0).putI32(0).putI32(0)
                        .putI32(many)));
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management
                .ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().threadId();
        for (byte[] liar : liars) {
            for (int i = 0; i < 3; i++) {
                feed(session, liar); // warm-up: the first failure's classes and messages
            }
            long before = threads.getThreadAllocatedBytes(self);
            for (int i = 0; i < 8; i++) {
                feed(session, liar);
            }
            long perFrame = (threads.getThreadAllocatedBytes(self) - before) / 8;
            assertTrue(perFrame < 64 << 10, perFrame + " bytes allocated for a " + liar.length + "-byte frame of opcode "
                    + java.nio.ByteBuffer.wrap(liar).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt(0));
        }
        session.close(new StatusException(dev.ortho.base.StatusCode.CANCELLED, "done"));
    }

    /**
     * On {@code local-sync} (operations held by the session) and on {@code local-task} (operations
     * with unreached waits handed to the device with them): after the session closes, the
     * served device is closed, so nothing a hostile client left waiting holds it.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"local-sync", "local-task"})
    void truncatedMutatedAndRandomFramesOnlyEverFailWithAStatus(String driver) {
        RecordingTransport transport = new RecordingTransport();
        List<Device> devices = new ArrayList<>();
        var registry = new dev.ortho.hal.DriverRegistry();
        dev.ortho.hal.cpu.CpuDriverFactory cpu = dev.ortho.hal.cpu.CpuDrivers.builder().workerCount(1)
                .localTaskFactory();
        registry.register(driver.equals("local-sync") ? dev.ortho.hal.cpu.CpuDrivers.builder().localSyncFactory()
                : cpu);
        ServerOptions options = ServerOptions.defaults("k".getBytes(StandardCharsets.UTF_8)).withQuotas(1 << 20, 64, 8);
        ServerSession session = new ServerSession(transport, options, () -> {
            Device device = registry.createDevice(driver);
            devices.add(device);
            return device;
        }, Runnable::run, s -> { });
        byte[] token = "k".getBytes(StandardCharsets.UTF_8);
        session.onFrame(body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION)));
        byte[] nonce = transport.lastNonce();
        byte[] proof = dev.ortho.hal.remote.internal.protocol.Challenge.prove(token, nonce);
        session.onFrame(body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
        assertEquals(1, devices.size());
        assertEquals(null, transport.closed);
        Random random = new Random(0x0E7A0);
        FuzzFrames.setUp().forEach(frame -> feed(session, frame));
        List<byte[]> samples = FuzzFrames.samples();
        for (byte[] sample : samples) {
            feed(session, sample);
            for (int cut = 0; cut < Math.min(sample.length, 256); cut++) {
                feed(session, java.util.Arrays.copyOf(sample, cut));
            }
        }
        for (int i = 0; i < 20_000; i++) {
            byte[] sample = samples.get(random.nextInt(samples.size()));
            feed(session, random.nextInt(4) == 0 ? FuzzFrames.mutate(sample, random) : anywhere(sample, random));
        }
        for (int i = 0; i < 5_000; i++) {
            byte[] garbage = new byte[Protocol.HEADER_BYTES + random.nextInt(200)];
            random.nextBytes(garbage);
            feed(session, garbage);
        }
        assertTrue(transport.frames.get() > 0);
        assertEquals(List.of(), transport.faults, "no request makes the server fail inside");
        session.close(new StatusException(dev.ortho.base.StatusCode.CANCELLED, "fuzz done"));
        dev.ortho.hal.remote.internal.transport.HangGuard.await(() -> cpu.liveDevices() == 0, "the served device closed",
                session::diagnostics);
        assertEquals(0, cpu.liveDevices(), "the served device closed");
    }
}
