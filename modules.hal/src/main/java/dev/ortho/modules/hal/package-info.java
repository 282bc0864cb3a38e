/**
 * The {@code hal} VM module, version 7: IREE's HAL module for Ortho VM programs. Build it with
 * {@link dev.ortho.modules.hal.HalModule#create} from an {@link dev.ortho.vm.Instance} and the
 * devices programs may use (what {@code --device=} selects in the tools), or get it from the
 * {@code ModuleProvider} service this bundle registers ({@code vm.module.name=hal}).
 * {@link dev.ortho.modules.hal.HalTypes} names the ref types and
 * {@link dev.ortho.modules.hal.HalRefs} moves HAL objects in and out of VM refs (program inputs
 * and results).
 */
@Export
@Version("1.0.0")
package dev.ortho.modules.hal;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
