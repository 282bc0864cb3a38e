package dev.ortho.hal.cpu.internal.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Driver;
import dev.ortho.hal.DriverRegistry;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.cpu.internal.executable.ExecutableLoaders;
import dev.ortho.hal.cpu.internal.executable.TestLoaders;
import java.lang.foreign.MemorySegment;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 15 §3 / DESIGN §3: the local-task factory knows its live devices and their off-heap bytes,
 * and closing it (its bundle stopping) tears down every device whoever holds it: work in flight
 * fails with UNAVAILABLE, later calls fail with UNAVAILABLE, the workers exit, and no device can
 * be created any more. Buffers outlive their device until their own release.
 */
class Issue15FactoryTeardownTest {
    private final ExecutableLoaders libraries = TestLoaders.standard();

    @Test
    void liveDevicesAndBytesFollowCreationAndRelease() {
        LocalTaskDriverFactory factory = new LocalTaskDriverFactory(libraries, LocalTaskOptions.DEFAULTS);
        DriverRegistry registry = new DriverRegistry();
        registry.register(factory);
        assertEquals(0, factory.liveDevices());
        Device device = registry.createDevice("local-task://?task_topology_group_count=1");
        assertEquals(1, factory.liveDevices());
        Buffer buffer = device.allocator().allocateBuffer(BufferParams.hostLocal(), 1000);
        assertEquals(1000, factory.liveBytes());
        device.release();
        assertEquals(0, factory.liveDevices(), "the last release tears the device down");
        assertEquals(1000, factory.liveBytes(), "the buffer outlives its device");
        buffer.release();
        assertEquals(0, factory.liveBytes());
    }

    @Test
    void closingTheFactoryTearsDownDevicesStillHeldAndFailsTheirWork() throws InterruptedException {
        LocalTaskDriverFactory factory = new LocalTaskDriverFactory(libraries, LocalTaskOptions.DEFAULTS);
        DriverRegistry registry = new DriverRegistry();
        registry.register(factory);
        Set<Thread> before = workers();
        Device a = registry.createDevice("local-task://?task_topology_group_count=2");
        Device b = registry.createDevice("local-task://?task_topology_group_count=1");
        Driver early = factory.createDriver("local-task"); // created before the close
        Set<Thread> theirs = workers();
        theirs.removeAll(before);
        assertEquals(3, theirs.size(), theirs.toString());
        Semaphore never = a.createSemaphore(0);
        Semaphore done = a.createSemaphore(0);
        a.queueBarrier(Device.QUEUE_AFFINITY_ANY, SemaphoreList.of(never, 1), SemaphoreList.of(done, 1), 0);
        Buffer kept = b.allocator().allocateBuffer(BufferParams.hostLocal(), 64);
        kept.write(0, MemorySegment.ofArray(new byte[] {7}));

        factory.close();

        assertEquals(0, factory.liveDevices());
        StatusException inFlight = assertThrows(StatusException.class, () -> done.await(1, Timeout.infinite()));
        assertEquals(StatusCode.UNAVAILABLE, inFlight.code(), inFlight.toString());
        assertTrue(inFlight.getMessage().contains("driver 'local-task' was stopped"), inFlight.getMessage());
        StatusException later = assertThrows(StatusException.class, () -> a.createSemaphore(0));
        assertEquals(StatusCode.UNAVAILABLE, later.code(), later.toString());
        assertEquals(StatusCode.UNAVAILABLE, assertThrows(StatusException.class,
                () -> b.queueBarrier(Device.QUEUE_AFFINITY_ANY, SemaphoreList.empty(), SemaphoreList.empty(), 0)).code());
        for (Thread t : theirs) {
            t.join(10_000);
            assertFalse(t.isAlive(), t.getName() + " still running after the factory closed");
        }
        assertEquals(StatusCode.UNAVAILABLE, assertThrows(StatusException.class,
                () -> registry.createDevice("local-task")).code());
        Set<Thread> beforeLate = workers();
        assertEquals(StatusCode.UNAVAILABLE, assertThrows(StatusException.class,
                () -> early.createDevice(DeviceUri.parse("local-task://"))).code());
        Set<Thread> late = workers();
        late.removeAll(beforeLate);
        for (Thread t : late) {
            t.join(10_000);
            assertFalse(t.isAlive(), "a device refused after the close left " + t.getName());
        }
        assertEquals(0, factory.liveDevices());

        MemorySegment read = MemorySegment.ofArray(new byte[1]);
        kept.read(0, read);
        assertEquals(7, read.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0), "buffers outlive a torn-down device");
        kept.release();
        assertEquals(0, factory.liveBytes());
        never.release();
        done.release();
        a.release(); // the holders' references: counting down only
        b.release();
        early.close();
        factory.close(); // idempotent
    }

    private static Set<Thread> workers() {
        Set<Thread> workers = new HashSet<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith("ortho-worker-")) {
                workers.add(t);
            }
        }
        return workers;
    }
}
