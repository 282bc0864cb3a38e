package dev.ortho.hal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A prepared program of dispatchable functions: IREE's {@code iree_hal_executable_t}. Created by
 * an {@link ExecutableCache}; functions are addressed by ordinal.
 *
 * <p>Thread-safe (immutable once prepared).
 */
@ProviderType
public interface Executable extends Resource {

    /** The format it was prepared from, e.g. {@code jvm-static} or {@code vmvx-bytecode-fb}. */
    String format();

    /** Number of exported functions. */
    int functionCount();

    /**
     * Information about function {@code ordinal}.
     *
     * @throws dev.ortho.base.StatusException OUT_OF_RANGE if {@code ordinal} is not in
     *     {@code [0, functionCount())}
     */
    ExecutableFunctionInfo functionInfo(int ordinal);

    /**
     * The ordinal of the function named {@code name}. The default walks {@link #functionInfo}
     * in ordinal order; an executable with an index may answer faster.
     *
     * @throws dev.ortho.base.StatusException NOT_FOUND naming the function and the executable
     */
    default int lookupFunction(String name) {
        for (int i = 0, n = functionCount(); i < n; i++) {
            if (functionInfo(i).name().equals(name)) {
                return i;
            }
        }
        throw new StatusException(StatusCode.NOT_FOUND, "function '" + name + "' is not exported by " + this);
    }
}
