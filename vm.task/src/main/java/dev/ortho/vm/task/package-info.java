/**
 * VM invocations as coroutine processes of the task executor (seed 000, "Coroutine process: VM
 * execution"). This bundle exists because the adapter needs exactly {@code dev.ortho.vm} and
 * {@code dev.ortho.task} (DESIGN.md §2: vm.core must not depend on the scheduler, and the
 * scheduler knows nothing of the VM); it used to live in hal.driver.cpu
 * ({@code dev.ortho.hal.cpu.invoke}), which it never used.
 */
@Export
@Version("1.0.0")
package dev.ortho.vm.task;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
