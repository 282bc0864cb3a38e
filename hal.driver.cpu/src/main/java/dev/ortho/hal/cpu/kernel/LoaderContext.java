package dev.ortho.hal.cpu.kernel;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What a CPU device tells an {@link ExecutableLoader} about the preparation it asks for: the
 * executable cache it prepares in and the device options that concern loaders. Created by the
 * device for one {@link ExecutableLoader#load} call; borrowed for that call only. Thread-safe.
 */
@ProviderType
public interface LoaderContext {

    /**
     * The device option that chooses how {@code vmvx-bytecode-fb} dispatch functions run:
     * {@code off}, {@code lazy} or {@code eager} (a {@code local-sync}/{@code local-task} URI
     * parameter and driver configuration property of that name).
     */
    String VMVX_COMPILE = "vmvx_compile";

    /** The identifier the executable cache was created with, for messages. */
    String cacheIdentifier();

    /**
     * The value of device option {@code key} (for example {@link #VMVX_COMPILE}), or null if the
     * device was not given it (the loader then uses its own default). The device has validated
     * the options it knows.
     */
    String option(String key);
}
