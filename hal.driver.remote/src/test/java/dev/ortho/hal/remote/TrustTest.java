package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One test per trust rule of the device server: token, quotas, trusted formats, loopback, hostile frames. */
class TrustTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(java.time.Duration.ofSeconds(30)); // hang guard only

    private static StatusException assertStatus(StatusCode code, org.junit.jupiter.api.function.Executable call) {
        StatusException e = assertThrows(StatusException.class, call);
        assertEquals(code, e.code(), e.toString());
        return e;
    }

    /** The other clients keep working: a full write/queue/read round on {@code device}. */
    static void assertServes(Device device) {
        try (Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 8);
                Semaphore done = device.createSemaphore(0)) {
            device.queueFill(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), buffer, 0, 8, 0x01020304, 4, 0);
            done.await(1, GUARD);
            byte[] bytes = new byte[8];
            buffer.read(0, MemorySegment.ofArray(bytes));
            assertArrayEquals(new byte[] {4, 3, 2, 1, 4, 3, 2, 1}, bytes);
        }
    }

    @Test
    void aWrongTokenIsUnauthenticatedAndAMissingOneToo(@TempDir Path dir) throws Exception {
        try (Loopback loopback = Loopback.start(); Device good = loopback.connect()) {
            Path wrong = dir.resolve("wrong");
            Files.writeString(wrong, "not-the-token", StandardCharsets.UTF_8);
            String base = "remote://127.0.0.1:" + loopback.server.address().getPort();
            try (RemoteDriver driver = new RemoteDriver(name -> null)) {
                var e = assertStatus(StatusCode.UNAUTHENTICATED,
                        () -> driver.createDevice(DeviceUri.parse(base + "?token_file=" + wrong)));
                assertTrue(e.getMessage().contains("token"), e.getMessage());
                assertStatus(StatusCode.UNAUTHENTICATED, () -> driver.createDevice(DeviceUri.parse(base)));
            }
            try (RemoteDriver fromEnvironment = new RemoteDriver(
                    name -> name.equals(RemoteDriver.TOKEN_ENV) ? Loopback.TOKEN : null)) {
                fromEnvironment.createDevice(DeviceUri.parse(base)).close();
            }
            assertServes(good);
        }
    }

    @Test
    void theMemoryQuotaIsResourceExhaustedForAllocationsAndQueueAllocations() {
        try (Loopback loopback = Loopback.start(o -> o.withQuotas(4096, 1000, 100)); Device device = loopback.connect();
                Device other = loopback.connect()) {
            Buffer first = device.allocator().allocateBuffer(BufferParams.hostLocal(), 3000);
            var e = assertStatus(StatusCode.RESOURCE_EXHAUSTED,
                    () -> device.allocator().allocateBuffer(BufferParams.hostLocal(), 2000));
            assertTrue(e.getMessage().contains("4096"), e.getMessage());
            try (Semaphore s = device.createSemaphore(0)) {
                Buffer queued = device.queueAlloca(ANY, SemaphoreList.empty(), SemaphoreList.of(s, 1),
                        BufferParams.deviceLocal(), 2000, 0);
                assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> s.await(1, GUARD));
                assertStatus(StatusCode.RESOURCE_EXHAUSTED, queued::memoryType);
                queued.release();
            }
            first.release();
            device.allocator().allocateBuffer(BufferParams.hostLocal(), 4000).release(); // freed memory counts again
            assertServes(other); // quotas are per client
        }
    }

    @Test
    void theHandleQuotaIsResourceExhausted() {
        try (Loopback loopback = Loopback.start(o -> o.withQuotas(1 << 20, 3, 100)); Device device = loopback.connect()) {
            Semaphore a = device.createSemaphore(0);
            Semaphore b = device.createSemaphore(0);
            Semaphore c = device.createSemaphore(0);
            Semaphore d = device.createSemaphore(0);
            assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> d.await(1, GUARD));
            assertStatus(StatusCode.RESOURCE_EXHAUSTED,
                    () -> device.allocator().allocateBuffer(BufferParams.hostLocal(), 16));
            // work that would signal the refused semaphore fails all its signals, not just that one
            device.queueBarrier(ANY, SemaphoreList.of(b, 1), SemaphoreList.of(new Semaphore[] {a, d}, new long[] {1, 1}), 0);
            var never = assertStatus(StatusCode.NOT_FOUND, () -> a.await(1, GUARD)); // d's handle was never created
            assertTrue(never.getMessage().contains("handle 4"), never.getMessage());
            d.release();
            c.release();
            device.allocator().allocateBuffer(BufferParams.hostLocal(), 16).release(); // a freed handle counts again
            a.release();
            b.release();
        }
    }

    @Test
    void theInFlightQuotaFailsTheExtraSubmissionOnly() {
        try (Loopback loopback = Loopback.start(o -> o.withQuotas(1 << 20, 1000, 2)); Device device = loopback.connect();
                Semaphore go = device.createSemaphore(0); Semaphore done = device.createSemaphore(0);
                Semaphore extra = device.createSemaphore(0)) {
            device.queueBarrier(ANY, SemaphoreList.of(go, 1), SemaphoreList.of(done, 1), 0);
            device.queueBarrier(ANY, SemaphoreList.of(go, 1), SemaphoreList.of(done, 2), 0);
            device.queueBarrier(ANY, SemaphoreList.of(go, 1), SemaphoreList.of(extra, 1), 0);
            var e = assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> extra.await(1, GUARD));
            assertTrue(e.getMessage().contains("in flight"), e.getMessage());
            go.signal(1);
            done.await(2, GUARD);
            assertServes(device);
        }
    }

    @Test
    void onlyTrustedExecutableFormatsArePrepared() {
        try (Loopback loopback = Loopback.start(o -> o.withAllowedFormats(Set.of("vmvx-bytecode-fb")));
                Device device = loopback.connect(); ExecutableCache cache = device.createExecutableCache("t")) {
            var e = assertStatus(StatusCode.PERMISSION_DENIED, () -> cache.prepareExecutable(Loopback.testExecutable()));
            assertTrue(e.getMessage().contains("jvm-static"), e.getMessage());
            assertFalse(cache.canPrepareFormat("jvm-static"));
            assertEquals(0, device.queryI64("hal.executable.format", "jvm-static"));
            assertServes(device);
        }
    }

    @Test
    void nonLoopbackAddressesNeedAnExplicitAllowance() {
        ServerOptions options = ServerOptions.defaults("t".getBytes(StandardCharsets.UTF_8))
                .withListen(new InetSocketAddress("0.0.0.0", 0), false);
        var e = assertStatus(StatusCode.PERMISSION_DENIED,
                () -> DeviceServer.start(() -> Loopback.localSyncRegistry().createDevice("local-sync"), options));
        assertTrue(e.getMessage().contains("0.0.0.0"), e.getMessage());
        DeviceServer.start(() -> Loopback.localSyncRegistry().createDevice("local-sync"),
                options.withListen(new InetSocketAddress("0.0.0.0", 0), true)).close();
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> ServerOptions.defaults(new byte[0]));
    }

    @Test
    void garbageBeforeTheHandshakeClosesThatConnectionOnly() throws Exception {
        try (Loopback loopback = Loopback.start(); Device good = loopback.connect();
                RawClient raw = new RawClient(loopback.server.address().getPort())) {
            raw.send(FrameWriter.frame(Protocol.BUFFER_READ, 7).putI64(1).putI64(0).putI64(4).finish());
            assertEquals(StatusCode.UNAUTHENTICATED.value(), raw.read().i32("status"));
            assertTrue(raw.closedByServer());
            assertServes(good);
        }
    }

    @Test
    void oversizedFramesCloseThatConnectionWithoutAllocating() throws Exception {
        try (Loopback loopback = Loopback.start(o -> o.withMaxFrameBytes(1 << 16)); Device good = loopback.connect();
                RawClient raw = new RawClient(loopback.server.address().getPort())) {
            assertEquals(0, raw.hello(Loopback.TOKEN));
            raw.sendRaw(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0x7F}); // 2 GiB
            assertTrue(raw.closedByServer());
            assertServes(good);
        }
    }

    @Test
    void aClientThatDoesNotReadItsRepliesIsDisconnectedBeforeTheServerRunsOutOfMemory() throws Exception {
        try (Loopback loopback = Loopback.start(o -> o.withMaxFrameBytes(1 << 20)); Device good = loopback.connect();
                RawClient raw = new RawClient(loopback.server.address().getPort())) {
            assertEquals(0, raw.hello(Loopback.TOKEN));
            raw.send(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 2).putI64(1).putI32(0x46).putI32(7)
                    .putI32(0x01000003).putI64(0).putI64(0).putI64(1 << 20).finish());
            assertEquals(0, raw.read().i32("status"));
            try {
                for (int i = 0; i < 64; i++) { // 64 MiB of replies requested, none read
                    raw.send(FrameWriter.frame(Protocol.BUFFER_READ, 3 + i).putI64(1).putI64(0).putI64(1 << 20)
                            .finish());
                }
            } catch (java.net.SocketException reset) {
                // the server dropped the client after the first few requests, before it sent them all
            }
            // nothing is read until the server has dropped the session (reading first would drain
            // the replies and let a loaded server keep up: the test raced that before)
            HangGuard.await(() -> loopback.server.sessionCount() <= 1, "the non-reading client was never dropped",
                    loopback.server::diagnostics);
            assertEquals(1, loopback.server.sessionCount(), "the non-reading client was dropped");
            assertTrue(raw.closedByServer());
            assertServes(good);
        }
    }

    @Test
    void truncatedAndMalformedFramesCloseThatConnectionOnly() throws Exception {
        try (Loopback loopback = Loopback.start(); Device good = loopback.connect()) {
            int port = loopback.server.address().getPort();
            try (RawClient raw = new RawClient(port)) {
                assertEquals(0, raw.hello(Loopback.TOKEN));
                // a queue fill whose payload stops after the affinity
                raw.send(FrameWriter.frame(Protocol.QUEUE_FILL, 2).putI64(-1).putI32(1 << 20).finish());
                assertTrue(raw.closedByServer());
            }
            try (RawClient raw = new RawClient(port)) {
                assertEquals(0, raw.hello(Loopback.TOKEN));
                raw.send(FrameWriter.frame(Protocol.SEMAPHORE_CREATE, 2).putI64(5).finish()); // value missing
                assertTrue(raw.closedByServer());
            }
            try (RawClient raw = new RawClient(port)) {
                assertEquals(0, raw.hello(Loopback.TOKEN));
                raw.sendRaw(new byte[] {100, 0, 0, 0, 1, 2, 3}); // the peer hangs up inside a frame
            }
            try (RawClient raw = new RawClient(port)) {
                raw.send(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION + 1)
                        .finish());
                assertEquals(StatusCode.INCOMPATIBLE.value(), raw.read().i32("status"));
                assertTrue(raw.closedByServer());
            }
            assertServes(good);
        }
    }
}
