package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Event;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.spi.ForwardingDevice;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 section 2: a read-only import reaches the server (it was refused and left zeros), and
 * a refused one-way request loses the device stickily instead of becoming a log line.
 */
class Issue15OneWayFailureTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30)); // hang guard only

    @Test
    void aReadOnlyImportIsUploadedAndStaysReadOnlyForTheClient() {
        try (Loopback loopback = Loopback.start(); Device device = loopback.connect(); Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(64, 64);
            for (int i = 0; i < 64; i++) {
                memory.set(ValueLayout.JAVA_BYTE, i, (byte) (i + 1));
            }
            BufferParams readOnly = new BufferParams(BufferParams.hostLocal().type(), MemoryAccess.READ,
                    BufferParams.hostLocal().usage(), 0, 0);
            try (Buffer imported = device.allocator().importBuffer(readOnly, memory.asReadOnly(), null);
                    Buffer copy = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
                    Semaphore done = device.createSemaphore(0)) {
                assertEquals(MemoryAccess.READ, imported.allowedAccess(), "the client does not gain WRITE");
                device.queueCopy(ANY, SemaphoreList.empty(), SemaphoreList.of(done, 1), imported, 0, copy, 0, 64, 0);
                done.await(1, GUARD);
                byte[] copied = new byte[64];
                copy.read(0, MemorySegment.ofArray(copied));
                assertArrayEquals(memory.toArray(ValueLayout.JAVA_BYTE), copied);
                byte[] direct = new byte[64];
                imported.read(0, MemorySegment.ofArray(direct)); // must not write into the read-only import
                assertArrayEquals(copied, direct);
                assertThrows(StatusException.class, () -> imported.write(0, MemorySegment.ofArray(new byte[4])));
            }
        }
    }

    /** A served device whose events cannot be created: EVENT_CREATE is a one-way request. */
    private static final class NoEvents extends ForwardingDevice {
        NoEvents(Device delegate) {
            super(delegate);
        }

        @Override
        public Event createEvent() {
            throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, "no events left on this test device");
        }
    }

    @Test
    void aRefusedOneWayRequestLosesTheDeviceStickily() {
        var registry = Loopback.localSyncRegistry();
        byte[] token = Loopback.TOKEN.getBytes(StandardCharsets.UTF_8);
        try (DeviceServer server = DeviceServer.start(() -> new NoEvents(registry.createDevice("local-sync://")),
                ServerOptions.defaults(token).withListen(new InetSocketAddress("127.0.0.1", 0), false));
                Loopback tokens = Loopback.start();
                RemoteDriver driver = new RemoteDriver(name -> null)) {
            Device device = driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + server.address().getPort()
                    + "?token_file=" + tokens.tokenFile));
            try (device) {
                TimelineSemaphore never = new TimelineSemaphore("never", 0);
                Semaphore owed = device.createSemaphore(0);
                device.queueBarrier(ANY, SemaphoreList.of(never, 1), SemaphoreList.of(owed, 1), 0);
                device.createEvent(); // one-way: refused by the server
                // the next round trip is answered after the refusal, so it sees the loss
                StatusException call = assertThrows(StatusException.class, () -> device.allocator().statistics());
                assertEquals(StatusCode.RESOURCE_EXHAUSTED, call.code(), call.toString());
                assertTrue(call.getMessage().contains("no events left"), call.getMessage());
                // sticky: waits on owed work and later calls fail with the same status
                StatusException wait = assertThrows(StatusException.class, () -> owed.await(1, GUARD));
                assertEquals(StatusCode.RESOURCE_EXHAUSTED, wait.code(), wait.toString());
                StatusException later = assertThrows(StatusException.class, () -> device.createSemaphore(0));
                assertEquals(StatusCode.RESOURCE_EXHAUSTED, later.code(), later.toString());
            }
        }
    }
}
