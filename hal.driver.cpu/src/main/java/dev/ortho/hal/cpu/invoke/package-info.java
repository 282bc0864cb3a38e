/**
 * VM invocations as coroutine processes of the task executor (seed 000, "Coroutine process: VM
 * execution"). This bundle hosts the adapter because it is the one bundle allowed to see both
 * {@code dev.ortho.vm} and {@code dev.ortho.task} (DESIGN.md §2): vm.core must not depend on the
 * scheduler, and the scheduler knows nothing of the VM.
 */
@Export
@Version("1.0.0")
package dev.ortho.hal.cpu.invoke;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
