/**
 * JDK Flight Recorder events of the HAL: queue operations from submit to retire
 * ({@link QueueOperationEvent}), the tiles each worker ran of a dispatch region
 * ({@link DispatchTilesEvent}), host-side semaphore waits and signals
 * ({@link SemaphoreWaitEvent}, {@link SemaphoreSignalEvent}), buffer allocations
 * ({@link AllocationEvent}) and remote HAL request frames ({@link RemoteFrameEvent}). Drivers emit them; a recording enables them by name
 * ({@code dev.ortho.hal.*}). Disabled, every hook is one static read and allocates nothing.
 */
@Export
@Version("1.1.0")
package dev.ortho.hal.trace;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
