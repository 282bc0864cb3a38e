/**
 * What HAL driver bundles implement: {@link dev.ortho.hal.spi.DriverFactory}, registered as an OSGi
 * service (or with {@link dev.ortho.hal.DriverRegistry#register} in plain Java).
 */
@Export
@Version("1.0.0")
package dev.ortho.hal.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
