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
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.frontier.Axis;
import dev.ortho.hal.frontier.Frontier;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 20 §3/§4: frontiers across two {@code serve-device} servers. Each server announces its
 * machine index and its devices' queue axes carry it; a three-stage pipeline A → B → A is
 * submitted whole before stage 1 may start, and the client's I/O path relays each server's
 * signal report (with the frontier the server's queue attached) to the other server, whose queue
 * imports it.
 */
class Issue20RemoteFrontierTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));
    private static final int MACHINE_A = 11;
    private static final int MACHINE_B = 22;

    /** Servers A and B, a client device on each, the pipeline's semaphores and buffers, a host gate. */
    private static final class TwoServers implements AutoCloseable {
        final Loopback serverA;
        final Loopback serverB;
        final Device a;
        final Device b;
        final Semaphore s1;
        final Semaphore s2;
        final Semaphore s3;
        final Buffer onA;
        final Buffer copyA;
        final Buffer onB;
        final TimelineSemaphore host = new TimelineSemaphore("host", 0);

        TwoServers(boolean fifo) {
            serverA = Loopback.startLocalTask(MACHINE_A, fifo, o -> o);
            serverB = Loopback.startLocalTask(MACHINE_B, fifo, o -> o);
            a = serverA.connect();
            b = serverB.connect();
            s1 = a.createSemaphore(0);
            s2 = b.createSemaphore(0);
            s3 = a.createSemaphore(0);
            onA = a.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
            copyA = a.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
            onB = b.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
        }

        /** Stage 1 fills A (once the host signals), stage 2 fills B, stage 3 copies on A; stage 3 first if asked. */
        void submit(boolean lastStageFirst) {
            if (lastStageFirst) {
                stage3();
            }
            a.queueFill(ANY, SemaphoreList.of(host, 1), SemaphoreList.of(s1, 1), onA, 0, 16, 11, 4, 0);
            b.queueFill(ANY, SemaphoreList.of(s1, 1), SemaphoreList.of(s2, 1), onB, 0, 16, 22, 4, 0);
            if (!lastStageFirst) {
                stage3();
            }
        }

        private void stage3() {
            a.queueCopy(ANY, SemaphoreList.of(s2, 1), SemaphoreList.of(s3, 1), onA, 0, copyA, 0, 16, 0);
        }

        @Override
        public void close() {
            for (AutoCloseable c : List.<AutoCloseable>of(onA, copyA, onB, s1, s2, s3, a, b, serverA, serverB)) {
                try {
                    c.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            host.release();
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "fifo={0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void threeStagesAcrossTwoServersCarryBothMachinesQueueAxes(boolean fifo) {
        // FIFO servers hold operations until their waits are reached (stage 3 is submitted first)
        try (TwoServers p = new TwoServers(fifo)) {
            assertEquals(MACHINE_A, dev.ortho.hal.remote.internal.client.ClientProbe.machine(p.a));
            assertEquals(MACHINE_B, dev.ortho.hal.remote.internal.client.ClientProbe.machine(p.b));
            p.submit(true); // stage 3 first, stage 1 held by the host: nothing has run when all are submitted
            assertEquals(0, p.s3.query());
            p.host.signal(1);
            p.s3.await(1, GUARD);
            assertArrayEquals(new int[] {22, 22, 22, 22}, ints(p.onB));
            assertArrayEquals(new int[] {11, 11, 11, 11}, ints(p.copyA));
            Frontier atB = new Frontier(8);
            assertTrue(p.s2.frontierAt(1, atB), "B's signal carries a frontier");
            List<Integer> machines = machines(atB);
            assertTrue(machines.contains(MACHINE_A), "B's queue imported A's axis: " + atB);
            assertTrue(machines.contains(MACHINE_B), "B's own axis: " + atB);
            Frontier atA = new Frontier(8);
            assertTrue(p.s3.frontierAt(1, atA));
            assertTrue(atA.dominates(atB), "stage 3 knows all of stage 2's past: " + atA + " vs " + atB);
        }
    }

    @Test
    void relayingTakesOneSignalFramePerHopAndNoClientCall(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path jfr = dir.resolve("relay.jfr");
        String peerA;
        String peerB;
        try (TwoServers p = new TwoServers(false); jdk.jfr.Recording recording = new jdk.jfr.Recording()) {
            peerA = "127.0.0.1:" + p.serverA.server.address().getPort();
            peerB = "127.0.0.1:" + p.serverB.server.address().getPort();
            p.submit(false);
            recording.enable(dev.ortho.hal.trace.RemoteFrameEvent.NAME).withoutThreshold();
            recording.start();
            p.host.signal(1); // everything after this is the servers' and the client's I/O threads' doing
            p.s3.await(1, GUARD);
            recording.stop();
            recording.dump(jfr);
            assertArrayEquals(new int[] {11, 11, 11, 11}, ints(p.copyA));
        }
        List<jdk.jfr.consumer.RecordedEvent> frames = jdk.jfr.consumer.RecordingFile.readAllEvents(jfr).stream()
                .filter(e -> e.getEventType().getName().equals(dev.ortho.hal.trace.RemoteFrameEvent.NAME)).toList();
        // the host's signal and B's stage-2 report relayed to A, A's stage-1 report relayed to B: one frame each
        assertEquals(2, count(frames, peerA, Protocol.SEMAPHORE_SIGNAL), frames.toString());
        assertEquals(1, count(frames, peerB, Protocol.SEMAPHORE_SIGNAL), frames.toString());
        assertTrue(frames.stream().allMatch(e -> e.getBoolean("oneWay")), "no call waited on a server: " + frames);
        assertTrue(frames.stream().allMatch(e -> e.getInt("opcode") == Protocol.SEMAPHORE_SIGNAL
                || e.getInt("opcode") == Protocol.RELEASE), "only relays (and releases of imports): " + frames);
    }

    private static long count(List<jdk.jfr.consumer.RecordedEvent> frames, String peer, int opcode) {
        return frames.stream().filter(e -> e.getString("peer").contains(peer) && e.getInt("opcode") == opcode).count();
    }

    @Test
    void aFailedFirstStageFailsTheOthersWithItsStatus() {
        try (TwoServers p = new TwoServers(false)) {
            p.submit(false);
            p.host.fail(new StatusException(StatusCode.DATA_LOSS, "stage 1 input lost"));
            for (Semaphore s : new Semaphore[] {p.s3, p.s2, p.s1}) {
                StatusException e = assertThrows(StatusException.class, () -> s.await(1, GUARD));
                assertEquals(StatusCode.DATA_LOSS, e.code(), s + ": " + e);
                assertTrue(e.getMessage().contains("stage 1 input lost"), e.getMessage());
            }
            assertArrayEquals(new int[] {0, 0, 0, 0}, ints(p.onB), "stage 2 never ran");
        }
    }

    @Test
    void aClientLeavingWorkHandedToTheDeviceIsCleanedUp() throws Exception {
        try (Loopback server = Loopback.startLocalTask(MACHINE_A, false, o -> o)) {
            TimelineSemaphore never = new TimelineSemaphore("never", 0);
            Device device = server.connect();
            Semaphore own = device.createSemaphore(0);
            Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
            for (int i = 1; i <= 20; i++) { // held by the device's queue: one waits for the host, the rest behind it
                device.queueFill(ANY, SemaphoreList.of(i == 1 ? never : own, i == 1 ? 1 : i - 1),
                        SemaphoreList.of(own, i), buffer, 0, 16, i, 4, 0);
            }
            buffer.close();
            own.close();
            device.close(); // disconnects with 20 operations waiting in the served device
            dev.ortho.hal.remote.internal.transport.HangGuard.await(() -> server.server.sessionCount() == 0
                    && server.cpu.liveDevices() == 0, "the disconnected session and its device closed",
                    server.server::diagnostics);
            assertEquals(0, server.server.sessionCount());
            assertEquals(0, server.cpu.liveDevices(), "the served device closed: nothing waits for the client");
            never.release();
        }
    }

    @Test
    void twoServersAnnouncingOneMachineIndexAreNotBothConnected() {
        try (Loopback first = Loopback.startLocalTask(33, false, o -> o);
                Loopback second = Loopback.startLocalTask(33, false, o -> o)) {
            Device one = first.connect();
            Device again = first.connect(); // the same server twice is fine
            StatusException e = assertThrows(StatusException.class, second::connect);
            assertEquals(StatusCode.FAILED_PRECONDITION, e.code());
            assertTrue(e.getMessage().contains("machine index 33"), e.getMessage());
            one.close();
            assertThrows(StatusException.class, second::connect); // one device of the first is still open
            again.close();
            second.connect().close();
        }
    }

    @Test
    void aVersion3ClientIsRefusedWithIncompatible() throws Exception {
        try (Loopback server = Loopback.startLocalTask(MACHINE_A, false, o -> o);
                RawClient raw = new RawClient(server.server.address().getPort())) {
            raw.send(dev.ortho.hal.remote.internal.protocol.FrameWriter.frame(Protocol.HELLO, 1)
                    .putI32(Protocol.MAGIC).putI32(3).finish());
            dev.ortho.hal.remote.internal.protocol.FrameReader reply = raw.read();
            assertEquals(StatusCode.INCOMPATIBLE.value(), reply.i32("status"));
            String message = reply.string("message");
            assertTrue(message.contains("version 3") && message.contains("version " + Protocol.VERSION), message);
            assertTrue(raw.closedByServer());
        }
    }

    private static List<Integer> machines(Frontier frontier) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < frontier.size(); i++) {
            out.add(Axis.machine(frontier.axisAt(i)));
        }
        return out;
    }

    private static int[] ints(Buffer buffer) {
        MemorySegment bytes = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, bytes);
        return bytes.toArray(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN));
    }
}
