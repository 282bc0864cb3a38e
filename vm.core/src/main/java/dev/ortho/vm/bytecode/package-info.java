/**
 * IREE bytecode modules: archive and FlatBuffer reader/writer, verifier, interpreter.
 */
@Export
@Version("1.0.0")
package dev.ortho.vm.bytecode;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
