package dev.ortho.hal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.DeviceWrapper;
import dev.ortho.hal.spi.DriverFactory;
import dev.ortho.hal.spi.ForwardingDevice;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** URI composition {@code <wrapper>+<driver>://} and default wrappers of the {@link DriverRegistry}. */
class DriverRegistryWrapperTest {
    private final List<String> created = new ArrayList<>();
    private final AtomicInteger closed = new AtomicInteger();

    /** A device that answers info() and counts its releases; anything else is unsupported. */
    private Device fakeDevice(DeviceUri uri) {
        created.add(uri.toString());
        DeviceInfo info = new DeviceInfo(7, uri.path(), "fake " + uri);
        return (Device) Proxy.newProxyInstance(Device.class.getClassLoader(), new Class<?>[] {Device.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "info" -> info;
                    case "release", "close" -> {
                        closed.incrementAndGet();
                        yield null;
                    }
                    case "toString" -> "fake device " + uri;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private final DriverFactory factory = new DriverFactory() {
        @Override
        public List<DriverInfo> enumerate() {
            return List.of(new DriverInfo("fake", "fake driver"));
        }

        @Override
        public Driver createDriver(String driverName) {
            if (!driverName.equals("fake")) {
                throw new StatusException(StatusCode.NOT_FOUND, driverName);
            }
            return new Driver() {
                @Override
                public DriverInfo info() {
                    return enumerate().getFirst();
                }

                @Override
                public List<DeviceInfo> queryAvailableDevices() {
                    return List.of(new DeviceInfo(7, "", "fake"));
                }

                @Override
                public Device createDevice(DeviceUri uri) {
                    return fakeDevice(uri);
                }

                @Override
                public void close() {}
            };
        }
    };

    /** Wraps with a forwarding device that records its name, so nesting order is observable. */
    private static final class Tagging extends ForwardingDevice {
        final String tag;

        Tagging(String tag, Device inner) {
            super(inner);
            this.tag = tag;
        }
    }

    private static DeviceWrapper wrapper(String name) {
        return new DeviceWrapper() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Device wrap(Device inner) {
                return new Tagging(name, inner);
            }
        };
    }

    private DriverRegistry registry() {
        DriverRegistry registry = new DriverRegistry();
        registry.register(factory);
        return registry;
    }

    @Test
    void wrapperPlusDriverCreatesTheDriversDeviceAndWrapsIt() {
        DriverRegistry registry = registry();
        registry.registerWrapper(wrapper("validation"));
        Device device = registry.createDevice("validation+fake://dev0?x=1");
        Tagging tagging = assertInstanceOf(Tagging.class, device);
        assertEquals("validation", tagging.tag);
        assertEquals(List.of("fake://dev0?x=1"), created, "the inner device gets the URI without the wrapper");
        assertEquals("dev0", device.info().path());
        device.close();
        assertEquals(1, closed.get(), "closing the wrapper releases the inner device");
    }

    @Test
    void severalWrappersComposeRightToLeft() {
        DriverRegistry registry = registry();
        registry.registerWrapper(wrapper("tracing"));
        registry.registerWrapper(wrapper("validation"));
        Tagging outer = assertInstanceOf(Tagging.class, registry.createDevice("tracing+validation+fake"));
        assertEquals("tracing", outer.tag);
        assertEquals("validation", assertInstanceOf(Tagging.class, outer.delegate()).tag);
    }

    @Test
    void anUnknownWrapperIsNotFoundNamingItAndTheAvailableOnesBeforeAnyDeviceIsCreated() {
        DriverRegistry registry = registry();
        registry.registerWrapper(wrapper("validation"));
        StatusException e = assertThrows(StatusException.class, () -> registry.createDevice("tracing+fake://"));
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertTrue(e.getMessage().contains("'tracing'") && e.getMessage().contains("available wrappers: validation"),
                e.getMessage());
        assertTrue(created.isEmpty());
        DriverRegistry bare = registry();
        StatusException none = assertThrows(StatusException.class, () -> bare.createDevice("validation+fake"));
        assertTrue(none.getMessage().contains("available wrappers: none"), none.getMessage());
    }

    @Test
    void wrappersComeAndGoAndNeverShowInEnumeration() {
        DriverRegistry registry = registry();
        DeviceWrapper validation = wrapper("validation");
        registry.registerWrapper(validation);
        assertEquals(List.of("validation"), registry.wrapperNames());
        assertEquals(List.of("fake"), registry.enumerate().stream().map(DriverInfo::name).toList());
        assertThrows(StatusException.class, () -> registry.registerWrapper(validation));
        assertTrue(registry.unregisterWrapper(validation));
        assertFalse(registry.unregisterWrapper(validation));
        assertEquals(StatusCode.NOT_FOUND,
                assertThrows(StatusException.class, () -> registry.createDevice("validation+fake")).code());
        assertEquals(StatusCode.INVALID_ARGUMENT,
                assertThrows(StatusException.class, () -> registry.registerWrapper(wrapper("Bad+Name"))).code());
    }

    @Test
    void createDriverByUriIgnoresTheWrapperNames() {
        try (Driver driver = registry().createDriver(DeviceUri.parse("validation+tracing+fake://x"))) {
            assertEquals("fake", driver.info().name());
        }
    }

    @Test
    void theHigherRankedWrapperOfANameWins() {
        DriverRegistry registry = registry();
        DeviceWrapper low = wrapper("validation");
        DeviceWrapper high = new DeviceWrapper() {
            @Override
            public String name() {
                return "validation";
            }

            @Override
            public Device wrap(Device inner) {
                return new Tagging("high", inner);
            }
        };
        registry.registerWrapper(high, 10);
        registry.registerWrapper(low, 0);
        assertEquals("high", ((Tagging) registry.createDevice("validation+fake")).tag);
    }

    @Test
    void defaultWrappersWrapEveryDeviceOnceAndOutermost() {
        DriverRegistry registry = registry();
        registry.registerWrapper(wrapper("validation"));
        registry.registerWrapper(wrapper("tracing"));
        registry.setDefaultWrappers(List.of("validation"));
        assertEquals("validation", ((Tagging) registry.createDevice("fake")).tag);
        Tagging composed = (Tagging) registry.createDevice("validation+fake");
        assertFalse(composed.delegate() instanceof Tagging, "a URI naming the default wrapper is not wrapped twice");
        Tagging both = (Tagging) registry.createDevice("tracing+fake");
        assertEquals("validation", both.tag);
        assertEquals("tracing", ((Tagging) both.delegate()).tag);
        registry.setDefaultWrappers(List.of("missing"));
        StatusException e = assertThrows(StatusException.class, () -> registry.createDevice("fake"));
        assertEquals(StatusCode.NOT_FOUND, e.code());
        assertTrue(e.getMessage().contains("'missing'"), e.getMessage());
        assertThrows(StatusException.class, () -> registry.setDefaultWrappers(List.of("a", "a")));
        registry.setDefaultWrappers(List.of());
        assertSame(Proxy.class, registry.createDevice("fake").getClass().getSuperclass());
    }

    @Test
    void aFailingWrapperClosesTheInnerDeviceAndReportsTheWrapper() {
        DriverRegistry registry = registry();
        registry.registerWrapper(new DeviceWrapper() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public Device wrap(Device inner) {
                throw new StatusException(StatusCode.UNAVAILABLE, "cannot wrap");
            }
        });
        StatusException e = assertThrows(StatusException.class, () -> registry.createDevice("broken+fake"));
        assertEquals(StatusCode.UNAVAILABLE, e.code());
        assertTrue(e.getMessage().contains("broken"), e.getMessage());
        assertEquals(1, closed.get());
    }

    private static <T> T assertInstanceOf(Class<T> type, Object value) {
        assertTrue(type.isInstance(value), value + " is not a " + type.getSimpleName());
        return type.cast(value);
    }
}
