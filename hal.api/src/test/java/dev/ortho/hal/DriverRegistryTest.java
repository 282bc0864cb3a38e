package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.DriverFactory;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DriverRegistryTest {

    /** A factory whose drivers report which factory created them. */
    private static final class FakeFactory implements DriverFactory {
        final String tag;
        final List<DriverInfo> drivers;
        final AtomicInteger enumerations = new AtomicInteger();

        FakeFactory(String tag, String... names) {
            this.tag = tag;
            this.drivers = java.util.Arrays.stream(names).map(n -> new DriverInfo(n, n + " by " + tag)).toList();
        }

        @Override
        public List<DriverInfo> enumerate() {
            enumerations.incrementAndGet();
            return drivers;
        }

        @Override
        public Driver createDriver(String driverName) {
            DriverInfo info = drivers.stream().filter(d -> d.name().equals(driverName)).findFirst()
                    .orElseThrow(() -> new StatusException(StatusCode.NOT_FOUND, driverName));
            return new Driver() {
                @Override
                public DriverInfo info() {
                    return info;
                }

                @Override
                public List<DeviceInfo> queryAvailableDevices() {
                    return List.of(new DeviceInfo(0, "", tag));
                }

                @Override
                public Device createDevice(DeviceUri uri) {
                    throw new StatusException(StatusCode.UNAVAILABLE, "fake driver '" + tag + "' has no devices: "
                            + uri);
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public String toString() {
            return "FakeFactory[" + tag + "]";
        }
    }

    @Test
    void emptyRegistryEnumeratesNothingAndCreatesNothing() {
        DriverRegistry registry = new DriverRegistry();
        assertTrue(registry.enumerate().isEmpty());
        StatusException e = assertThrows(StatusException.class, () -> registry.createDriver("local-task"));
        assertEquals("NOT_FOUND; no HAL driver 'local-task' is registered (available: none)", e.toString());
    }

    @Test
    void registeredDriversAreEnumeratedSortedByName() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new FakeFactory("cpu", "local-task", "local-sync"));
        registry.register(new FakeFactory("net", "remote"));
        assertEquals(List.of("local-sync", "local-task", "remote"),
                registry.enumerate().stream().map(DriverInfo::name).toList());
    }

    @Test
    void unknownDriverNamesTheAvailableOnes() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new FakeFactory("cpu", "local-task", "local-sync"));
        StatusException e = assertThrows(StatusException.class, () -> registry.createDriver("cuda"));
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertEquals("no HAL driver 'cuda' is registered (available: local-sync, local-task)", e.getMessage());
    }

    @Test
    void higherRankingWinsANameConflictRegardlessOfOrder() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new FakeFactory("high", "local-task"), 10);
        registry.register(new FakeFactory("low", "local-task"), 0);
        assertEquals("high", registry.createDriver("local-task").queryAvailableDevices().get(0).name());
        assertEquals(List.of(new DriverInfo("local-task", "local-task by high")), registry.enumerate());
    }

    @Test
    void equalRankingPrefersTheMostRecentRegistrationAsIreeDoes() {
        DriverRegistry registry = new DriverRegistry();
        FakeFactory first = new FakeFactory("first", "local-task");
        FakeFactory second = new FakeFactory("second", "local-task");
        registry.register(first);
        registry.register(second);
        assertEquals("second", registry.createDriver("local-task").queryAvailableDevices().get(0).name());
        assertTrue(registry.unregister(second));
        assertEquals("first", registry.createDriver("local-task").queryAvailableDevices().get(0).name());
    }

    @Test
    void rankingUpdateReordersWithoutReRegistering() {
        DriverRegistry registry = new DriverRegistry();
        FakeFactory a = new FakeFactory("a", "x");
        FakeFactory b = new FakeFactory("b", "x");
        registry.register(a);
        registry.register(b);
        registry.updateRanking(a, 5);
        assertEquals("a", registry.createDriver("x").queryAvailableDevices().get(0).name());
        assertEquals(1, a.enumerations.get(), "enumerate is called once per registration");
        assertEquals(StatusCode.NOT_FOUND, assertThrows(StatusException.class,
                () -> registry.updateRanking(new FakeFactory("c", "x"), 1)).code());
    }

    @Test
    void unregisteredFactoryDisappears() {
        DriverRegistry registry = new DriverRegistry();
        FakeFactory factory = new FakeFactory("t", "sample");
        registry.register(factory);
        assertTrue(registry.unregister(factory));
        assertFalse(registry.unregister(factory));
        assertTrue(registry.enumerate().isEmpty());
        assertEquals(StatusCode.NOT_FOUND,
                assertThrows(StatusException.class, () -> registry.createDriver("sample")).code());
    }

    @Test
    void registeringTheSameFactoryTwiceIsAlreadyExists() {
        DriverRegistry registry = new DriverRegistry();
        FakeFactory factory = new FakeFactory("t", "sample");
        registry.register(factory);
        assertEquals(StatusCode.ALREADY_EXISTS,
                assertThrows(StatusException.class, () -> registry.register(factory)).code());
    }

    @Test
    void createByUriUsesTheScheme() {
        DriverRegistry registry = new DriverRegistry();
        FakeFactory factory = new FakeFactory("t", "local-sync");
        registry.register(factory);
        Driver driver = registry.createDriver(DeviceUri.parse("local-sync://?x=1"));
        assertSame(factory.drivers.get(0), driver.info());
    }

    @Test
    void factoryFailuresAreAnnotatedWithTheDriverName() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new DriverFactory() {
            @Override
            public List<DriverInfo> enumerate() {
                return List.of(new DriverInfo("flaky", "fails to create"));
            }

            @Override
            public Driver createDriver(String driverName) {
                throw new StatusException(StatusCode.UNAVAILABLE, "no such hardware");
            }
        });
        StatusException e = assertThrows(StatusException.class, () -> registry.createDriver("flaky"));
        assertEquals("UNAVAILABLE; no such hardware; while creating driver 'flaky'", e.toString());
    }

    @Test
    void createDeviceParsesTheUriAndAnnotatesDriverFailures() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(new FakeFactory("t", "local-sync"));
        StatusException e = assertThrows(StatusException.class, () -> registry.createDevice("local-sync://0?x=1"));
        assertEquals(StatusCode.UNAVAILABLE, e.code());
        assertEquals("UNAVAILABLE; fake driver 't' has no devices: local-sync://0?x=1; while creating device"
                + " 'local-sync://0?x=1'", e.toString());
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> registry.createDevice("Bad://")).code());
        assertEquals(StatusCode.NOT_FOUND,
                assertThrows(StatusException.class, () -> registry.createDevice("cuda://0")).code());
    }

    @Test
    void invalidDriverNamesAreRejected() {
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> new DriverInfo("Bad Name", "x")).code());
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> new DriverInfo("a+b", "x")).code());
    }

    @Test
    void concurrentRegistrationAndLookupNeverSeeATornState() throws Exception {
        DriverRegistry registry = new DriverRegistry();
        FakeFactory stable = new FakeFactory("stable", "local-task");
        registry.register(stable);
        Thread churn = new Thread(() -> {
            for (int i = 0; i < 2_000; i++) {
                FakeFactory f = new FakeFactory("churn" + i, "remote");
                registry.register(f);
                registry.unregister(f);
            }
        });
        churn.start();
        for (int i = 0; i < 20_000; i++) {
            assertEquals("stable", registry.createDriver("local-task").queryAvailableDevices().get(0).name());
        }
        churn.join();
        assertEquals(List.of("local-task"), registry.enumerate().stream().map(DriverInfo::name).toList());
    }
}
