package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a driver factory says about one driver it can create, without creating it: IREE's
 * {@code iree_hal_driver_info_t}.
 *
 * @param name the driver name used as the scheme of device URIs, e.g. {@code local-task}
 * @param description a one-line human-readable description (IREE's {@code full_name})
 */
public record DriverInfo(String name, String description) {
    private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9._-]*");

    /**
     * @throws StatusException INVALID_ARGUMENT if {@code name} is not a valid driver name
     *     (lower-case letters, digits, {@code .}, {@code _}, {@code -}; starting with a letter or
     *     digit; {@code +} is reserved for wrapper composition such as {@code validation+local-task})
     */
    public DriverInfo {
        Objects.requireNonNull(description, "description");
        if (name == null || !NAME.matcher(name).matches()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "driver name '" + name
                    + "' is invalid: expected lower-case letters, digits, '.', '_' or '-'");
        }
    }
}
