/**
 * VMASM, IREE's textual module form: assembler and disassembler.
 */
@Export
@Version("1.0.0")
package dev.ortho.vm.asm;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
