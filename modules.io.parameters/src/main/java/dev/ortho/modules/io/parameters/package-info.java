/**
 * The {@code io_parameters} VM module, version 0: IREE's parameter module, through which compiled
 * programs load their externalized weights. Build it with
 * {@link dev.ortho.modules.io.parameters.ParameterModule#create} from a
 * {@link dev.ortho.io.parameters.ParameterIndex}, or get it from the {@code ModuleProvider} service
 * this bundle registers ({@code vm.module.name=io_parameters}).
 */
@Export
@Version("1.0.0")
package dev.ortho.modules.io.parameters;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
