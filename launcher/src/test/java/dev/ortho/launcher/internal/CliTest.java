package dev.ortho.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.spi.DriverFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CliTest {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
    private final PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8);
    private final DriverRegistry registry = new DriverRegistry();
    private final AtomicInteger shellRuns = new AtomicInteger();
    private final Cli cli = new Cli(registry, "ortho 9.9.9 (test)", () -> {
        shellRuns.incrementAndGet();
        return 42;
    });

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    private void registerDriver(String name, String description, String... devicePaths) {
        registry.register(new DriverFactory() {
            @Override
            public List<DriverInfo> enumerate() {
                return List.of(new DriverInfo(name, description));
            }

            @Override
            public Driver createDriver(String driverName) {
                return new Driver() {
                    @Override
                    public DriverInfo info() {
                        return new DriverInfo(name, description);
                    }

                    @Override
                    public List<DeviceInfo> queryAvailableDevices() {
                        return java.util.Arrays.stream(devicePaths).map(p -> new DeviceInfo(0, p, p)).toList();
                    }

                    @Override
                    public dev.ortho.hal.Device createDevice(dev.ortho.hal.DeviceUri uri) {
                        throw new dev.ortho.base.StatusException(dev.ortho.base.StatusCode.UNIMPLEMENTED,
                                "test driver creates no devices");
                    }

                    @Override
                    public void close() {}
                };
            }
        });
    }

    @Test
    void noArgumentsRunsTheShellAndReturnsItsExitCode() {
        assertEquals(42, cli.run(new String[0], out, err));
        assertEquals(1, shellRuns.get());
    }

    @Test
    void helpGoesToStdoutAndExitsZero() {
        assertEquals(0, cli.run(new String[] {"--help"}, out, err));
        assertTrue(out().startsWith("Usage: ortho"), out());
        assertTrue(out().contains("--list_drivers"));
        assertTrue(out().contains("version"));
        assertEquals("", err());
    }

    @Test
    void versionPrintsTheVersionLine() {
        assertEquals(0, cli.run(new String[] {"version"}, out, err));
        assertEquals("ortho 9.9.9 (test)\n", out());
    }

    @Test
    void unknownSubcommandIsAUsageErrorOnStderr() {
        assertEquals(2, cli.run(new String[] {"bogus"}, out, err));
        assertEquals("", out());
        assertTrue(err().startsWith("ortho: unknown subcommand 'bogus'\nUsage: ortho"), err());
        assertEquals(0, shellRuns.get());
    }

    @Test
    void unknownFlagIsAUsageError() {
        assertEquals(2, cli.run(new String[] {"--bogus"}, out, err));
        assertTrue(err().startsWith("ortho: unknown flag '--bogus'"), err());
    }

    @Test
    void surplusArgumentsAreUsageErrors() {
        assertEquals(2, cli.run(new String[] {"version", "extra"}, out, err));
        assertEquals(2, cli.run(new String[] {"--list_drivers", "extra"}, out, err));
    }

    @Test
    void listDriversMatchesIreeFormat() {
        registerDriver("local-task", "Local execution using the Ortho task executor");
        registerDriver("local-sync", "Local execution using a lightweight inline synchronous queue");
        assertEquals(0, cli.run(new String[] {"--list_drivers"}, out, err));
        assertEquals("""
                # ============================================================================
                # Available HAL drivers
                # ============================================================================
                # Use --list_devices={driver name} to enumerate available devices.

                      local-sync: Local execution using a lightweight inline synchronous queue
                      local-task: Local execution using the Ortho task executor
                """, out());
    }

    @Test
    void listDevicesPrintsDeviceUris() {
        registerDriver("sample", "s", "0", "1");
        registerDriver("other", "o", "x");
        assertEquals(0, cli.run(new String[] {"--list_devices"}, out, err));
        assertEquals("other://x\nsample://0\nsample://1\n", out());
        outBytes.reset();
        assertEquals(0, cli.run(new String[] {"--list_devices=sample"}, out, err));
        assertEquals("sample://0\nsample://1\n", out());
    }

    @Test
    void listDevicesOfAnUnknownDriverFailsWithTheStatus() {
        assertEquals(1, cli.run(new String[] {"--list_devices=nope"}, out, err));
        assertEquals("NOT_FOUND; no HAL driver 'nope' is registered (available: none)\n", err());
        assertEquals(1, cli.run(new String[] {"--list_devices="}, out, err));
        assertTrue(err().contains("INVALID_ARGUMENT; --list_devices= needs a driver name"), err());
    }

    @Test
    void dumpDevicesSkipsDriversThatCannotBeCreatedUnlessNamed() {
        registry.register(new DriverFactory() {
            @Override
            public List<DriverInfo> enumerate() {
                return List.of(new DriverInfo("broken", "cannot start here"));
            }

            @Override
            public Driver createDriver(String driverName) {
                throw new dev.ortho.base.StatusException(dev.ortho.base.StatusCode.UNAVAILABLE, "no hardware");
            }
        });
        assertEquals(0, cli.run(new String[] {"--dump_devices"}, out, err));
        assertEquals("""
                # ============================================================================
                # Enumerated devices for driver 'broken'
                # ============================================================================

                """, out());
        assertEquals(1, cli.run(new String[] {"--dump_devices=broken"}, out, err));
        assertEquals("UNAVAILABLE; no hardware; while creating driver 'broken'\n", err());
        assertEquals(1, cli.run(new String[] {"--dump_devices="}, out, err));
        assertTrue(err().contains("INVALID_ARGUMENT; --dump_devices= needs a driver name"), err());
    }

    @Test
    void anUnexpectedFailureInASubcommandExitsOneWithAnInternalStatusAndItsStack() {
        cli.add("explode", new Cli.Subcommand() {
            @Override
            public String summary() {
                return "fails with a defect";
            }

            @Override
            public int run(List<String> args, PrintStream out, PrintStream err) {
                throw new IllegalStateException("mapping released twice");
            }
        });
        assertEquals(1, cli.run(new String[] {"explode", "--flag=1"}, out, err));
        assertTrue(err().startsWith("INTERNAL; unexpected java.lang.IllegalStateException: mapping released twice"
                + " in 'ortho explode'"), err());
        assertTrue(err().contains("\tat dev.ortho.launcher.internal.CliTest"), err());
        assertEquals("", out());
    }
}
