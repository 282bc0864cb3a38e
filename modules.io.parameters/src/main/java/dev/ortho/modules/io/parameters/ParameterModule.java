package dev.ortho.modules.io.parameters;

import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.modules.io.parameters.internal.ParameterModuleFactory;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;

/**
 * Creates the {@code io_parameters} VM module, version {@value #VERSION}: IREE's
 * {@code runtime/src/iree/modules/io/parameters} with the same exports and calling conventions:
 * {@code load} ({@code 0rIrrrIiirrr_r}), {@code gather} and {@code scatter} ({@code 0rIrrrrrrr_v}).
 * Programs compiled with externalized parameters ({@code #flow.parameter.named<"scope"::"key">},
 * {@code iree-import-onnx --externalize-params}) import it; the tools add it when a module needs it,
 * over the {@code --parameters=} files.
 *
 * <pre>{@code
 * try (ParameterIndex index = ParameterIndex.open(List.of("model=weights.irpa"))) {
 *     Module hal = HalModule.create(instance, List.of(device));
 *     Module parameters = ParameterModule.create(instance, index);
 *     try (Context context = Context.create(instance, hal, parameters, program)) { ... }
 * }
 * }</pre>
 *
 * <p>Each scope of the index is one provider (IREE's parameter index provider); a scope no
 * provider serves is NOT_FOUND, as is a key. How parameters reach device buffers, and which copies
 * happen, is in the module's implementation notes: in short, on devices that use host memory in
 * place ({@code HOST_ZERO_COPY_OK}: the CPU devices) constants are imported from the mapped archive
 * without a copy and everything else is one device copy from the mapping; other devices (remote)
 * get the bytes by queue update or a host staging buffer and a queue copy.
 *
 * <p>The module borrows the index: keep it open while contexts may be created from the module.
 * Each context holds a reference on the index's archives while it lives, and every buffer imported
 * from an archive holds one while it lives, so closing the index early never unmaps memory in
 * use. The module is immutable and thread-safe.
 */
public final class ParameterModule {
    /** The module name, {@value}. */
    public static final String NAME = "io_parameters";
    /** The module version, {@value} (IREE's {@code IREE_IO_PARAMETERS_MODULE_VERSION_0_0}). */
    public static final int VERSION = 0;

    private ParameterModule() {
    }

    /**
     * Registers the {@link HalTypes} with {@code instance} (the exports take and return HAL refs)
     * and creates the module serving {@code index}.
     *
     * @throws dev.ortho.base.StatusException INVALID_ARGUMENT for a null index, as
     *     {@link HalTypes#register}
     */
    public static Module create(Instance instance, ParameterIndex index) {
        HalTypes.register(instance);
        return ParameterModuleFactory.build(index);
    }
}
