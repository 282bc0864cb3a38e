package dev.ortho.hal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A command-buffer-level synchronization point signalled and waited within queues: IREE's
 * {@code iree_hal_event_t}. Only meaningful inside command buffers of the device that created
 * it.
 */
@ProviderType
public interface Event extends Resource {}
