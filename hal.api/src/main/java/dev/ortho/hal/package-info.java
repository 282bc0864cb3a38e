/**
 * The HAL client API: drivers, devices and the {@link dev.ortho.hal.DriverRegistry} that finds
 * them by name or device URI ({@code driver://path?key=value}).
 *
 * <p>Follows IREE's HAL ({@code iree/hal/*.h}): drivers are cheap to enumerate and expensive to
 * create; devices are created from a driver. Errors are {@link dev.ortho.base.StatusException}s
 * with IREE's codes.
 */
@Export
@Version("2.3.0")
package dev.ortho.hal;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
