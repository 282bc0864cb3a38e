/**
 * The process-based cooperative task executor (IREE task system design): processes, executor, scopes, CPU topology.
 */
@Export
@Version("1.4.0")
package dev.ortho.task;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
