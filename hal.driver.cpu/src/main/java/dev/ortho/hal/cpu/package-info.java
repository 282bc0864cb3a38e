/**
 * The CPU drivers for code that runs without a framework: {@link dev.ortho.hal.cpu.CpuDrivers}
 * builds the {@code local-sync} and {@code local-task} driver factories that the bundle's DS
 * components publish as services inside OSGi, and (since 1.1) their devices, with options,
 * kernel libraries and executable loaders ({@link dev.ortho.hal.cpu.CpuDrivers.Builder}).
 */
@Export
@Version("1.3.0")
package dev.ortho.hal.cpu;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
