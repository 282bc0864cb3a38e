package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.shm.Doorbell;
import dev.ortho.hal.remote.internal.shm.Mailbox;
import dev.ortho.hal.remote.internal.shm.MailboxTransport;
import dev.ortho.hal.remote.internal.shm.ShmChild;
import dev.ortho.hal.remote.internal.transport.Transport;
import dev.ortho.hal.remote.internal.shm.WorkerPool;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared-memory transport: worker modes, reuse, backpressure, child death, the mailbox file. */
class ShmTest {
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60)); // hang guard only
    private static final String SUPPLIER = LocalSyncSupplier.class.getName();

    private static StatusException assertStatus(StatusCode code, org.junit.jupiter.api.function.Executable call) {
        StatusException e = assertThrows(StatusException.class, call);
        assertEquals(code, e.code(), e.toString());
        return e;
    }

    @Test
    void threadModeWorkersServeInThisJvmAndAreReused() {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            DeviceUri uri = DeviceUri.parse("remote://shm?mode=thread&workers=1&supplier=" + SUPPLIER);
            for (int round = 0; round < 3; round++) { // one worker, three sessions in turn
                try (Device device = driver.createDevice(uri)) {
                    TrustTest.assertServes(device);
                }
            }
        }
    }

    @Test
    void framesLargerThanTheMailboxSpanSeveralHandOffs() {
        try (RemoteDriver driver = new RemoteDriver(name -> null); Device device = driver.createDevice(DeviceUri.parse(
                "remote://shm?mode=thread&workers=1&mailbox_bytes=65536&supplier=" + SUPPLIER));
                dev.ortho.hal.Buffer buffer = device.allocator().allocateBuffer(dev.ortho.hal.BufferParams.hostLocal(),
                        6 << 20)) {
            byte[] data = new byte[6 << 20];
            new java.util.Random(11).nextBytes(data);
            buffer.write(0, java.lang.foreign.MemorySegment.ofArray(data)); // 4 MiB frames through 64 KiB blocks
            byte[] back = new byte[data.length];
            buffer.read(0, java.lang.foreign.MemorySegment.ofArray(back));
            assertEquals(-1, java.util.Arrays.mismatch(data, back));
        }
    }

    @Test
    void pickIdleAppliesBackpressureWhenEveryWorkerIsBusy() {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            DeviceUri uri = DeviceUri.parse("remote://shm?mode=thread&workers=1&deadline_ms=1000&supplier=" + SUPPLIER);
            try (Device busy = driver.createDevice(uri)) {
                var e = assertStatus(StatusCode.RESOURCE_EXHAUSTED, () -> driver.createDevice(uri));
                assertTrue(e.getMessage().contains("busy"), e.getMessage());
                TrustTest.assertServes(busy);
            }
            driver.createDevice(uri).close(); // free again once the first device closed
        }
    }

    @Test
    void aKilledChildFailsOwedSemaphoresWithUnavailableAndIsReplaced() throws Exception {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            DeviceUri uri = DeviceUri.parse("remote://shm?mode=process&workers=1&supplier=" + SUPPLIER);
            Device device = driver.createDevice(uri);
            TimelineSemaphore never = new TimelineSemaphore("never", 0);
            Semaphore owed = device.createSemaphore(0);
            device.queueBarrier(-1, SemaphoreList.of(never, 1), SemaphoreList.of(owed, 1), 0);
            long pid = Long.parseLong(device.info().name().replaceAll(".*pid (\\d+).*", "$1"));
            ProcessHandle child = ProcessHandle.of(pid).orElseThrow();
            child.destroyForcibly();
            child.onExit().get(60, TimeUnit.SECONDS);
            var e = assertStatus(StatusCode.UNAVAILABLE, () -> owed.await(1, GUARD));
            assertTrue(e.getMessage().contains("exited") || e.getMessage().contains("gone"), e.getMessage());
            assertStatus(StatusCode.UNAVAILABLE, () -> device.createSemaphore(0));
            device.close();
            try (Device replacement = driver.createDevice(uri)) { // a fresh child took its place
                TrustTest.assertServes(replacement);
            }
            never.release();
        }
    }

    /**
     * The handshake race behind the old "peer shut the mailbox down" flake: a worker session was
     * timed from when it was prepared, so a worker left idle past the handshake timeout closed
     * its session by itself, and the next client to pick it was shut down mid-handshake (or, with
     * both channels required idle, the worker was never picked again). Now the timeout runs from
     * the client's first block.
     */
    @Test
    void aWorkerIdleLongerThanTheHandshakeTimeoutStillServesTheNextClient() throws Exception {
        byte[] token = "idle-worker-token".getBytes(StandardCharsets.UTF_8);
        ServerOptions defaults = ServerOptions.defaults(token);
        // short enough that the idle wait below spans several timeouts, long enough that the
        // handshake itself (three frames) finishes within one on a loaded machine: at 20 ms it
        // did not always (the test's own flake under load 10+)
        ServerOptions quick = defaults.withHandshakeTimeout(Duration.ofMillis(250));
        java.util.concurrent.ExecutorService executor = java.util.concurrent.Executors.newFixedThreadPool(1);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch ended = new java.util.concurrent.CountDownLatch(1);
        Mailbox mailbox = Mailbox.inMemory(1 << 16, token);
        Doorbell[] bells = Doorbell.pipes();
        try {
            ShmChild.serve(mailbox, bells[1], new LocalSyncSupplier(), quick, () -> true, executor, stop::get, ended);
            // four handshake timeouts pass with no client (waiting for a timeout to elapse is the point here)
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1000));
            assertTrue(mailbox.lvReady(), "still serving");
            assertEquals(Mailbox.IDLE, mailbox.lvState(Mailbox.TO_PARENT), "the worker did not shut its idle session");
            java.util.concurrent.CompletableFuture<Integer> status = new java.util.concurrent.CompletableFuture<>();
            MailboxTransport client = new MailboxTransport(mailbox, bells[0], true, () -> true, "test client",
                    Protocol.DEFAULT_MAX_FRAME_BYTES, () -> { });
            MailboxTransport[] clientRef = {client};
            client.start(new Transport.Listener() {
                @Override
                public void onFrame(java.nio.ByteBuffer body) {
                    FrameReader reply = new FrameReader(body.order(java.nio.ByteOrder.LITTLE_ENDIAN));
                    int code = reply.i32("status");
                    if (code != 0 || reply.requestId() == 2) {
                        status.complete(code); // a refusal, or the AUTH reply
                        return;
                    }
                    java.nio.ByteBuffer nonce = reply.bytes("nonce");
                    byte[] n = new byte[nonce.remaining()];
                    nonce.get(n);
                    byte[] proof = dev.ortho.hal.remote.internal.protocol.Challenge.prove(token, n);
                    clientRef[0].send(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)
                            .finish());
                }

                @Override
                public void onClosed(StatusException reason) {
                    status.completeExceptionally(reason);
                }
            });
            client.send(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION).finish());
            assertEquals(0, status.get(60, TimeUnit.SECONDS), "the handshake succeeded");
            client.close(new StatusException(StatusCode.CANCELLED, "test done"));
        } finally {
            stop.set(true);
            mailbox.close();
            executor.shutdown();
            bells[0].close();
            bells[1].close();
        }
    }

    @Test
    void aChildThatDiesWhileIdleIsReplacedWhenTheNextClientPicks() throws Exception {
        try (WorkerPool pool = new WorkerPool(WorkerPool.Mode.PROCESS, 1, SUPPLIER, 1 << 16)) {
            WorkerPool.Worker first = pool.pickIdle(GUARD, GUARD);
            pool.release(first); // idle again, never served
            first.process().destroyForcibly();
            first.process().onExit().get(60, TimeUnit.SECONDS);
            WorkerPool.Worker next = pool.pickIdle(GUARD, GUARD); // not RESOURCE_EXHAUSTED: a fresh child took its place
            assertTrue(next != first && next.isAlive(), next.toString());
            pool.release(next);
        }
    }

    @Test
    void aMailboxFileMustMatchWhatWasCreated(@TempDir Path dir) {
        Path file = dir.resolve("mailbox");
        byte[] token = "t0k3n".getBytes(StandardCharsets.UTF_8);
        try (Mailbox created = Mailbox.create(file, 8192, token); Mailbox opened = Mailbox.open(file, 8192)) {
            assertEquals("t0k3n", new String(opened.token(), StandardCharsets.UTF_8));
            created.soState(Mailbox.TO_CHILD, Mailbox.TASK_READY);
            assertEquals(Mailbox.TASK_READY, opened.lvState(Mailbox.TO_CHILD));
            assertEquals(Mailbox.IDLE, opened.lvState(Mailbox.TO_PARENT));
        }
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> Mailbox.open(file, 16384));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> Mailbox.create(dir.resolve("big"), 8192, new byte[65]));
        assertStatus(StatusCode.INVALID_ARGUMENT, () -> new WorkerPool(WorkerPool.Mode.THREAD, 1, "no.such.Supplier",
                8192));
    }
}
