package dev.ortho.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.DeviceInfo;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverInfo;
import dev.ortho.hal.DriverRegistry;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

/**
 * A driver bundle installed into the running framework shows up in the {@link DriverRegistry}
 * service and in the {@code hal:drivers} shell command at once, and vanishes when uninstalled.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RuntimeDriverInstallIT {
    private static final long WAIT_NANOS = 10_000_000_000L;

    @Inject
    private BundleContext context;

    @Inject
    private DriverRegistry registry;

    @Inject
    private CommandProcessor shell;

    @Configuration
    public Option[] config() throws Exception {
        return OrthoFramework.provisioning();
    }

    @Test
    public void installedDriverAppearsAndUninstalledDriverDisappears() throws Exception {
        assertFalse("sample must not be present before the install", hasSample());
        assertFalse(halDrivers().contains("sample:"));

        Bundle sample = context.installBundle(sampleBundleLocation());
        sample.start();
        awaitTrue("sample driver registered", this::hasSample);

        String listing = halDrivers();
        assertTrue(listing, listing.contains("          sample: Sample driver installed at runtime"));
        try (Driver driver = registry.createDriver("sample")) {
            assertEquals(List.of(new DeviceInfo(0, "0", "sample device 0")), driver.queryAvailableDevices());
        }

        sample.uninstall();
        awaitTrue("sample driver unregistered", () -> !hasSample());
        assertFalse(halDrivers().contains("sample:"));
        try {
            registry.createDriver("sample");
            fail("an uninstalled driver must not be creatable");
        } catch (StatusException e) {
            assertEquals(StatusCode.NOT_FOUND, e.code());
        }
    }

    @Test
    public void stoppingTheDriverBundleRemovesItAndRestartingBringsItBack() throws Exception {
        Bundle sample = context.installBundle(sampleBundleLocation() + "#restart");
        try {
            sample.start();
            awaitTrue("registered", this::hasSample);
            sample.stop();
            awaitTrue("gone after stop", () -> !hasSample());
            sample.start();
            awaitTrue("back after restart", this::hasSample);
        } finally {
            sample.uninstall();
        }
        awaitTrue("gone after uninstall", () -> !hasSample());
    }

    private boolean hasSample() {
        for (DriverInfo info : registry.enumerate()) {
            if (info.name().equals("sample")) {
                return true;
            }
        }
        return false;
    }

    /** Runs {@code hal:drivers} through the real Gogo command processor and returns its output. */
    private String halDrivers() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        CommandSession session = shell.createSession(InputStream.nullInputStream(), out, out);
        try {
            Object result = session.execute("hal:drivers");
            if (result != null) {
                out.println(session.format(result, org.apache.felix.service.command.Converter.INSPECT));
            }
        } finally {
            session.close();
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String sampleBundleLocation() {
        File jar = new File(System.getProperty("it.sample.bundle", "target/itest-0.1.0-SNAPSHOT.jar"));
        assertTrue("sample driver bundle not built: " + jar, jar.isFile());
        return jar.toURI().toString();
    }

    private static void awaitTrue(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting: " + what);
            }
            Thread.sleep(10);
        }
    }
}
