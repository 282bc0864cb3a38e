package dev.ortho.modules.io.parameters.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.io.parameters.ParameterModule;
import dev.ortho.vm.Module;
import dev.ortho.vm.NativeModule;

/**
 * Builds the {@code io_parameters} native module: IREE's export table (same names, calling
 * conventions and order) bound to {@link ParameterExports}, and the per-context
 * {@link ParametersState}.
 */
public final class ParameterModuleFactory {
    private ParameterModuleFactory() {
    }

    /**
     * A new module serving {@code index} (borrowed; see {@link ParameterModule}).
     *
     * @throws StatusException INVALID_ARGUMENT for a null index
     */
    public static Module build(ParameterIndex index) {
        if (index == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "io_parameters module index is null");
        }
        return NativeModule.<ParametersState>builder(ParameterModule.NAME, ParameterModule.VERSION)
                .state(context -> ParametersState.create(index), (context, parent) -> parent.fork(),
                        ParametersState::free)
                .export("gather", "0rIrrrrrrr_v", ParameterExports::gather)
                .export("load", "0rIrrrIiirrr_r", ParameterExports::load)
                .export("scatter", "0rIrrrrrrr_v", ParameterExports::scatter)
                .build();
    }
}
