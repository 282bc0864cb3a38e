package dev.ortho.hal;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A collective communication group one participant belongs to: IREE's
 * {@code iree_hal_channel_t}, created by {@link Device#createChannel} and used by
 * {@link CommandBuffer#collective}. Collective channels share one frontier axis
 * ({@link dev.ortho.hal.frontier.ChannelAxis}).
 *
 * <p>Thread-safe; the creator owns the reference.
 */
@ProviderType
public interface Channel extends Resource {

    /** This participant's rank in {@code [0, count())}. */
    int rank();

    /** The number of participants. */
    int count();
}
