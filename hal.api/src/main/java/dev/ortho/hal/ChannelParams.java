package dev.ortho.hal;

/**
 * How to join a collective group: IREE's {@code iree_hal_channel_params_t}.
 *
 * @param flags channel flags (none are defined yet; must be 0)
 * @param id implementation-defined group identifier bytes (e.g. an NCCL unique id); may be
 *     empty, copied by the device
 * @param group user-defined key distinguishing several groups; may be empty
 * @param rank this participant's rank in {@code [0, count)}, or {@link #RANK_DEFAULT}
 * @param count the number of participants, or {@link #COUNT_DEFAULT}
 */
public record ChannelParams(long flags, byte[] id, String group, int rank, int count) {
    /** Let the device pick the rank from its environment (IREE_HAL_CHANNEL_RANK_DEFAULT). */
    public static final int RANK_DEFAULT = -1;
    /** Let the device pick the count from its environment (IREE_HAL_CHANNEL_COUNT_DEFAULT). */
    public static final int COUNT_DEFAULT = -1;
}
