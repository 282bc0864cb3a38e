package dev.ortho.hal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A registered {@link TimepointCallback}: the handle returned by {@link Semaphore#addTimepoint}.
 * Thread-safe.
 */
@ProviderType
public interface Timepoint {

    /**
     * Removes the timepoint if its callback has not been dispatched yet.
     *
     * @return true if the callback will never run; false if it has run or is running now (a
     *     caller that owns state the callback touches must then wait for the callback itself)
     */
    boolean cancel();
}
