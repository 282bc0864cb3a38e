package dev.ortho.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import java.io.File;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Hashtable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The remote HAL inside the framework: a ConfigAdmin configuration starts the device server
 * component, the {@code remote} driver service reaches it through the DriverRegistry, and
 * deleting the configuration stops it.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RemoteDeviceServerIT {
    private static final String PID = "dev.ortho.hal.remote.server";

    @Inject
    private ConfigurationAdmin configurations;

    @Inject
    private DriverRegistry drivers;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    /** Connects, retrying while the component is still activating (hang guard: 60 s). */
    private Device connect(String uri) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return drivers.createDevice(uri);
            } catch (StatusException e) {
                if (e.code() != StatusCode.UNAVAILABLE || System.nanoTime() > deadline) {
                    throw e;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }

    @Test
    public void aConfiguredServerServesRemoteDevicesUntilItsConfigurationIsDeleted() throws Exception {
        File token = File.createTempFile("ortho-it-token", ".txt");
        token.deleteOnExit();
        Files.writeString(token.toPath(), "it-secret", StandardCharsets.UTF_8);
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("listen", "127.0.0.1:" + port);
        properties.put("device", "local-sync");
        properties.put("token.file", token.getAbsolutePath());
        org.osgi.service.cm.Configuration configuration = configurations.getConfiguration(PID, "?");
        configuration.update(properties);
        String uri = "remote://127.0.0.1:" + port + "?token_file=" + token.getAbsolutePath();
        try (Device device = connect(uri);
                Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 8);
                Semaphore done = device.createSemaphore(0)) {
            device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(done, 1), buffer, 0, 8, 0x0A0B0C0D, 4, 0);
            done.await(1, Timeout.of(Duration.ofSeconds(60)));
            byte[] bytes = new byte[8];
            buffer.read(0, MemorySegment.ofArray(bytes));
            assertArrayEquals(new byte[] {0x0D, 0x0C, 0x0B, 0x0A, 0x0D, 0x0C, 0x0B, 0x0A}, bytes);
        }
        configuration.delete();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        StatusException refused = null;
        while (refused == null && System.nanoTime() < deadline) {
            try (Device stillThere = drivers.createDevice(uri)) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // deactivation is asynchronous
            } catch (StatusException e) {
                refused = e;
            }
        }
        assertTrue("the server still accepts clients after its configuration was deleted", refused != null);
        assertEquals(StatusCode.UNAVAILABLE, refused.code());
    }
}
