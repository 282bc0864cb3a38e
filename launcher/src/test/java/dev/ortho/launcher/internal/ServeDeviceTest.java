package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.Device;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableCache;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.CpuDrivers;
import dev.ortho.hal.cpu.kernel.JvmStaticFormat;
import dev.ortho.hal.remote.DeviceServer;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code ortho serve-device}: a remote client gets the same results as the local device it serves. */
class ServeDeviceTest {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private final DriverRegistry registry = new DriverRegistry();

    ServeDeviceTest() {
        registry.register(CpuDrivers.builder().localSyncFactory());
        registry.register(new RemoteDriverFactory(name -> null));
    }

    /** mul_i32 of two vectors through the device's queue, read back. */
    private static int[] multiply(Device device, int[] x, int[] y) {
        try (ExecutableCache cache = device.createExecutableCache("t");
                Executable executable = cache.prepareExecutable(new ExecutableParams(JvmStaticFormat.FORMAT,
                        JvmStaticFormat.encode(CpuDrivers.BUILTIN_KERNELS), new int[0]));
                Buffer a = device.allocator().allocateBuffer(BufferParams.hostLocal(), x.length * 4L);
                Buffer b = device.allocator().allocateBuffer(BufferParams.hostLocal(), y.length * 4L);
                Buffer c = device.allocator().allocateBuffer(BufferParams.hostLocal(), x.length * 4L);
                Semaphore done = device.createSemaphore(0)) {
            a.write(0, MemorySegment.ofArray(x));
            b.write(0, MemorySegment.ofArray(y));
            MemorySegment n = MemorySegment.ofArray(new int[] {x.length});
            device.queueDispatch(-1, SemaphoreList.empty(), SemaphoreList.of(done, 1), executable,
                    executable.lookupFunction("mul_i32"), DispatchConfig.ofCount(x.length, 1, 1), n,
                    new BufferRef[] {BufferRef.of(a), BufferRef.of(b), BufferRef.of(c)}, 0);
            done.await(1, Timeout.of(Duration.ofSeconds(60)));
            MemorySegment result = MemorySegment.ofArray(new byte[x.length * 4]);
            c.read(0, result);
            return result.toArray(I32);
        }
    }

    /** A running {@code serve-device}: the server once started, what stops it, its exit code. */
    private record Serving(CompletableFuture<DeviceServer> started, CountDownLatch stop, CompletableFuture<Integer> exit) {
    }

