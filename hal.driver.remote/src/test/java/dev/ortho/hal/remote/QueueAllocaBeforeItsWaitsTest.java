package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.CommandBuffer;
import dev.ortho.hal.CommandBufferMode;
import dev.ortho.hal.CommandCategory;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command buffer recorded against a buffer whose queue allocation still waits, as programs
 * compiled by iree-compile do (alloca waiting on a fence, record, execute waiting on the
 * alloca's signal). On an asynchronous served device the buffer exists at once; before, the
 * server refused the recording ("its queue allocation is still waiting") and the device was lost.
 */
class QueueAllocaBeforeItsWaitsTest {
    private static final long ANY = Device.QUEUE_AFFINITY_ANY;
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(30)); // hang guard only

    @TempDir
    Path dir;

    @Test
    void aCommandBufferMayNameAnAllocationWhoseWaitsAreNotReached() throws Exception {
        DriverRegistry registry = new DriverRegistry();
        registry.register(CpuDrivers.builder().localTaskFactory());
        byte[] token = "alloca-before-waits".getBytes(StandardCharsets.UTF_8);
        Path tokenFile = dir.resolve("token.txt");
        Files.write(tokenFile, token);
        try (DeviceServer server = DeviceServer.start(() -> registry.createDevice("local-task://"),
                ServerOptions.defaults(token).withListen(new InetSocketAddress("127.0.0.1", 0), false));
                RemoteDriver driver = new RemoteDriver(name -> null);
                Device device = driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + server.address().getPort()
                        + "?token_file=" + tokenFile));
                Semaphore host = device.createSemaphore(0);
                Semaphore queue = device.createSemaphore(0)) {
            Buffer buffer = device.queueAlloca(ANY, SemaphoreList.of(host, 1), SemaphoreList.of(queue, 1),
                    BufferParams.hostLocal(), 16, 0);
            try (CommandBuffer commands = device.createCommandBuffer(CommandBufferMode.ONE_SHOT,
                    CommandCategory.ANY, ANY, 0)) {
                commands.begin();
                commands.fillBuffer(BufferRef.of(buffer, 0, 16), 0x01020304, 4, 0);
                commands.end();
                device.queueExecute(ANY, SemaphoreList.of(queue, 1), SemaphoreList.of(queue, 2), commands, null, 0);
            }
            host.signal(1); // only now may the allocation commit
            queue.await(2, GUARD);
            byte[] contents = new byte[16];
            buffer.read(0, MemorySegment.ofArray(contents));
            byte[] expected = new byte[16];
            for (int i = 0; i < 16; i += 4) {
                expected[i] = 4;
                expected[i + 1] = 3;
                expected[i + 2] = 2;
                expected[i + 3] = 1;
            }
            assertArrayEquals(expected, contents);
            buffer.release();
        }
    }
}
