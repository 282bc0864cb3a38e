package dev.ortho.hal.remote.internal.server;

import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Valid request frames of every client opcode, and their mutations, for the server's fuzz
 * tests (in-process: {@link ServerSessionFuzzTest}; over TCP: {@code HostileFramesTest}). The
 * frames name the handles {@link #setUp()} creates: semaphore {@value #SEMAPHORE}, buffers
 * {@value #BUFFER} (64 bytes) and {@value #LARGE_BUFFER} ({@value #LARGE} bytes, for frames a
 * transport receives straight into the buffer), cache {@value #CACHE}, event {@value #EVENT};
 * executable {@value #EXECUTABLE} and command buffer {@value #COMMAND_BUFFER_HANDLE} are made by
 * the samples themselves when they get through.
 */
public final class FuzzFrames {
    public static final long SEMAPHORE = 100;
    public static final long BUFFER = 101;
    public static final long CACHE = 102;
    public static final long ALLOCA = 103;
    public static final long COMMAND_BUFFER_HANDLE = 104;
    public static final long EVENT = 105;
    public static final long EXECUTABLE = 106;
    public static final long LARGE_BUFFER = 107;
    /** Bytes of {@link #LARGE_BUFFER}: a write of all of it is a frame a TCP server receives into the buffer. */
    public static final int LARGE = 80 << 10;

    private FuzzFrames() {
    }

    /** The body (after the length prefix) of {@code writer}'s frame, as bytes. */
    public static byte[] body(FrameWriter writer) {
        ByteBuffer frame = writer.finish().position(Protocol.LENGTH_BYTES).slice();
        byte[] bytes = new byte[frame.remaining()];
        frame.get(bytes);
        return bytes;
    }

    /** Creates the handles the samples name (bodies, in order). */
    public static List<byte[]> setUp() {
        List<byte[]> frames = new ArrayList<>();
        frames.add(body(FrameWriter.frame(Protocol.SEMAPHORE_CREATE, 10).putI64(SEMAPHORE).putI64(0).putU8(0)));
        frames.add(body(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 11).putI64(BUFFER).putI32(0x46).putI32(7)
                .putI32(0).putI64(0).putI64(0).putI64(64)));
        frames.add(body(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 12).putI64(LARGE_BUFFER).putI32(0x46).putI32(7)
                .putI32(0).putI64(0).putI64(0).putI64(LARGE)));
        frames.add(body(FrameWriter.frame(Protocol.CACHE_CREATE, 13).putI64(CACHE).putString("c")));
        frames.add(body(FrameWriter.frame(Protocol.EVENT_CREATE, 14).putI64(EVENT)));
        return frames;
    }

    private static FrameWriter queue(int opcode, long id) {
        // affinity any, one wait (the semaphore at 0: reached), one signal (the semaphore at 1)
        return FrameWriter.frame(opcode, id).putI64(-1).putI32(1).putI64(SEMAPHORE).putI64(0).putI32(1)
                .putI64(SEMAPHORE).putI64(1);
    }

    /** One valid frame of every client opcode (bodies), the large writes last. */
    public static List<byte[]> samples() {
        List<FrameWriter> frames = new ArrayList<>();
        frames.add(FrameWriter.frame(Protocol.PING, 2));
        frames.add(FrameWriter.frame(Protocol.SEMAPHORE_CREATE, 2).putI64(SEMAPHORE).putI64(0).putU8(3));
        frames.add(FrameWriter.frame(Protocol.SEMAPHORE_IMPORT, 2).putI64(108).putI64(5));
        frames.add(FrameWriter.frame(Protocol.SEMAPHORE_SIGNAL, 3).putI64(SEMAPHORE).putI64(1).putU8(1).putU8(0)
                .putI64(7).putI64(9));
        frames.add(FrameWriter.frame(Protocol.SEMAPHORE_FAIL, 3).putI64(SEMAPHORE).putI32(10).putString("x"));
        frames.add(FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 4).putI64(BUFFER).putI32(0x46).putI32(7).putI32(0)
                .putI64(0).putI64(0).putI64(64));
        frames.add(FrameWriter.frame(Protocol.BUFFER_READ, 5).putI64(BUFFER).putI64(0).putI64(16));
        frames.add(FrameWriter.frame(Protocol.BUFFER_WRITE, 6).putI64(BUFFER).putI64(8).putBytes(new byte[8], 0, 8));
        frames.add(FrameWriter.frame(Protocol.MAPPING_WRITE_BACK, 6).putI64(BUFFER).putI64(0)
                .putBytes(new byte[16], 0, 16));
        frames.add(FrameWriter.frame(Protocol.BUFFER_FILL, 7).putI64(BUFFER).putI64(0).putI64(64).putI32(1).putI32(4));
        frames.add(FrameWriter.frame(Protocol.ALLOCATOR_COMPATIBILITY, 7).putI32(0x46).putI32(7).putI32(0).putI64(0)
                .putI64(0).putI64(64));
        frames.add(FrameWriter.frame(Protocol.ALLOCATOR_STATISTICS, 7));
        frames.add(FrameWriter.frame(Protocol.ALLOCATOR_TRIM, 7));
        frames.add(FrameWriter.frame(Protocol.QUERY_I64, 8).putString("hal.device").putString("id"));
        frames.add(FrameWriter.frame(Protocol.EVENT_CREATE, 8).putI64(EVENT));
        frames.add(FrameWriter.frame(Protocol.CACHE_CREATE, 9).putI64(CACHE).putString("c"));
        frames.add(FrameWriter.frame(Protocol.CACHE_CAN_PREPARE, 9).putI64(CACHE).putString("vmvx-bytecode-fb"));
        byte[] module = new byte[96];
        new Random(7).nextBytes(module);
        frames.add(FrameWriter.frame(Protocol.CACHE_PREPARE, 9).putI64(CACHE).putI64(EXECUTABLE)
                .putString("vmvx-bytecode-fb").putBytes(module, 0, module.length).putI32(1).putI32(5));
        frames.add(FrameWriter.frame(Protocol.CACHE_PREPARE, 9).putI64(CACHE).putI64(EXECUTABLE)
                .putString("jvm-static").putBytes(module, 0, module.length).putI32(0));
        frames.add(queue(Protocol.QUEUE_FILL, 10).putI64(BUFFER).putI64(0).putI64(16).putI32(3).putI32(4).putI64(0));
        frames.add(queue(Protocol.QUEUE_UPDATE, 10).putBytes(new byte[16], 0, 16).putI64(BUFFER).putI64(16).putI64(0));
        frames.add(queue(Protocol.QUEUE_COPY, 11).putI64(BUFFER).putI64(0).putI64(BUFFER).putI64(32).putI64(16)
                .putI64(0));
        frames.add(queue(Protocol.QUEUE_ALLOCA, 12).putI64(ALLOCA).putI32(0x30).putI32(7).putI32(0).putI64(0)
                .putI64(0).putI64(128).putI64(0));
        frames.add(queue(Protocol.QUEUE_DEALLOCA, 12).putI64(ALLOCA).putI64(0));
        frames.add(FrameWriter.frame(Protocol.COMMAND_BUFFER, 13).putI64(COMMAND_BUFFER_HANDLE).putI32(0).putI32(3)
                .putI64(-1).putI32(2).putI32(6)
                .putU8(Protocol.CMD_BEGIN_DEBUG_GROUP).putString("g")
                .putU8(Protocol.CMD_FILL).putU8(Protocol.REF_SLOT).putI32(1).putI64(0).putI64(4).putI32(0).putI32(4)
                .putI32(0)
                .putU8(Protocol.CMD_BARRIER).putI32(1).putI32(1).putI32(0).putI32(1).putI32(1).putI32(2).putI32(1)
                .putI32(1).putI32(2).putU8(Protocol.REF_SLOT).putI32(0).putI64(0).putI64(8)
                .putU8(Protocol.CMD_UPDATE).putBytes(new byte[8], 0, 8).putU8(Protocol.REF_DIRECT).putI64(BUFFER)
                .putI64(0).putI64(8).putI32(0)
                .putU8(Protocol.CMD_ADVISE).putU8(Protocol.REF_SLOT).putI32(1).putI64(0).putI64(4).putI64(0).putI64(0)
                .putI64(0)
                .putU8(Protocol.CMD_END_DEBUG_GROUP));
        frames.add(queue(Protocol.QUEUE_EXECUTE, 14).putI64(COMMAND_BUFFER_HANDLE).putI32(2).putI64(BUFFER).putI64(0)
                .putI64(64).putI64(BUFFER).putI64(0).putI64(64).putI64(0));
        frames.add(queue(Protocol.QUEUE_DISPATCH, 14).putI64(EXECUTABLE).putI32(0).putI32(1).putI32(1).putI32(1)
                .putI32(1).putI32(1).putI32(1).putU8(Protocol.REF_NONE).putI32(0).putBytes(new byte[8], 0, 8)
                .putI32(1).putU8(Protocol.REF_DIRECT).putI64(BUFFER).putI64(0).putI64(64).putI64(0));
        frames.add(queue(Protocol.QUEUE_BARRIER, 15).putI64(0));
        frames.add(FrameWriter.frame(Protocol.QUEUE_FLUSH, 15).putI64(-1));
        frames.add(FrameWriter.frame(Protocol.RELEASE, 15).putI64(ALLOCA));
        frames.add(FrameWriter.frame(Protocol.BUFFER_WRITE, 16, LARGE + 32).putI64(LARGE_BUFFER).putI64(0)
                .putBytes(new byte[LARGE], 0, LARGE));
        frames.add(FrameWriter.frame(Protocol.MAPPING_WRITE_BACK, 16, LARGE + 32).putI64(LARGE_BUFFER).putI64(0)
                .putBytes(new byte[LARGE], 0, LARGE));
        List<byte[]> bodies = new ArrayList<>();
        for (FrameWriter frame : frames) {
            bodies.add(body(frame));
        }
        return bodies;
    }

    /**
     * The status a server frame (length prefix included) carries if it is one a client bug can
     * never cause, INTERNAL or UNKNOWN (an exception inside the server, not a refused request),
     * as "code: message"; else null.
     */
    public static String serverFault(ByteBuffer frame) {
        ByteBuffer body = frame.duplicate().order(java.nio.ByteOrder.LITTLE_ENDIAN);
        body.position(body.position() + Protocol.LENGTH_BYTES);
        dev.ortho.hal.remote.internal.protocol.FrameReader in = new dev.ortho.hal.remote.internal.protocol
                .FrameReader(body.slice().order(java.nio.ByteOrder.LITTLE_ENDIAN));
        int code;
        switch (in.opcode()) {
            case Protocol.REPLY, Protocol.ERROR -> code = in.i32("status");
            case Protocol.SEMAPHORE_FAILED, Protocol.BUFFER_FAILED -> {
                in.i64("handle");
                code = in.i32("status");
            }
            default -> {
                return null;
            }
        }
        if (code != dev.ortho.base.StatusCode.INTERNAL.value() && code != dev.ortho.base.StatusCode.UNKNOWN.value()) {
            return null;
        }
        return "opcode " + in.opcode() + " status " + code + ": " + in.string("message");
    }

    /**
     * {@code sample} with 1 to 4 bytes after the opcode set at random: a mutated request id, field
     * or length (mutating the opcode too would mostly test "unknown opcode").
     */
    public static byte[] mutate(byte[] sample, Random random) {
        byte[] mutated = sample.clone();
        for (int flips = 1 + random.nextInt(4); flips > 0; flips--) {
            int at = 4 + random.nextInt(Math.min(mutated.length - 4, 160)); // the fields, not the bulk data
            mutated[at] = (byte) (random.nextInt(4) == 0 ? 0xFF : random.nextInt(256));
        }
        return mutated;
    }
}
