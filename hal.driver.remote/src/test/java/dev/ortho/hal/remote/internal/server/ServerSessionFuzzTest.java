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

        @Override
        public void send(ByteBuffer frame) {
            frames.incrementAndGet();
            last = frame;
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

    private static List<byte[]> samples() {
        List<FrameWriter> frames = new ArrayList<>();
        frames.add(FrameWriter.frame(Protocol.SEMAPHORE_CREATE, 2).putI64(100).putI64(0).putU8(3));
        frames.add(FrameWriter.frame(Protocol.SEMAPHORE_SIGNAL, 3).putI64(100).putI64(1).putU8(1).putU8(0)
                .putI64(7).putI64(9));
        frames.add(FrameWriter.frame(Protocol.SEMAPHORE_FAIL, 3).putI64(100).putI32(10).putString("x"));
        frames.add(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 4).putI64(101).putI32(0x46).putI32(7).putI32(0)
                .putI64(0).putI64(0).putI64(64));
        frames.add(FrameWriter.frame(Protocol.BUFFER_READ, 5).putI64(101).putI64(0).putI64(16));
        frames.add(FrameWriter.frame(Protocol.BUFFER_WRITE, 6).putI64(101).putI64(8).putBytes(new byte[8], 0, 8));
        frames.add(FrameWriter.frame(Protocol.BUFFER_FILL, 7).putI64(101).putI64(0).putI64(64).putI32(1).putI32(4));
        frames.add(FrameWriter.frame(Protocol.QUERY_I64, 8).putString("hal.device").putString("id"));
        frames.add(FrameWriter.frame(Protocol.CACHE_CREATE, 9).putI64(102).putString("c"));
        frames.add(FrameWriter.frame(Protocol.QUEUE_FILL, 10).putI64(-1).putI32(0).putI32(1).putI64(100).putI64(2)
                .putI64(101).putI64(0).putI64(16).putI32(3).putI32(4).putI64(0));
        frames.add(FrameWriter.frame(Protocol.QUEUE_COPY, 11).putI64(-1).putI32(1).putI64(100).putI64(2).putI32(0)
                .putI64(101).putI64(0).putI64(101).putI64(32).putI64(16).putI64(0));
        frames.add(FrameWriter.frame(Protocol.QUEUE_ALLOCA, 12).putI64(-1).putI32(0).putI32(0).putI64(103)
                .putI32(0x30).putI32(7).putI32(0).putI64(0).putI64(0).putI64(128).putI64(0));
        frames.add(FrameWriter.frame(Protocol.COMMAND_BUFFER, 13).putI64(104).putI32(0).putI32(3).putI64(-1)
                .putI32(2).putI32(3).putU8(Protocol.CMD_FILL).putU8(Protocol.REF_SLOT).putI32(1).putI64(0).putI64(4)
                .putI32(0).putI32(4).putI32(0).putU8(Protocol.CMD_BARRIER).putI32(1).putI32(1).putI32(0)
                .putI32(1).putI32(1).putI32(2).putI32(1).putI32(1).putI32(2).putU8(Protocol.REF_SLOT).putI32(0)
                .putI64(0).putI64(8).putU8(Protocol.CMD_ADVISE).putU8(Protocol.REF_SLOT).putI32(1).putI64(0)
                .putI64(4).putI64(0).putI64(0).putI64(0));
        frames.add(FrameWriter.frame(Protocol.QUEUE_EXECUTE, 14).putI64(-1).putI32(0).putI32(0).putI64(104)
                .putI32(2).putI64(101).putI64(0).putI64(64).putI64(101).putI64(0).putI64(64).putI64(0));
        frames.add(FrameWriter.frame(Protocol.RELEASE, 15).putI64(103));
        List<byte[]> bodies = new ArrayList<>();
        for (FrameWriter frame : frames) {
            ByteBuffer body = body(frame);
            byte[] bytes = new byte[body.remaining()];
            body.get(bytes);
            bodies.add(bytes);
        }
        return bodies;
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
        List<byte[]> samples = samples();
        for (byte[] sample : samples) {
            feed(session, sample);
            for (int cut = 0; cut < sample.length; cut++) {
                feed(session, java.util.Arrays.copyOf(sample, cut));
            }
        }
        for (int i = 0; i < 20_000; i++) {
            byte[] sample = samples.get(random.nextInt(samples.size())).clone();
            for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
                sample[Protocol.HEADER_BYTES - 12 + random.nextInt(sample.length)] = (byte) random.nextInt(256);
            }
            feed(session, sample);
        }
        for (int i = 0; i < 5_000; i++) {
            byte[] garbage = new byte[Protocol.HEADER_BYTES + random.nextInt(200)];
            random.nextBytes(garbage);
            feed(session, garbage);
        }
        assertTrue(transport.frames.get() > 0);
        session.close(new StatusException(dev.ortho.base.StatusCode.CANCELLED, "fuzz done"));
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
        while (cpu.liveDevices() != 0 && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
        }
        assertEquals(0, cpu.liveDevices(), "the served device closed");
    }
}
