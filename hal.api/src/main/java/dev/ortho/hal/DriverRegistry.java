package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.DriverFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The set of driver factories available now, and the place to create drivers by name: IREE's
 * {@code iree_hal_driver_registry_t}, made dynamic.
 *
 * <p>Plain Java: construct one and {@link #register} factories. In OSGi, the hal.api bundle
 * publishes one instance as a service and keeps it in step with every
 * {@link DriverFactory} service (bundles installed or stopped at runtime show up or vanish at
 * once).
 *
 * <p>When two factories offer a driver of the same name, the one with the higher ranking wins;
 * on equal ranking the most recently registered wins (IREE's rule).
 *
 * <p>Thread-safe. Reads ({@link #enumerate()}, {@link #createDriver}) take no lock: they see an
 * immutable snapshot. A factory's {@link DriverFactory#enumerate()} is called once, at
 * registration, as IREE assumes a registration's driver list never changes.
 */
public final class DriverRegistry {

    private record Entry(DriverFactory factory, int ranking, long order, List<DriverInfo> drivers) {}

    /** Highest ranking first, then the most recent registration. */
    private static final Comparator<Entry> PRECEDENCE = Comparator
            .comparingInt(Entry::ranking).reversed()
            .thenComparing(Comparator.comparingLong(Entry::order).reversed());

    private final Object writeLock = new Object();
    /** Copy-on-write snapshot in {@link #PRECEDENCE} order; replaced under {@link #writeLock}. */
    private volatile Entry[] entries = new Entry[0];
    /** Guarded by {@link #writeLock}. */
    private long nextOrder;

    /** Registers {@code factory} with ranking 0. See {@link #register(DriverFactory, int)}. */
    public void register(DriverFactory factory) {
        register(factory, 0);
    }

    /**
     * Makes the drivers of {@code factory} available, ranked {@code ranking} against factories
     * offering drivers of the same name (higher wins). The registry does not own the factory.
     *
     * @throws StatusException ALREADY_EXISTS if this factory is registered already; any status
     *     the factory's {@code enumerate()} raised, annotated with the factory
     */
    public void register(DriverFactory factory, int ranking) {
        Objects.requireNonNull(factory, "factory");
        List<DriverInfo> drivers;
        try {
            drivers = List.copyOf(factory.enumerate());
        } catch (StatusException e) {
            throw e.annotate("while enumerating driver factory " + factory);
        }
        synchronized (writeLock) {
            if (indexOf(entries, factory) >= 0) {
                throw new StatusException(StatusCode.ALREADY_EXISTS,
                        "driver factory " + factory + " is already registered");
            }
            Entry[] next = Arrays.copyOf(entries, entries.length + 1);
            next[entries.length] = new Entry(factory, ranking, nextOrder++, drivers);
            Arrays.sort(next, PRECEDENCE);
            entries = next; // volatile write: publishes the new snapshot to lock-free readers
        }
    }

    /**
     * Changes the ranking of a registered factory, keeping its registration order (an OSGi
     * service whose {@code service.ranking} property was modified).
     *
     * @throws StatusException NOT_FOUND if {@code factory} is not registered
     */
    public void updateRanking(DriverFactory factory, int ranking) {
        synchronized (writeLock) {
            int index = indexOf(entries, factory);
            if (index < 0) {
                throw new StatusException(StatusCode.NOT_FOUND,
                        "driver factory " + factory + " is not registered");
            }
            Entry[] next = entries.clone();
            Entry old = next[index];
            next[index] = new Entry(factory, ranking, old.order(), old.drivers());
            Arrays.sort(next, PRECEDENCE);
            entries = next;
        }
    }

    /**
     * Removes {@code factory}; drivers already created from it stay usable until closed.
     *
     * @return whether it was registered
     */
    public boolean unregister(DriverFactory factory) {
        synchronized (writeLock) {
            int index = indexOf(entries, factory);
            if (index < 0) {
                return false;
            }
            Entry[] next = new Entry[entries.length - 1];
            System.arraycopy(entries, 0, next, 0, index);
            System.arraycopy(entries, index + 1, next, index, entries.length - index - 1);
            entries = next;
            return true;
        }
    }

    /**
     * The drivers that can be created now, one per name (the winning factory's), sorted by name.
     * Cheap: creates nothing.
     */
    public List<DriverInfo> enumerate() {
        Map<String, DriverInfo> byName = new TreeMap<>();
        for (Entry entry : entries) {
            for (DriverInfo info : entry.drivers()) {
                byName.putIfAbsent(info.name(), info); // entries are in precedence order
            }
        }
        return List.copyOf(byName.values());
    }

    /**
     * Creates the driver named {@code driverName} with the factory that wins for that name. The
     * caller owns the driver and must close it.
     *
     * @throws StatusException NOT_FOUND if no registered factory offers {@code driverName} (the
     *     message lists the drivers that are available); any status the factory raised, annotated
     */
    public Driver createDriver(String driverName) {
        Objects.requireNonNull(driverName, "driverName");
        for (Entry entry : entries) {
            for (DriverInfo info : entry.drivers()) {
                if (info.name().equals(driverName)) {
                    try {
                        return entry.factory().createDriver(driverName);
                    } catch (StatusException e) {
                        throw e.annotate("while creating driver '" + driverName + "'");
                    }
                }
            }
        }
        List<String> available = new ArrayList<>();
        for (DriverInfo info : enumerate()) {
            available.add(info.name());
        }
        throw new StatusException(StatusCode.NOT_FOUND, "no HAL driver '" + driverName
                + "' is registered (available: "
                + (available.isEmpty() ? "none" : String.join(", ", available)) + ")");
    }

    /** Creates the driver named by {@code uri}'s scheme; see {@link #createDriver(String)}. */
    public Driver createDriver(DeviceUri uri) {
        return createDriver(uri.driverName());
    }

    /**
     * Creates the device named by {@code deviceUri} ({@code driver://path?key=value}): creates the
     * driver, creates the device, and closes the driver (the device keeps what it needs). The
     * caller owns the device.
     *
     * @throws StatusException INVALID_ARGUMENT for a malformed URI, NOT_FOUND for an unknown
     *     driver or device path; the driver's failure, annotated with the URI
     */
    public Device createDevice(String deviceUri) {
        DeviceUri uri = DeviceUri.parse(deviceUri);
        try (Driver driver = createDriver(uri)) {
            return driver.createDevice(uri);
        } catch (StatusException e) {
            throw e.annotate("while creating device '" + deviceUri + "'");
        }
    }

    private static int indexOf(Entry[] snapshot, DriverFactory factory) {
        for (int i = 0; i < snapshot.length; i++) {
            if (snapshot[i].factory() == factory) {
                return i;
            }
        }
        return -1;
    }
}
