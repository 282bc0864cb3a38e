package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.spi.TimelineSemaphore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Seed 002's submit-before-signal pipeline across devices: later stages are submitted to one
 * server before the stage they wait for is submitted to another, and everything completes once
 * the host signals, without the client waiting on anything in between.
 */
class PipelineTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));

    @Test
    void threeStagesAcrossTwoServersRunInOrderOnceTheHostSignals() {
        try (Loopback serverA = Loopback.start(); Loopback serverB = Loopback.start();
                Device a = serverA.connect(); Device b = serverB.connect();
                Semaphore s = a.createSemaphore(0);
                Buffer onA = a.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                Buffer onB = b.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                Buffer copyB = b.allocator().allocateBuffer(BufferParams.hostLocal(), 16)) {
            TimelineSemaphore host = new TimelineSemaphore("host", 0);
            // stages 2 and 3 on B first: they wait on A's semaphore, which nobody has signalled yet
            b.queueFill(ANY, SemaphoreList.of(s, 1), SemaphoreList.of(s, 2), onB, 0, 16, 22, 4, 0);
            b.queueCopy(ANY, SemaphoreList.of(s, 2), SemaphoreList.of(s, 3), onB, 0, copyB, 0, 16, 0);
            // stage 1 on A, held by the host
            a.queueFill(ANY, SemaphoreList.of(host, 1), SemaphoreList.of(s, 1), onA, 0, 16, 11, 4, 0);
            assertEquals(0, s.query());
            host.signal(1);
            s.await(3, GUARD);
            assertArrayEquals(new int[] {11, 11, 11, 11}, ints(onA));
            assertArrayEquals(new int[] {22, 22, 22, 22}, ints(copyB));
            host.release();
        }
    }

    @Test
    void aRemoteDeviceSignalsAndWaitsOnHostSemaphores() {
        try (Device device = Loopback.shared().connect(); Buffer buffer = device.allocator()
                .allocateBuffer(BufferParams.hostLocal(), 4)) {
            TimelineSemaphore in = new TimelineSemaphore("in", 0);
            TimelineSemaphore out = new TimelineSemaphore("out", 0);
            device.queueFill(ANY, SemaphoreList.of(in, 5), SemaphoreList.of(out, 7), buffer, 0, 4, 9, 4, 0);
            in.signal(5);
            out.await(7, GUARD);
            assertArrayEquals(new int[] {9}, ints(buffer));
            in.fail(new StatusException(StatusCode.DATA_LOSS, "upstream lost"));
            device.queueBarrier(ANY, SemaphoreList.of(in, 6), SemaphoreList.of(out, 8), 0);
            StatusException e = org.junit.jupiter.api.Assertions.assertThrows(StatusException.class,
                    () -> out.await(8, GUARD));
            assertEquals(StatusCode.DATA_LOSS, e.code());
            in.release();
            out.release();
        }
    }

    @Test
    void importedSemaphoresAreReleasedOnceTheirWaitsAndSignalsSettle() {
        try (Device device = Loopback.shared().connect()) {
            for (int i = 0; i < 200; i++) { // a fresh host semaphore per step, as fences per invocation do
                TimelineSemaphore in = new TimelineSemaphore("in " + i, 0);
                TimelineSemaphore out = new TimelineSemaphore("out " + i, 0);
                device.queueBarrier(ANY, SemaphoreList.of(in, 1), SemaphoreList.of(out, 1), 0);
                in.signal(1);
                out.await(1, GUARD);
                in.release();
                out.release();
            }
            // the last report may still be in flight
            dev.ortho.hal.remote.internal.transport.HangGuard.await(() -> imports(device) == 0,
                    "every imported semaphore was settled");
            assertEquals(0, imports(device));
        }
    }

    private static int imports(Device device) {
        return dev.ortho.hal.remote.internal.client.ClientProbe.imports(device);
    }

    private static int[] ints(Buffer buffer) {
        MemorySegment bytes = MemorySegment.ofArray(new byte[(int) buffer.byteLength()]);
        buffer.read(0, bytes);
        return bytes.toArray(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN));
    }
}