    /** Runs {@code serve-device args} on another thread until {@link Serving#stop} counts down. */
    private Serving serve(List<String> args) {
        CompletableFuture<DeviceServer> started = new CompletableFuture<>();
        CountDownLatch stop = new CountDownLatch(1);
        ServeDevice command = new ServeDevice(registry, server -> {
            started.complete(server);
            try {
                stop.await(120, TimeUnit.SECONDS); // hang guard only
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return new Serving(started, stop, CompletableFuture.supplyAsync(() -> command.run(args, out, err)));
    }

    @Test
    void remoteClientsGetTheSameResultsAsTheLocalDevice(@TempDir Path dir) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "s3cret\n", StandardCharsets.UTF_8);
        Serving serving = serve(List.of(
                "--listen=127.0.0.1:0", "--device=local-sync", "--token_file=" + token, "--max_connections=9",
                "--max_connections_per_address=8", "--max_server_memory_bytes=123456789"));
        DeviceServer server = serving.started.get(60, TimeUnit.SECONDS);
        assertEquals(9, server.options().maxConnections());
        assertEquals(8, server.options().maxConnectionsPerAddress());
        assertEquals(123456789L, server.options().serverMemoryBytes());
        int[] x = {1, 2, 3, 4, 5, 6, 7};
        int[] y = {7, 6, 5, 4, 3, 2, 1};
        try (Device remote = registry.createDevice("remote://127.0.0.1:" + server.address().getPort() + "?token_file="
                + token); Device local = registry.createDevice("local-sync")) {
            int[] expected = multiply(local, x, y);
            assertArrayEquals(new int[] {7, 12, 15, 16, 15, 12, 7}, expected);
            assertArrayEquals(expected, multiply(remote, x, y));
        }
        serving.stop.countDown();
        assertEquals(Cli.EXIT_OK, serving.exit.get(60, TimeUnit.SECONDS));
        assertTrue(outBytes.toString(StandardCharsets.UTF_8).startsWith("serving local-sync on 127.0.0.1:"));
    }

    @Test
    void flagsAreCheckedAndNonLoopbackNeedsAnAllowance(@TempDir Path dir) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "s3cret", StandardCharsets.UTF_8);
        Cli cli = new Cli(registry, "v", () -> 0);
        assertEquals(Cli.EXIT_USAGE, cli.run(new String[] {"serve-device", "--device=local-sync"}, out, err));
        assertEquals(Cli.EXIT_USAGE, cli.run(new String[] {"serve-device", "--colour=red"}, out, err));
        assertEquals(Cli.EXIT_USAGE, cli.run(new String[] {"serve-device", "--device=local-sync", "--token_file=" + token,
                "--tls_keystore=server.p12"}, out, err)); // without --tls_password_file
        assertEquals(Cli.EXIT_USAGE, cli.run(new String[] {"serve-device", "--device=local-sync", "--token_file=" + token,
                "--tls_client_ca=ca.pem"}, out, err)); // without a keystore
        assertEquals(Cli.EXIT_FAILURE, cli.run(new String[] {"serve-device", "--device=local-sync", "--token_file="
                + token, "--tls_keystore=" + dir.resolve("missing.p12"), "--tls_password_file=" + token}, out, err));
        assertTrue(errBytes.toString(StandardCharsets.UTF_8).contains("missing.p12"), errBytes.toString());
        assertEquals(Cli.EXIT_FAILURE, cli.run(new String[] {"serve-device", "--device=local-sync",
                "--token_file=" + token, "--listen=0.0.0.0:0"}, out, err));
        assertTrue(errBytes.toString(StandardCharsets.UTF_8).contains("PERMISSION_DENIED"), errBytes.toString());
        assertEquals(Cli.EXIT_FAILURE, cli.run(new String[] {"serve-device", "--device=no-such-driver",
                "--token_file=" + token}, out, err));
    }

    /** {@code serve-device --help} lists its flags on stdout and exits 0, as the other tools' {@code --help} does. */
    @Test
    void helpListsTheFlagsAndExitsZero() {
        Cli cli = new Cli(registry, "v", () -> 0);
        assertEquals(Cli.EXIT_OK, cli.run(new String[] {"serve-device", "--help"}, out, err));
        String text = outBytes.toString(StandardCharsets.UTF_8);
        for (String flag : new String[] {"--device=", "--token_file=", "--listen=", "--allow_non_loopback",
                "--max_memory_bytes=", "--max_handles=", "--max_in_flight=", "--allowed_formats=", "--max_connections=",
                "--max_connections_per_address=", "--max_server_memory_bytes=", "--tls_keystore=",
                "--tls_password_file=", "--tls_client_ca=", "--machine_index="}) {
            assertTrue(text.contains(flag), flag + " missing from:\n" + text);
        }
        assertEquals("", errBytes.toString(StandardCharsets.UTF_8));
    }

    /** A per-client quota past the int range is refused naming the flag, not wrapped and replaced by the default. */
    @Test
    void aQuotaPastTheIntRangeIsInvalidNamingFlagAndValue(@TempDir Path dir) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "s3cret", StandardCharsets.UTF_8);
        ServeDevice command = new ServeDevice(registry, server -> { }); // returns at once if a server starts
        for (String flag : new String[] {"--max_handles", "--max_in_flight"}) {
            for (String bad : new String[] {"4294967296", "3000000000"}) {
                errBytes.reset();
                StatusException thrown = org.junit.jupiter.api.Assertions.assertThrows(StatusException.class,
                        () -> command.run(List.of("--listen=127.0.0.1:0", "--device=local-sync", "--token_file=" + token,
                                flag + "=" + bad), out, err), flag + "=" + bad);
                assertEquals(StatusCode.INVALID_ARGUMENT, thrown.code());
                assertTrue(thrown.getMessage().contains(flag + "='" + bad + "'"), thrown.getMessage());
            }
        }
    }

    /** Issue 20 §3: {@code --machine_index} is announced and carried by the served local-task queues' axes. */
    @Test
    void theMachineIndexIsAnnouncedAndCarriedInTheServedQueuesAxes(@TempDir Path dir) throws Exception {
        registry.register(CpuDrivers.builder().localTaskFactory());
        Path token = dir.resolve("token");
        Files.writeString(token, "s3cret", StandardCharsets.UTF_8);
        Serving serving = serve(List.of(
                "--listen=127.0.0.1:0", "--device=local-task", "--token_file=" + token, "--machine_index=42"));
        try {
            DeviceServer server = serving.started.get(60, TimeUnit.SECONDS);
            assertEquals(42, server.options().machine());
            try (Device remote = registry.createDevice("remote://127.0.0.1:" + server.address().getPort()
                    + "?token_file=" + token);
                    Buffer target = remote.allocator().allocateBuffer(BufferParams.hostLocal(), 16);
                    Semaphore done = remote.createSemaphore(0)) {
                remote.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(done, 1), target, 0, 16, 5, 4, 0);
                done.await(1, Timeout.of(Duration.ofSeconds(60)));
                dev.ortho.hal.frontier.Frontier frontier = new dev.ortho.hal.frontier.Frontier(8);
                assertTrue(done.frontierAt(1, frontier), "the server's signal carries its queue's frontier");
                assertTrue(frontier.size() > 0, frontier.toString());
                for (int i = 0; i < frontier.size(); i++) {
                    assertEquals(42, dev.ortho.hal.frontier.Axis.machine(frontier.axisAt(i)), frontier.toString());
                }
            }
        } finally {
            serving.stop.countDown();
        }
        assertEquals(Cli.EXIT_OK, serving.exit.get(60, TimeUnit.SECONDS));
    }

    @Test
    void aMachineIndexOutsideItsRangeIsInvalidNamingFlagAndValue(@TempDir Path dir) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "s3cret", StandardCharsets.UTF_8);
        Cli cli = new Cli(registry, "v", () -> 0);
        for (String bad : new String[] {"256", "-1", "two"}) {
            errBytes.reset();
            assertEquals(Cli.EXIT_FAILURE, cli.run(new String[] {"serve-device", "--device=local-sync",
                    "--token_file=" + token, "--machine_index=" + bad}, out, err));
            String text = errBytes.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("INVALID_ARGUMENT") && text.contains("--machine_index='" + bad + "'"), text);
        }
        assertEquals("local-task://?machine_index=3", ServeDevice.withMachine("local-task", 3));
        assertEquals("local-task://?queue_count=2&machine_index=3",
                ServeDevice.withMachine("local-task://?queue_count=2", 3));
        assertEquals("local-sync", ServeDevice.withMachine("local-sync", 3));
        assertEquals("local-task://?machine_index=3", ServeDevice.withMachine("local-task://?machine_index=3", 3));
        assertEquals(dev.ortho.base.StatusCode.INVALID_ARGUMENT, org.junit.jupiter.api.Assertions.assertThrows(
                dev.ortho.base.StatusException.class,
                () -> ServeDevice.withMachine("local-task://?machine_index=4", 3)).code());
    }
}
