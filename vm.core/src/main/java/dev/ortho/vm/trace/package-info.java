/**
 * JDK Flight Recorder events of the VM: host invocations ({@link InvocationEvent}), calls
 * across modules through imports ({@link ImportCallEvent}) and invocations blocked on a VM wait
 * ({@link WaitEvent}). Plain {@code jdk.jfr} events; a
 * recording enables them by name ({@code dev.ortho.vm.*}). When no recording enables them, the
 * hooks test one static flag and allocate nothing.
 */
@Export
@Version("1.0.0")
package dev.ortho.vm.trace;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
