package dev.ortho.hal.remote.internal.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.AllocatorStatistics;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.cpu.CpuDriverFactory;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.protocol.Challenge;
import dev.ortho.hal.remote.internal.protocol.FrameReader;
import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.RecordingTransport;
import dev.ortho.hal.remote.internal.transport.Transport;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A large {@code BUFFER_READ} is answered from the buffer's mapped memory ({@link Transport#sendLent});
 * a TCP write in progress when the connection closes gives that mapping back only as it lets go
 * of the write role, after the session's close task may have released every handle and closed
 * the device. This makes that interleaving deterministic: the transport below keeps the lent
 * payload past the close (as a writer inside a socket write does), the close task runs to the
 * end (device closed, session forgotten), and only then is the payload read and given back. The
 * bytes read must still be the buffer's (the mapping keeps its buffer, and the CPU heap frees a
 * mapped buffer's memory only when the last mapping closes: {@code MappedMemory}'s contract), and
 * giving it back must free the memory (the allocator's statistics balance).
 */
class LentReadAtCloseTest {
    private static final int LENGTH = 1 << 20;

    /** A transport whose writer is "inside a write" until the test says: lent payloads are kept. */
    private static final class HeldWriter extends RecordingTransport {
        final List<ByteBuffer> lentPayloads = new ArrayList<>();
        final List<Runnable> returns = new ArrayList<>();
        volatile StatusException closed;

        @Override
        public synchronized void sendLent(ByteBuffer head, ByteBuffer payload, Runnable returned) {
            frames.add(head);
            lentPayloads.add(payload);
            returns.add(returned);
        }

        synchronized FrameReader last() {
            ByteBuffer frame = frames.get(frames.size() - 1).duplicate().order(ByteOrder.LITTLE_ENDIAN);
            frame.position(Protocol.LENGTH_BYTES);
            return new FrameReader(frame.slice().order(ByteOrder.LITTLE_ENDIAN));
        }

        @Override
        public void close(StatusException reason) {
            closed = reason; // a writer holds the role: nothing lent comes back now
        }
    }

    private static ByteBuffer body(FrameWriter writer) {
        return writer.finish().position(Protocol.LENGTH_BYTES).slice();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local-sync", "local-task"})
    void aReadReplyStillBeingWrittenWhenTheSessionClosesReadsTheBuffersBytesAndFreesThemAfter(String driver) {
        DriverRegistry registry = new DriverRegistry();
        CpuDriverFactory cpu = CpuDrivers.builder().workerCount(1).localTaskFactory();
        registry.register(driver.equals("local-sync") ? CpuDrivers.builder().localSyncFactory() : cpu);
        Device[] served = new Device[1];
        AtomicInteger forgotten = new AtomicInteger();
        HeldWriter transport = new HeldWriter();
        byte[] token = "k".getBytes(StandardCharsets.UTF_8);
        ServerSession session = new ServerSession(transport, ServerOptions.defaults(token), () -> {
            served[0] = registry.createDevice(driver);
            return served[0];
        }, Runnable::run, s -> forgotten.incrementAndGet());
        session.onFrame(body(FrameWriter.frame(Protocol.HELLO, 1).putI32(Protocol.MAGIC).putI32(Protocol.VERSION)));
        FrameReader challenge = transport.last();
        assertEquals(0, challenge.i32("status"));
        ByteBuffer nonce = challenge.bytes("nonce");
        byte[] n = new byte[nonce.remaining()];
        nonce.get(n);
        byte[] proof = Challenge.prove(token, n);
        session.onFrame(body(FrameWriter.frame(Protocol.AUTH, 2).putU8(1).putBytes(proof, 0, proof.length)));
        assertEquals(0, transport.last().i32("status"), "authenticated");
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 3).putI64(101).putI32(0).putI32(0).putI32(0)
                .putI64(0).putI64(0).putI64(LENGTH)));
        assertEquals(0, transport.last().i32("status"), "allocated");
        byte[] contents = new byte[LENGTH];
        new Random(29).nextBytes(contents);
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_WRITE, 4, LENGTH + 32).putI64(101).putI64(0)
                .putBytes(contents, 0, LENGTH)));
        session.onFrame(body(FrameWriter.frame(Protocol.BUFFER_READ, 5).putI64(101).putI64(0).putI64(LENGTH)));
        assertEquals(1, transport.lentPayloads.size(), "answered from the mapped buffer");
        var allocator = served[0].allocator();

        session.close(new StatusException(StatusCode.UNAVAILABLE, "connection reset while writing"));
        assertEquals(1, forgotten.get(), "the close task ran to its end: handles released, device closed");
        assertNotNull(transport.closed);
        if (driver.equals("local-task")) {
            assertEquals(0, cpu.liveDevices(), "the served device closed");
        }

        // the writer's socket write goes on: the memory must still be the buffer's
        ByteBuffer payload = transport.lentPayloads.get(0);
        byte[] written = new byte[payload.remaining()];
        payload.duplicate().get(written);
        assertArrayEquals(contents, written, "the reply's bytes are the buffer's, not freed or reused memory");
        AllocatorStatistics before = allocator.statistics();
        assertEquals(before.bytesAllocated(), before.bytesFreed() + LENGTH, "the mapped buffer is not freed yet");
        transport.returns.get(0).run(); // the writer lets go of the role: the mapping comes back
        AllocatorStatistics after = allocator.statistics();
        assertEquals(after.bytesAllocated(), after.bytesFreed(), "freed once the mapping came back");
    }
}
