package dev.ortho.modules.hal;

import dev.ortho.modules.hal.internal.HalRef;
import dev.ortho.vm.Instance;
import dev.ortho.vm.RefType;
import java.util.List;

/**
 * The ref types of the {@code hal} module, with IREE's names ({@code modules/hal/types.c}).
 * Programs name them in their type tables ({@code !hal.buffer_view}); an {@link Instance} must
 * have them registered before such a program loads ({@link HalModule#create} does it).
 *
 * <p>{@code hal.channel} is registered so programs that mention collectives load, but no Ortho
 * device creates channels yet ({@code hal.channel.create} fails with UNIMPLEMENTED). Immutable
 * constants; thread-safe.
 */
public final class HalTypes {
    /** {@code hal.allocator}: a device's allocator (the ref keeps the device alive). */
    public static final RefType ALLOCATOR = RefType.of("hal.allocator", HalRef.class);
    /** {@code hal.buffer}. */
    public static final RefType BUFFER = RefType.of("hal.buffer", HalRef.class);
    /** {@code hal.buffer_view}. */
    public static final RefType BUFFER_VIEW = RefType.of("hal.buffer_view", HalRef.class);
    /** {@code hal.channel}: collective channels (none can be created yet). */
    public static final RefType CHANNEL = RefType.of("hal.channel", HalRef.class);
    /** {@code hal.command_buffer}. */
    public static final RefType COMMAND_BUFFER = RefType.of("hal.command_buffer", HalRef.class);
    /** {@code hal.device}. */
    public static final RefType DEVICE = RefType.of("hal.device", HalRef.class);
    /** {@code hal.event}. */
    public static final RefType EVENT = RefType.of("hal.event", HalRef.class);
    /** {@code hal.executable}. */
    public static final RefType EXECUTABLE = RefType.of("hal.executable", HalRef.class);
    /** {@code hal.fence}. */
    public static final RefType FENCE = RefType.of("hal.fence", HalRef.class);
    /** {@code hal.file}: a readable file; today only memory files from {@code hal.ex.file.from_memory}. */
    public static final RefType FILE = RefType.of("hal.file", HalRef.class);
    /** {@code hal.semaphore}. */
    public static final RefType SEMAPHORE = RefType.of("hal.semaphore", HalRef.class);

    /** Every type, in name order. */
    public static final List<RefType> ALL = List.of(ALLOCATOR, BUFFER, BUFFER_VIEW, CHANNEL, COMMAND_BUFFER, DEVICE,
            EVENT, EXECUTABLE, FENCE, FILE, SEMAPHORE);

    private HalTypes() {
    }

    /**
     * Registers every type with {@code instance} (IREE's {@code iree_hal_module_register_all_types}).
     * Registration is counted, so calling it again is harmless; each call is undone by one
     * {@link #unregister}.
     *
     * @throws dev.ortho.base.StatusException ALREADY_EXISTS if another bundle registered one of the
     *     names with a different Java class
     */
    public static void register(Instance instance) {
        for (RefType type : ALL) {
            instance.registerType(type);
        }
    }

    /**
     * Drops one registration of every type.
     *
     * @throws dev.ortho.base.StatusException NOT_FOUND if they were not registered
     */
    public static void unregister(Instance instance) {
        for (RefType type : ALL) {
            instance.unregisterType(type);
        }
    }
}
