/**
 * Causal dependency tracking with vector-clock frontiers (IREE frontier design): axes, merge, dominance, taint.
 */
@Export
@Version("1.0.0")
package dev.ortho.hal.frontier;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
