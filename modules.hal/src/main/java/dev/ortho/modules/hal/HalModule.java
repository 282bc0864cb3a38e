package dev.ortho.modules.hal;

import dev.ortho.hal.Device;
import dev.ortho.modules.hal.internal.HalModuleFactory;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import java.util.List;

/**
 * Creates the {@code hal} VM module, version {@value #VERSION}: IREE's HAL module
 * ({@code runtime/src/iree/modules/hal}) with the same export names and calling conventions
 * ({@code allocator.*}, {@code buffer.*}, {@code buffer_view.*}, {@code channel.*},
 * {@code command_buffer.*}, {@code device.*}, {@code devices.*}, {@code ex.file.from_memory},
 * {@code executable.*}, {@code fence.*}).
 *
 * <p>Devices are explicit, as IREE's {@code iree_hal_module_create} takes a device group:
 * {@code devices.count}/{@code devices.get} expose them in the given order, and executables can
 * only be created for them. The module borrows the devices: keep them open while contexts may be
 * created from it; each context retains them while it lives and creates one executable cache per
 * device.
 *
 * <p>Differences from IREE worth knowing: {@code fence.await} never blocks a thread: it yields
 * with a wait frame (all timepoints, the given timeout) and the invocation resumes it when the
 * fences are reached (IREE's module currently forces synchronous waits). No Ortho device provides
 * collective channels, so {@code channel.create} fails with UNIMPLEMENTED. Memory files
 * ({@code ex.file.from_memory}) are the only {@code hal.file}s; {@code device.queue.read} copies
 * from them and {@code device.queue.write} to them fails with PERMISSION_DENIED (they are
 * read-only, as in IREE).
 *
 * <p>The module object is immutable and thread-safe; calls from concurrent invocations of one
 * context are safe.
 */
public final class HalModule {
    /** The module name, {@value}. */
    public static final String NAME = "hal";
    /** The module version, {@value} (IREE's {@code IREE_HAL_MODULE_VERSION_0_7}). */
    public static final int VERSION = 7;

    private HalModule() {
    }

    /**
     * Registers the {@link HalTypes} with {@code instance} and creates the module for
     * {@code devices} (may be empty; order is {@code devices.get} order) without a trace sink.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for a null device, as
     *     {@link HalTypes#register}
     */
    public static Module create(Instance instance, List<? extends Device> devices) {
        return create(instance, devices, null);
    }

    /**
     * As {@link #create(Instance, List)}, delivering {@code hal.buffer_view.trace} calls to
     * {@code traceSink} (null: ignored, as IREE without a debug sink).
     */
    public static Module create(Instance instance, List<? extends Device> devices, BufferViewTraceSink traceSink) {
        HalTypes.register(instance);
        return HalModuleFactory.build(devices, traceSink);
    }
}
