/**
 * The extension SPI of the CPU driver: the Java dispatch ABI of {@code jvm-static} kernels (IREE
 * executable_library v0 in Java form: {@link dev.ortho.hal.cpu.kernel.KernelLibrary},
 * {@link dev.ortho.hal.cpu.kernel.Kernel}, dispatch and workgroup state) and, since 1.1,
 * executable loaders ({@link dev.ortho.hal.cpu.kernel.ExecutableLoader}) that add executable
 * formats to the CPU devices as OSGi whiteboard services.
 */
@Export
@Version("1.1.0")
package dev.ortho.hal.cpu.kernel;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
