/**
 * Service provider interfaces of the VM: module providers and instruction extensions.
 */
@Export
@Version("1.0.0")
package dev.ortho.vm.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
