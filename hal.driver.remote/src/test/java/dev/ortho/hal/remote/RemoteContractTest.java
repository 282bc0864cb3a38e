package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.AccessScope;
import dev.ortho.hal.BindingTable;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferBarrier;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.ExecutionStage;
import dev.ortho.hal.MemoryBarrier;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.SemaphoreScope;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.spi.ForwardingCommandBuffer;
import dev.ortho.hal.spi.ForwardingDevice;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the remote device reports and forwards of the served device: capabilities (memory-model
 * bits cleared, remote bits added), {@code hal.device.id} globbing over both identifiers,
 * semaphore scopes (carried to the server, unavailable ones refused at the call) and recorded
 * memory/buffer barriers and advice (replayed into the served device's command buffer).
 */
class RemoteContractTest {
    /** A local-sync device that claims coherent memory and collectives, refuses SYSTEM scope and records calls. */
    static final class Served extends ForwardingDevice {
        final List<SemaphoreScope> scopes = new CopyOnWriteArrayList<>();
        final List<String> recorded = new CopyOnWriteArrayList<>();

        Served(Device delegate) {
            super(delegate);
        }

        @Override
        public long capabilities() {
            return super.capabilities() | DeviceCapability.HOST_COHERENT | DeviceCapability.UNIFIED_MEMORY
                    | DeviceCapability.COLLECTIVES | DeviceCapability.FRONTIERS;
        }

        @Override
        public Semaphore createSemaphore(long initialValue, SemaphoreScope scope) {
            if (scope == SemaphoreScope.SYSTEM) {
                throw new StatusException(StatusCode.UNIMPLEMENTED, "no exportable semaphores here");
            }
            scopes.add(scope);
            return super.createSemaphore(initialValue, scope);
        }

        @Override
        protected CommandBuffer wrapCommandBuffer(CommandBuffer inner) {
            return new ForwardingCommandBuffer(this, inner) {
                @Override
                public void executionBarrier(int sourceStages, int targetStages, int flags,
                        MemoryBarrier[] memoryBarriers, BufferBarrier[] bufferBarriers) {
                    recorded.add("barrier " + memoryBarriers.length + " memory " + bufferBarriers.length + " buffer "
                            + (bufferBarriers.length > 0 ? bufferBarriers[0].buffer().offset() + "+"
                                    + bufferBarriers[0].buffer().length() : ""));
                    super.executionBarrier(sourceStages, targetStages, flags, memoryBarriers, bufferBarriers);
                }

                @Override
                public void adviseBuffer(BufferRef buffer, long flags, long arg0, long arg1) {
                    recorded.add("advise slot " + buffer.bufferSlot() + " " + buffer.offset() + "+" + buffer.length());
                    super.adviseBuffer(buffer, flags, arg0, arg1);
                }
            };
        }
    }

    private final List<Served> served = new CopyOnWriteArrayList<>();
    private DeviceServer server;
    private Path tokenFile;
    private Device device;

    @BeforeEach
    void start() throws Exception {
        tokenFile = Files.createTempFile("ortho-remote-token", ".txt");
        Files.writeString(tokenFile, Loopback.TOKEN, StandardCharsets.UTF_8);
        var registry = Loopback.localSyncRegistry();
        server = DeviceServer.start(() -> {
            Served s = new Served(registry.createDevice("local-sync://"));
            served.add(s);
            return s;
        }, ServerOptions.defaults(Loopback.TOKEN.getBytes(StandardCharsets.UTF_8))
                .withListen(new InetSocketAddress("127.0.0.1", 0), false));
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            device = driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + server.address().getPort()
                    + "?token_file=" + tokenFile));
        }
    }

    @AfterEach
    void stop() throws Exception {
        device.close();
        server.close();
        Files.deleteIfExists(tokenFile);
    }

    @Test
    void capabilitiesKeepTheServedDevicesSchedulingBitsAndDropItsMemoryModel() {
        long bits = device.capabilities();
        assertTrue(DeviceCapability.has(bits, DeviceCapability.TIMELINE_SEMAPHORES | DeviceCapability.FRONTIERS
                | DeviceCapability.ASYNC_QUEUES | DeviceCapability.CONCURRENT_SAFE), DeviceCapability.format(bits));
        assertEquals(0, bits & (DeviceCapability.HOST_COHERENT | DeviceCapability.UNIFIED_MEMORY
                | DeviceCapability.HOST_ZERO_COPY_OK | DeviceCapability.COLLECTIVES), DeviceCapability.format(bits));
        var e = assertThrows(StatusException.class, () -> device.createChannel(Device.QUEUE_AFFINITY_ANY, null));
        assertEquals(StatusCode.UNIMPLEMENTED, e.code());
    }

    @Test
    void deviceIdPatternsMatchRemoteOrTheServedDevice() {
        assertEquals(1, device.queryI64("hal.device.id", "remote"));
        assertEquals(1, device.queryI64("hal.device.id", "rem?te"));
        assertEquals(1, device.queryI64("hal.device.id", "local-*"));
        assertEquals(1, device.queryI64("hal.device.id", "local-sync"));
        assertEquals(0, device.queryI64("hal.device.id", "local-task"));
        assertEquals(0, device.queryI64("hal.device.id", "cuda*"));
    }

    @Test
    void scopesTravelToTheServerAndAnUnavailableOneIsRefusedAtTheCall() {
        var e = assertThrows(StatusException.class, () -> device.createSemaphore(0, SemaphoreScope.SYSTEM));
        assertEquals(StatusCode.UNIMPLEMENTED, e.code());
        assertTrue(e.getMessage().contains("SYSTEM"), e.getMessage());
        Served s = served.getFirst();
        s.scopes.clear(); // the handshake probes every scope
        try (Semaphore local = device.createSemaphore(0, SemaphoreScope.QUEUE_LOCAL);
                Semaphore group = device.createSemaphore(0, SemaphoreScope.DEVICE_GROUP)) {
            assertSame(SemaphoreScope.QUEUE_LOCAL, local.scope());
            device.queryI64("hal.device", "concurrency"); // a round trip: the creations were handled before it
            assertEquals(List.of(SemaphoreScope.QUEUE_LOCAL, SemaphoreScope.DEVICE_GROUP), s.scopes);
        }
    }

    @Test
    void barriersAndAdviceAreReplayedIntoTheServedCommandBuffer() {
        try (Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
                Semaphore done = device.createSemaphore(0);
                CommandBuffer cb = device.createCommandBuffer(0, CommandCategory.TRANSFER, -1, 1)) {
            cb.begin();
            cb.fillBuffer(BufferRef.of(a), 5, 4, 0);
            cb.executionBarrier(ExecutionStage.TRANSFER, ExecutionStage.TRANSFER, 0,
                    new MemoryBarrier[] {new MemoryBarrier(AccessScope.TRANSFER_WRITE, AccessScope.TRANSFER_READ)},
                    new BufferBarrier[] {new BufferBarrier(AccessScope.TRANSFER_WRITE, AccessScope.TRANSFER_READ,
                            BufferRef.of(a, 16, 32))});
            cb.adviseBuffer(BufferRef.slot(0, 8, 8), 0, 0, 0);
            cb.end();
            device.queueExecute(-1, SemaphoreList.empty(), SemaphoreList.of(done, 1), cb, BindingTable.of(a), 0);
            done.await(1, Timeout.infinite());
            assertEquals(List.of("barrier 1 memory 1 buffer 16+32", "advise slot 0 8+8"), served.getFirst().recorded);
        }
    }

    @Test
    void aQueueAllocationWaitingOnTheHostCommitsOnlyOnceTheWaitIsReached() {
        try (Semaphore go = device.createSemaphore(0); Semaphore ready = device.createSemaphore(0)) {
            long before = device.allocator().statistics().bytesAllocated();
            Buffer buffer = device.queueAlloca(-1, SemaphoreList.of(go, 1), SemaphoreList.of(ready, 1),
                    BufferParams.hostLocal(), 256, 0);
            // a fill that waits on the allocation travels before the memory exists
            device.queueFill(-1, SemaphoreList.of(ready, 1), SemaphoreList.of(ready, 2), buffer, 0, 256, 7, 1, 0);
            assertEquals(before, device.allocator().statistics().bytesAllocated(), "nothing committed yet");
            var e = assertThrows(StatusException.class, () -> buffer.read(0, java.lang.foreign.MemorySegment.ofArray(
                    new byte[4])));
            assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
            assertFalse(ready.query() > 0);
            go.signal(1);
            ready.await(2, Timeout.infinite());
            assertEquals(before + 256, device.allocator().statistics().bytesAllocated());
            byte[] bytes = new byte[4];
            buffer.read(252, java.lang.foreign.MemorySegment.ofArray(bytes));
            assertEquals(List.of((byte) 7, (byte) 7, (byte) 7, (byte) 7), List.of(bytes[0], bytes[1], bytes[2], bytes[3]));
            buffer.release();
        }
    }
}
