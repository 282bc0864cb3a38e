package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.remote.internal.client.RemoteDriverFactory;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@code remote://shm?device=URI}: workers a host's {@link ShmWorkerLauncher} starts. */
class ShmWorkerLauncherTest {
    @Test
    void aHostLauncherStartsWorkersThatCreateTheDeviceByUri() {
        List<String> devices = new CopyOnWriteArrayList<>();
        ShmWorkerLauncher launcher = (mailbox, capacity, device) -> {
            devices.add(device);
            return List.of(ProcessHandle.current().info().command().orElseThrow(), "-cp",
                    System.getProperty("java.class.path"), HostWorkerMain.class.getName(), mailbox.toString(),
                    Long.toString(capacity), device);
        };
        try (RemoteDriverFactory factory = new RemoteDriverFactory(name -> null, () -> launcher)) {
            DriverRegistry registry = new DriverRegistry();
            registry.register(factory);
            for (int round = 0; round < 2; round++) { // the worker is reused by the next device
                try (Device device = registry.createDevice("remote://shm?device=local-sync&workers=1")) {
                    assertTrue(device.info().name().contains("PROCESS worker"), device.info().name());
                    TrustTest.assertServes(device);
                }
            }
            assertEquals(List.of("local-sync"), devices, "one child spawned, for the device URI given");
        }
    }

    @Test
    void aWorkerThatIsStillStartingIsWaitedForBeyondTheRequestDeadline() {
        // A loaded machine can take longer to start a worker JVM (ortho.jar: a framework) than
        // deadline_ms; that is a cold pool, not a busy one (it failed RESOURCE_EXHAUSTED before).
        ShmWorkerLauncher slow = (mailbox, capacity, device) -> List.of("bash", "-c", "sleep 2; exec \"$@\"", "worker",
                ProcessHandle.current().info().command().orElseThrow(), "-cp", System.getProperty("java.class.path"),
                HostWorkerMain.class.getName(), mailbox.toString(), Long.toString(capacity), device);
        try (RemoteDriverFactory factory = new RemoteDriverFactory(name -> null, () -> slow)) {
            DriverRegistry registry = new DriverRegistry();
            registry.register(factory);
            try (Device device = registry.createDevice("remote://shm?device=local-sync&workers=1&deadline_ms=1000")) {
                TrustTest.assertServes(device);
            }
        }
        try (RemoteDriverFactory factory = new RemoteDriverFactory(name -> null,
                () -> (mailbox, capacity, device) -> List.of("sleep", "30"))) {
            DriverRegistry registry = new DriverRegistry();
            registry.register(factory);
            StatusException e = assertThrows(StatusException.class, () -> registry.createDevice(
                    "remote://shm?device=local-sync&workers=1&deadline_ms=100&start_timeout_ms=300"));
            assertEquals(StatusCode.RESOURCE_EXHAUSTED, e.code());
            assertTrue(e.getMessage().contains("still starting"), e.getMessage());
        }
    }

    @Test
    void deviceUriWithoutAHostLauncherOrInThreadModeIsInvalid() {
        DriverRegistry plain = new DriverRegistry();
        plain.register(new RemoteDriverFactory(name -> null));
        StatusException e = assertThrows(StatusException.class,
                () -> plain.createDevice("remote://shm?device=local-sync"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("device=local-sync") && e.getMessage().contains("supplier=CLASS"),
                e.getMessage());

        DriverRegistry hosted = new DriverRegistry();
        hosted.register(new RemoteDriverFactory(name -> null, () -> (mailbox, capacity, device) -> {
            throw new AssertionError("no child may be started for mode=thread");
        }));
        e = assertThrows(StatusException.class, () -> hosted.createDevice("remote://shm?device=local-sync&mode=thread"));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("mode=process"), e.getMessage());

        e = assertThrows(StatusException.class, () -> hosted.createDevice(
                "remote://shm?device=local-sync&supplier=" + LocalSyncSupplier.class.getName()));
        assertEquals(StatusCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("exactly one of"), e.getMessage());
    }

    @Test
    void aLauncherThatCannotStartAChildFailsTheDeviceWithItsStatus() {
        DriverRegistry hosted = new DriverRegistry();
        hosted.register(new RemoteDriverFactory(name -> null, () -> (mailbox, capacity, device) -> {
            throw new StatusException(StatusCode.UNAVAILABLE, "no jar here");
        }));
        StatusException e = assertThrows(StatusException.class, () -> hosted.createDevice("remote://shm?device=x"));
        assertEquals(StatusCode.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().startsWith("no jar here"), e.getMessage());
    }
}
