package dev.ortho.hal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A reference-counted HAL object: IREE's {@code iree_hal_resource_t}. Whoever creates or
 * {@link #retain()}s a resource owns one reference and must {@link #release()} it; the object is
 * destroyed (memory freed, waiters cancelled) when the last reference goes. {@link #close()} is
 * {@link #release()}, so try-with-resources releases the caller's reference.
 *
 * <p>Operations that keep using a resource after the call returns (a queue submission, a fence
 * holding a semaphore) retain it themselves until they are done, so callers may release their
 * own references at once. Using a resource after its last release is a programming error that
 * the validation wrapper reports; implementations are not required to detect it.
 *
 * <p>{@code retain} and {@code release} are thread-safe.
 */
@ProviderType
public interface Resource extends AutoCloseable {

    /** Adds a reference. */
    void retain();

    /** Drops a reference; the last one destroys the resource. */
    void release();

    /** Same as {@link #release()}. */
    @Override
    default void close() {
        release();
    }
}
