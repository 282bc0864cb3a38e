/**
 * The Java dispatch ABI of jvm-static CPU executables (IREE executable_library v0 in Java form).
 */
@Export
@Version("1.0.0")
package dev.ortho.hal.cpu.kernel;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
