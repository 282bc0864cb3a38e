package dev.ortho.hal.cpu.internal.executable;

import dev.ortho.hal.cpu.kernel.ExecutableLoader;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a CPU driver's devices prepare executables with: the {@link ExecutableLoader}s present, in
 * the order they were added (IREE tries a device's loaders in registration order), and the
 * driver's default loader options (e.g. {@code vmvx_compile} from its configuration) for devices
 * that do not set them. Plain Java fills it once; the OSGi components add and remove loaders as
 * services come and go, and every device of the driver sees the change at its next query or
 * preparation (executables already prepared are unaffected).
 *
 * <p>Thread-safe: reads take a snapshot and never block writers.
 */
public final class ExecutableLoaders {
    private final CopyOnWriteArrayList<ExecutableLoader> loaders = new CopyOnWriteArrayList<>();
    private final Map<String, String> defaultOptions;

    /**
     * @param initial the loaders, in the order they are tried
     * @param defaultOptions loader options for devices that do not set them (copied)
     */
    public ExecutableLoaders(List<? extends ExecutableLoader> initial, Map<String, String> defaultOptions) {
        initial.forEach(this::add);
        this.defaultOptions = Map.copyOf(defaultOptions);
    }

    /** Adds {@code loader} after the others; adding one already present has no effect. */
    public void add(ExecutableLoader loader) {
        loaders.addIfAbsent(Objects.requireNonNull(loader, "loader"));
    }

    /** Removes {@code loader}: no device uses it for further preparations. */
    public void remove(ExecutableLoader loader) {
        loaders.remove(loader);
    }

    /** The loaders now, in the order they are tried. */
    public List<ExecutableLoader> snapshot() {
        return List.copyOf(loaders);
    }

    /** True if a loader present lists {@code format} (IREE's "any loader supports"). */
    public boolean supportsFormat(String format) {
        for (ExecutableLoader loader : loaders) {
            if (loader.formats().contains(format)) {
                return true;
            }
        }
        return false;
    }

    /** The formats of the loaders present, sorted (for messages and shell listings). */
    public Set<String> formats() {
        Set<String> formats = new TreeSet<>();
        loaders.forEach(loader -> formats.addAll(loader.formats()));
        return formats;
    }

    /** The driver's default for loader option {@code key}, or null. */
    public String defaultOption(String key) {
        return defaultOptions.get(key);
    }
}
