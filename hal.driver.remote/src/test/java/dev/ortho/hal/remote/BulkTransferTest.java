package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.MappedMemory;
import dev.ortho.hal.MemoryAccess;
import java.lang.foreign.MemorySegment;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Transfers larger than the socket buffers and the transfer chunk. Regression: a sender that
 * found the socket full handed the rest to the I/O loop while still holding the write lock, so
 * the loop never wrote and the connection stalled until the liveness deadline failed it.
 */
class BulkTransferTest {
    @Test
    void twentyMegabytesGoOutAndComeBackIntact() {
        int size = 20 << 20;
        byte[] data = new byte[size];
        new Random(7).nextBytes(data);
        try (Device device = Loopback.shared().connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), size)) {
            buffer.write(0, MemorySegment.ofArray(data));
            byte[] back = new byte[size];
            buffer.read(0, MemorySegment.ofArray(back));
            assertEquals(-1, java.util.Arrays.mismatch(data, back));
            try (MappedMemory mapping = buffer.map(MemoryAccess.READ | MemoryAccess.WRITE, 1 << 20, 9 << 20)) {
                assertEquals(data[(1 << 20) + 12345], mapping.contents().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 12345));
                mapping.contents().fill((byte) 3);
                mapping.flush(0, Buffer.WHOLE_BUFFER);
            }
            buffer.read(0, MemorySegment.ofArray(back));
            assertEquals(data[(1 << 20) - 1], back[(1 << 20) - 1]);
            assertEquals(3, back[(1 << 20) + 5_000_000]);
            assertEquals(data[10 << 20], back[10 << 20]);
        }
    }

    /**
     * Issue 18: large chunks are written from the caller's memory and land straight in the
     * server's buffer (and read replies straight in the caller's target) where that memory allows
     * it (a {@code byte[]} or native segment), else through a frame as before (an {@code int[]}
     * segment, a read-only source, a read into memory confined to the caller's
     * thread); sizes around the 64 KiB threshold and the 4 MiB chunk, at an
     * odd offset.
     */
    @Test
    void everyKindOfHostMemoryAndSizeAroundTheThresholdsArrivesIntact() {
        int capacity = (9 << 20) + 64;
        try (Device device = Loopback.shared().connect();
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), capacity);
                java.lang.foreign.Arena shared = java.lang.foreign.Arena.ofShared();
                java.lang.foreign.Arena confined = java.lang.foreign.Arena.ofConfined()) {
            int seed = 0;
            for (int size : new int[] {65_536 - 40, 65_536 - 20, 65_536, 65_537, (4 << 20) + 3, (9 << 20) + 7}) {
                for (String kind : new String[] {"bytes", "native", "confined", "ints", "read-only"}) {
                    byte[] data = new byte[size];
                    new Random(++seed).nextBytes(data);
                    MemorySegment source = switch (kind) {
                        case "native" -> shared.allocate(size).copyFrom(MemorySegment.ofArray(data));
                        case "confined" -> confined.allocate(size).copyFrom(MemorySegment.ofArray(data));
                        case "ints" -> MemorySegment.ofArray(new int[(size + 3) / 4]).asSlice(0, size)
                                .copyFrom(MemorySegment.ofArray(data));
                        case "read-only" -> MemorySegment.ofArray(data.clone()).asReadOnly();
                        default -> MemorySegment.ofArray(data.clone());
                    };
                    buffer.write(5, source);
                    MemorySegment back = switch (kind) {
                        case "native" -> shared.allocate(size);
                        case "confined" -> confined.allocate(size); // only this thread may fill it
                        case "ints" -> MemorySegment.ofArray(new int[(size + 3) / 4]).asSlice(0, size);
                        default -> MemorySegment.ofArray(new byte[size]);
                    };
                    buffer.read(5, back);
                    assertEquals(-1, back.mismatch(MemorySegment.ofArray(data)), kind + " " + size + " bytes");
                }
            }
        }
    }

    /**
     * Issue 18: the client tells its transport whether a report is owed to nobody receiving
     * (a semaphore an operation will still signal), so the loop watches the socket again at once
     * after a waiting caller returns; once the report arrived, nothing is owed (callers waiting
     * back to back do not wake the loop).
     */
    @Test
    void aSemaphoreAnOperationWillSignalMakesTheClientExpectFramesUntilItsReportArrives() {
        try (Device device = Loopback.shared().connect()) {
            dev.ortho.hal.Semaphore gate = device.createSemaphore(0);
            dev.ortho.hal.Semaphore done = device.createSemaphore(0);
            try {
                assertEquals(false, dev.ortho.hal.remote.internal.client.ClientProbe.expectsFrames(device));
                java.util.concurrent.CompletableFuture<Long> callback = new java.util.concurrent.CompletableFuture<>();
                done.addTimepoint(1, (semaphore, reached, failure) -> callback.complete(reached));
                device.queueBarrier(-1, dev.ortho.hal.SemaphoreList.of(gate, 1), dev.ortho.hal.SemaphoreList.of(done, 1), 0);
                assertEquals(true, dev.ortho.hal.remote.internal.client.ClientProbe.expectsFrames(device),
                        "the barrier's signal of done is owed to a timepoint callback");
                gate.signal(1);
                assertEquals(1L, callback.join());
                // the callback runs inside the report's signal, just before that settles
                dev.ortho.hal.remote.internal.transport.HangGuard.await(
                        () -> !dev.ortho.hal.remote.internal.client.ClientProbe.expectsFrames(device),
                        "the report settles what was owed");
            } finally {
                gate.release();
                done.release();
            }
        }
    }
}
