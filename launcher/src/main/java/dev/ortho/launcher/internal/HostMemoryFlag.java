package dev.ortho.launcher.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.HostMemoryLimit;
import java.util.Locale;

/**
 * {@code --vm_host_memory_limit=N} of {@code run-module} and {@code benchmark-module}: the
 * {@link HostMemoryLimit} of the run's context, in bytes, with an optional binary suffix
 * ({@code k}, {@code m}, {@code g}: KiB, MiB, GiB). Absent or empty: no limit.
 * IREE's tools have no such flag (their host allocator is unbounded); the name follows their
 * {@code --vm_…}/{@code --device_…} style.
 */
final class HostMemoryFlag {
    static final String NAME = "vm_host_memory_limit";

    private HostMemoryFlag() {
    }

    /**
     * The limit {@code flags} ask for, {@link HostMemoryLimit#UNLIMITED} without the flag.
     *
     * @throws StatusException INVALID_ARGUMENT naming the flag and the text if it is not a
     *     non-negative byte count
     */
    static HostMemoryLimit parse(ToolFlags flags) {
        String text = flags.get(NAME, "").strip();
        if (text.isEmpty()) {
            return HostMemoryLimit.UNLIMITED;
        }
        return HostMemoryLimit.of(bytes(text));
    }

    static long bytes(String text) {
        String lower = text.toLowerCase(Locale.ROOT);
        int shift = switch (lower.isEmpty() ? ' ' : lower.charAt(lower.length() - 1)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        String digits = shift == 0 ? lower : lower.substring(0, lower.length() - 1);
        try {
            long value = Long.parseLong(digits);
            if (value >= 0 && value <= Long.MAX_VALUE >> shift && !digits.startsWith("+")) {
                return value << shift;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "--" + NAME
                + " must be a byte count (e.g. 1048576, 512k, 64m, 2g), got '" + text + "'");
    }
}
