package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.spi.DeviceWrapper;
import dev.ortho.hal.spi.DriverFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

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
 * <p><b>Wrappers.</b> {@link DeviceWrapper}s are registered the same way ({@link #registerWrapper});
 * a device URI {@code <wrapper>+<driver>://…} creates the driver's device and wraps it
 * ({@code validation+local-sync://}); several wrappers compose right to left
 * ({@code tracing+validation+local-task://} is tracing around validation around local-task).
 * {@link #setDefaultWrappers} names wrappers applied to every device created here (outermost,
 * skipping those the URI names already). Wrappers never appear in {@link #enumerate()}: listing
 * drivers and devices is unaffected by them.
 *
 * <p>Thread-safe. Reads ({@link #enumerate()}, {@link #createDriver}) take no lock: they see an
 * immutable snapshot. A factory's {@link DriverFactory#enumerate()} is called once, at
 * registration, as IREE assumes a registration's driver list never changes.
 */
public final class DriverRegistry {
    private static final Pattern WRAPPER_NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");

    private record Entry(DriverFactory factory, int ranking, long order, List<DriverInfo> drivers) {}

    private record WrapperEntry(DeviceWrapper wrapper, String name, int ranking, long order) {}

    /** Highest ranking first, then the most recent registration. */
    private static final Comparator<WrapperEntry> WRAPPER_PRECEDENCE = Comparator
            .comparingInt(WrapperEntry::ranking).reversed()
            .thenComparing(Comparator.comparingLong(WrapperEntry::order).reversed());

    /** Highest ranking first, then the most recent registration. */
    private static final Comparator<Entry> PRECEDENCE = Comparator
            .comparingInt(Entry::ranking).reversed()
            .thenComparing(Comparator.comparingLong(Entry::order).reversed());

    private final Object writeLock = new Object();
    /** Copy-on-write snapshot in {@link #PRECEDENCE} order; replaced under {@link #writeLock}. */
    private volatile Entry[] entries = new Entry[0];
    /** Copy-on-write snapshot in {@link #WRAPPER_PRECEDENCE} order; replaced under {@link #writeLock}. */
    private volatile WrapperEntry[] wrappers = new WrapperEntry[0];
    /** Wrappers applied to every created device, outermost first; replaced as a whole. */
    private volatile List<String> defaultWrappers = List.of();
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

    /**
     * Creates the driver named by {@code uri}'s scheme, ignoring any wrapper names before
     * {@code +}; see {@link #createDriver(String)}.
     */
    public Driver createDriver(DeviceUri uri) {
        String scheme = uri.driverName();
        return createDriver(scheme.substring(scheme.lastIndexOf('+') + 1));
    }

    /**
     * Creates the device named by {@code deviceUri} ({@code [wrapper+]…driver://path?key=value}):
     * resolves every wrapper first (the URI's and the {@linkplain #setDefaultWrappers defaults}),
     * creates the driver, creates the device, closes the driver (the device keeps what it needs),
     * then wraps the device innermost wrapper first. The caller owns the returned device; if a
     * wrapper fails, the device created so far is closed.
     *
     * @throws StatusException INVALID_ARGUMENT for a malformed URI; NOT_FOUND for an unknown
     *     driver, device path or wrapper (naming it and listing the wrappers available), before
     *     any device is created; the driver's or wrapper's failure, annotated with the URI
     */
    public Device createDevice(String deviceUri) {
        DeviceUri uri = DeviceUri.parse(deviceUri);
        String[] parts = uri.driverName().split("\\+");
        List<DeviceWrapper> chain = new ArrayList<>(); // outermost first
        List<String> named = Arrays.asList(parts).subList(0, parts.length - 1);
        for (String name : defaultWrappers) {
            if (!named.contains(name)) {
                chain.add(requireWrapper(name, deviceUri, " (configured for every device)"));
            }
        }
        for (String name : named) {
            chain.add(requireWrapper(name, deviceUri, ""));
        }
        DeviceUri driverUri = chain.isEmpty() && parts.length == 1 ? uri
                : new DeviceUri(parts[parts.length - 1], uri.path(), uri.params());
        Device device;
        try (Driver driver = createDriver(driverUri)) {
            device = driver.createDevice(driverUri);
        } catch (StatusException e) {
            throw e.annotate("while creating device '" + deviceUri + "'");
        }
        for (int i = chain.size() - 1; i >= 0; i--) {
            DeviceWrapper wrapper = chain.get(i);
            try {
                device = Objects.requireNonNull(wrapper.wrap(device), "wrapper returned null");
            } catch (RuntimeException e) {
                device.close();
                StatusException status = e instanceof StatusException s ? s
                        : new StatusException(StatusCode.INTERNAL, "device wrapper threw " + e, e);
                throw status.annotate("while wrapping device '" + deviceUri + "' with '" + wrapper.name() + "'");
            }
        }
        return device;
    }

    /** Registers {@code wrapper} with ranking 0. See {@link #registerWrapper(DeviceWrapper, int)}. */
    public void registerWrapper(DeviceWrapper wrapper) {
        registerWrapper(wrapper, 0);
    }

    /**
     * Makes {@code wrapper} available under {@link DeviceWrapper#name()} for device URIs
     * {@code name+driver://…}, ranked {@code ranking} against wrappers of the same name (higher
     * wins; on a tie the most recent). The registry does not own the wrapper; devices it wrapped
     * stay usable after it is unregistered.
     *
     * @throws StatusException ALREADY_EXISTS if it is registered already; INVALID_ARGUMENT if its
     *     name is not lower-case letters, digits, '.', '_' or '-' (starting with a letter or digit)
     */
    public void registerWrapper(DeviceWrapper wrapper, int ranking) {
        Objects.requireNonNull(wrapper, "wrapper");
        String name = wrapper.name();
        if (name == null || !WRAPPER_NAME.matcher(name).matches()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "device wrapper name '" + name
                    + "' is invalid: expected lower-case letters, digits, '.', '_' or '-'");
        }
        synchronized (writeLock) {
            for (WrapperEntry entry : wrappers) {
                if (entry.wrapper() == wrapper) {
                    throw new StatusException(StatusCode.ALREADY_EXISTS,
                            "device wrapper '" + name + "' (" + wrapper + ") is already registered");
                }
            }
            WrapperEntry[] next = Arrays.copyOf(wrappers, wrappers.length + 1);
            next[wrappers.length] = new WrapperEntry(wrapper, name, ranking, nextOrder++);
            Arrays.sort(next, WRAPPER_PRECEDENCE);
            wrappers = next; // volatile write: publishes the new snapshot to lock-free readers
        }
    }

    /**
     * Removes {@code wrapper}; devices it wrapped already stay usable until closed.
     *
     * @return whether it was registered
     */
    public boolean unregisterWrapper(DeviceWrapper wrapper) {
        synchronized (writeLock) {
            WrapperEntry[] current = wrappers;
            for (int i = 0; i < current.length; i++) {
                if (current[i].wrapper() == wrapper) {
                    WrapperEntry[] next = new WrapperEntry[current.length - 1];
                    System.arraycopy(current, 0, next, 0, i);
                    System.arraycopy(current, i + 1, next, i, current.length - i - 1);
                    wrappers = next;
                    return true;
                }
            }
            return false;
        }
    }

    /** The names of the wrappers that can be used now, sorted. Cheap. */
    public List<String> wrapperNames() {
        TreeSet<String> names = new TreeSet<>();
        for (WrapperEntry entry : wrappers) {
            names.add(entry.name());
        }
        return List.copyOf(names);
    }

    /**
     * Sets the wrappers applied to every device {@link #createDevice} creates, outermost first
     * (e.g. {@code ["validation"]} validates every device); an empty list turns this off. Names
     * are resolved at each creation, so a wrapper registered later is picked up; creating a
     * device fails with NOT_FOUND while a named wrapper is missing.
     *
     * @throws StatusException INVALID_ARGUMENT for a malformed or repeated name
     */
    public void setDefaultWrappers(List<String> names) {
        List<String> copy = List.copyOf(names);
        for (int i = 0; i < copy.size(); i++) {
            String name = copy.get(i);
            if (!WRAPPER_NAME.matcher(name).matches()) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "default device wrapper '" + name
                        + "' is not a valid wrapper name");
            }
            if (copy.indexOf(name) != i) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "default device wrapper '" + name
                        + "' is listed more than once");
            }
        }
        defaultWrappers = copy;
    }

    /** The wrappers applied to every created device, outermost first (empty by default). */
    public List<String> defaultWrappers() {
        return defaultWrappers;
    }

    private DeviceWrapper requireWrapper(String name, String deviceUri, String why) {
        for (WrapperEntry entry : wrappers) { // precedence order: the first match wins
            if (entry.name().equals(name)) {
                return entry.wrapper();
            }
        }
        List<String> available = wrapperNames();
        throw new StatusException(StatusCode.NOT_FOUND, "no HAL device wrapper '" + name + "' is registered"
                + why + " for device '" + deviceUri + "' (available wrappers: "
                + (available.isEmpty() ? "none" : String.join(", ", available)) + ")");
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
