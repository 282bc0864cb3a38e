package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Failure semantics: whatever happens to the server or the link, semaphores the server still
 * owed fail with UNAVAILABLE, host waits return it, later calls throw it, and a new device (a
 * reconnect) works. Timeouts here are hang guards, never synchronisation.
 */
class FaultTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));

    private static StatusException assertStatus(StatusCode code, org.junit.jupiter.api.function.Executable call) {
        StatusException e = assertThrows(StatusException.class, call);
        assertEquals(code, e.code(), e.toString());
        return e;
    }

    /** Submits work the server holds (it waits on a host semaphore that is never signalled). */
    private static Semaphore pending(Device device) {
        TimelineSemaphore never = new TimelineSemaphore("never", 0);
        Semaphore owed = device.createSemaphore(0);
        device.queueBarrier(ANY, SemaphoreList.of(never, 1), SemaphoreList.of(owed, 1), 0);
        return owed;
    }

    @Test
    void serverShutdownMidSubmissionFailsOwedSemaphoresWithUnavailable() {
        Loopback loopback = Loopback.start();
        try (Device device = loopback.connect(); Device other = Loopback.shared().connect()) {
            Semaphore owed = pending(device);
            Semaphore hostOnly = device.createSemaphore(3);
            device.queueFlush(ANY); // the submission has left the client
            loopback.close();
            assertStatus(StatusCode.UNAVAILABLE, () -> owed.await(1, GUARD));
            assertEquals(3, hostOnly.query(), "a semaphore the server owed nothing keeps its value");
            assertStatus(StatusCode.UNAVAILABLE, () -> device.allocator().allocateBuffer(BufferParams.hostLocal(), 4));
            assertStatus(StatusCode.UNAVAILABLE, () -> device.createSemaphore(0));
            TrustTest.assertServes(other);
        }
    }

    @Test
    void killingTheServerProcessFailsOwedSemaphoresAndAReconnectWorks() throws Exception {
        Loopback tokenSource = Loopback.shared();
        String javaBin = ProcessHandle.current().info().command().orElseThrow();
        Process child = new ProcessBuilder(javaBin, "-cp", System.getProperty("java.class.path"),
                ServerProcess.class.getName(), tokenSource.tokenFile.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            assertNotNull(line, "the server process exited before listening");
            int port = Integer.parseInt(line.substring("LISTENING ".length()));
            String uri = "remote://127.0.0.1:" + port + "?token_file=" + tokenSource.tokenFile;
            try (RemoteDriver driver = new RemoteDriver(name -> null);
                    Device device = driver.createDevice(DeviceUri.parse(uri))) {
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
                Semaphore owed = pending(device);
                device.queueFlush(ANY);
                child.destroyForcibly();
                assertTrue(child.waitFor(60, TimeUnit.SECONDS));
                assertStatus(StatusCode.UNAVAILABLE, () -> owed.await(1, GUARD));
                assertStatus(StatusCode.UNAVAILABLE, () -> buffer.read(0, java.lang.foreign.MemorySegment.ofArray(new byte[4])));
                buffer.release();
                assertStatus(StatusCode.UNAVAILABLE, () -> driver.createDevice(DeviceUri.parse(uri)));
            }
            try (Device fresh = tokenSource.connect()) {
                TrustTest.assertServes(fresh);
            }
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void aPeerThatStopsAnsweringFailsOwedSemaphoresWithinTheDeadline() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread peer = Thread.ofPlatform().daemon().name("silent-peer").start(() -> acceptThenStall(silent));
            try (RemoteDriver driver = new RemoteDriver(name -> "x");
                    Device device = driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + silent.getLocalPort()
                            + "?deadline_ms=300"))) {
                Semaphore owed = pending(device);
                var e = assertStatus(StatusCode.UNAVAILABLE, () -> owed.await(1, GUARD));
                assertTrue(e.getMessage().contains("did not answer"), e.getMessage());
            }
            peer.interrupt();
        }
    }

    private static long readRequestId(DataInputStream in) throws java.io.IOException {
        int length = Integer.reverseBytes(in.readInt());
        byte[] body = new byte[length];
        in.readFully(body);
        return new FrameReader(ByteBuffer.wrap(body).order(ByteOrder.LITTLE_ENDIAN)).requestId();
    }

    /** Completes the handshake (accepting any proof), then reads and ignores everything (pings included). */
    private static void acceptThenStall(ServerSocket server) {
        try (Socket socket = server.accept()) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            ByteBuffer challenge = FrameWriter.frame(Protocol.REPLY, readRequestId(in)).putI32(0)
                    .putBytes(new byte[Protocol.NONCE_BYTES], 0, Protocol.NONCE_BYTES).finish(); // HELLO's reply
            out.write(challenge.array(), 0, challenge.limit());
            out.flush();
            ByteBuffer welcome = FrameWriter.frame(Protocol.REPLY, readRequestId(in)).putI32(0).putI64(1).putString("")
                    .putString("stalled").putI64(0).putI32(1).putU8(0x1F).putU8(0).putI32(0).finish(); // 1 queue, every scope, machine 0, no heaps
            out.write(welcome.array(), 0, welcome.limit());
            out.flush();
            byte[] sink = new byte[4096];
            while (in.read(sink) >= 0) {
                // never answer
            }
        } catch (Exception done) {
            // the client hung up
        }
    }

    @Test
    void aClientThatFallsSilentIsDroppedAfterTheIdleTimeout() throws Exception {
        try (Loopback loopback = Loopback.start(o -> o.withIdleTimeout(Duration.ofMillis(2000)));
                RawClient raw = new RawClient(loopback.server.address().getPort())) {
            assertEquals(0, raw.hello(Loopback.TOKEN));
            assertTrue(raw.closedByServer()); // never pinged: dropped, its device closed
            try (Device pinging = loopback.connect("deadline_ms=2000")) { // pings every 500 ms: kept
                Semaphore s = pinging.createSemaphore(0);
                TimelineSemaphore host = new TimelineSemaphore("host", 0);
                pinging.queueBarrier(ANY, SemaphoreList.of(host, 1), SemaphoreList.of(s, 1), 0);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3000)); // more than an idle timeout passes
                host.signal(1);
                s.await(1, GUARD);
                s.release();
                host.release();
            }
        }
    }

    @Test
    void aClientThatDisconnectsHasEverythingFreed() {
        try (Loopback loopback = Loopback.start()) {
            Device device = loopback.connect();
            Buffer kept = device.allocator().allocateBuffer(BufferParams.hostLocal(), 1 << 16);
            Semaphore s = device.createSemaphore(0);
            device.queueAlloca(ANY, SemaphoreList.empty(), SemaphoreList.of(s, 1), BufferParams.deviceLocal(), 4096, 0);
            s.await(1, GUARD);
            Device served = loopback.served.peek();
            assertEquals(65536 + 4096, served.allocator().statistics().bytesLive());
            device.close(); // without releasing anything
            dev.ortho.hal.remote.internal.transport.HangGuard.await(() -> loopback.server.sessionCount() == 0
                    && served.allocator().statistics().bytesLive() == 0, "the server freed the vanished client's memory",
                    loopback.server::diagnostics);
            assertEquals(0, loopback.server.sessionCount());
            assertEquals(0, served.allocator().statistics().bytesLive());
            assertStatus(StatusCode.FAILED_PRECONDITION, () -> device.createSemaphore(0));
            kept.release();
            s.release();
        }
    }
}
