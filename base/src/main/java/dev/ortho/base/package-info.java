/**
 * Small value types shared by every Ortho bundle: IREE's canonical {@link dev.ortho.base.StatusCode}s,
 * the one unchecked {@link dev.ortho.base.StatusException} that crosses API boundaries,
 * {@link dev.ortho.base.Deadline}/{@link dev.ortho.base.Timeout} for every wait, and the
 * {@link dev.ortho.base.MemoryPool} of off-heap blocks that the VM's and the CPU devices' buffers
 * recycle.
 *
 * <p>Dependency-free: usable from plain Java and from any OSGi bundle.
 */
@Export
@Version("1.1.0")
package dev.ortho.base;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
