/**
 * VM runtime: instance and type registry, refs, lists, buffers, modules, contexts, invocations.
 */
@Export
@Version("1.2.0")
package dev.ortho.vm;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
