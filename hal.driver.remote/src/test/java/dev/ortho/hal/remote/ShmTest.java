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
import dev.ortho.hal.remote.internal.shm.Mailbox;
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
