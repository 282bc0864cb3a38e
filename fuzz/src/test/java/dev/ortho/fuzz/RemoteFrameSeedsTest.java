package dev.ortho.fuzz;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.ortho.hal.remote.internal.protocol.FrameWriter;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The seed corpus of {@link RemoteFrameFuzzTest}: valid request sequences in its input layout
 * (2-byte little-endian length, frame body), built with the protocol's own writer. The test
 * checks the committed files match; {@code -Dfuzz.writeSeeds=true} rewrites them after a
 * protocol change.
 */
class RemoteFrameSeedsTest {
    static final Path DIR = Path.of("src/test/resources/dev/ortho/fuzz/RemoteFrameFuzzTestInputs/frames");

    static byte[] sequence(FrameWriter... frames) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (FrameWriter w : frames) {
            ByteBuffer body = RemoteFrameFuzzTest.body(w);
            out.write(body.remaining() & 0xFF);
            out.write(body.remaining() >>> 8);
            byte[] bytes = new byte[body.remaining()];
            body.get(bytes);
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    static Map<String, byte[]> seeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        seeds.put("semaphores", sequence(
                FrameWriter.frame(Protocol.SEMAPHORE_CREATE, 2).putI64(100).putI64(0).putU8(3),
                FrameWriter.frame(Protocol.SEMAPHORE_SIGNAL, 3).putI64(100).putI64(1).putU8(1).putU8(0)
                        .putI64(7).putI64(9),
                FrameWriter.frame(Protocol.SEMAPHORE_FAIL, 4).putI64(100).putI32(10).putString("x"),
                FrameWriter.frame(Protocol.RELEASE, 5).putI64(100)));
        seeds.put("buffers", sequence(
                FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 4).putI64(101).putI32(0x46).putI32(7).putI32(0)
                        .putI64(0).putI64(0).putI64(64),
                FrameWriter.frame(Protocol.BUFFER_WRITE, 6).putI64(101).putI64(8).putBytes(new byte[8], 0, 8),
                FrameWriter.frame(Protocol.BUFFER_FILL, 7).putI64(101).putI64(0).putI64(64).putI32(1).putI32(4),
                FrameWriter.frame(Protocol.BUFFER_READ, 5).putI64(101).putI64(0).putI64(16),
                FrameWriter.frame(Protocol.QUERY_I64, 8).putString("hal.device").putString("id"),
                FrameWriter.frame(Protocol.CACHE_CREATE, 9).putI64(102).putString("c")));
        seeds.put("queue", sequence(
                FrameWriter.frame(Protocol.SEMAPHORE_CREATE, 2).putI64(100).putI64(0).putU8(3),
                FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 4).putI64(101).putI32(0x46).putI32(7).putI32(0)
                        .putI64(0).putI64(0).putI64(64),
                FrameWriter.frame(Protocol.QUEUE_FILL, 10).putI64(-1).putI32(0).putI32(1).putI64(100).putI64(2)
                        .putI64(101).putI64(0).putI64(16).putI32(3).putI32(4).putI64(0),
                FrameWriter.frame(Protocol.QUEUE_COPY, 11).putI64(-1).putI32(1).putI64(100).putI64(2).putI32(0)
                        .putI64(101).putI64(0).putI64(101).putI64(32).putI64(16).putI64(0),
                FrameWriter.frame(Protocol.QUEUE_ALLOCA, 12).putI64(-1).putI32(0).putI32(0).putI64(103)
                        .putI32(0x30).putI32(7).putI32(0).putI64(0).putI64(0).putI64(128).putI64(0),
                FrameWriter.frame(Protocol.RELEASE, 15).putI64(103)));
        seeds.put("command_buffer", sequence(
                FrameWriter.frame(Protocol.BUFFER_ALLOCATE, 4).putI64(101).putI32(0x46).putI32(7).putI32(0)
                        .putI64(0).putI64(0).putI64(64),
                FrameWriter.frame(Protocol.COMMAND_BUFFER, 13).putI64(104).putI32(0).putI32(3).putI64(-1)
                        .putI32(2).putI32(3).putU8(Protocol.CMD_FILL).putU8(Protocol.REF_SLOT).putI32(1).putI64(0)
                        .putI64(4).putI32(0).putI32(4).putI32(0).putU8(Protocol.CMD_BARRIER).putI32(1).putI32(1)
                        .putI32(0).putI32(1).putI32(1).putI32(2).putI32(1).putI32(1).putI32(2)
                        .putU8(Protocol.REF_SLOT).putI32(0).putI64(0).putI64(8).putU8(Protocol.CMD_ADVISE)
                        .putU8(Protocol.REF_SLOT).putI32(1).putI64(0).putI64(4).putI64(0).putI64(0).putI64(0),
                FrameWriter.frame(Protocol.QUEUE_EXECUTE, 14).putI64(-1).putI32(0).putI32(0).putI64(104)
                        .putI32(2).putI64(101).putI64(0).putI64(64).putI64(101).putI64(0).putI64(64).putI64(0)));
        return seeds;
    }

    @Test
    void committedSeedsAreTheGeneratorsOutput() throws IOException {
        boolean write = Boolean.getBoolean("fuzz.writeSeeds");
        for (Map.Entry<String, byte[]> seed : seeds().entrySet()) {
            Path file = DIR.resolve(seed.getKey());
            if (write) {
                Files.createDirectories(DIR);
                Files.write(file, seed.getValue());
            }
            assertArrayEquals(seed.getValue(), Files.readAllBytes(file), file + " is stale: rerun with -Dfuzz.writeSeeds=true");
        }
    }

}
