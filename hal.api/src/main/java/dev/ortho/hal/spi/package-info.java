/**
 * What HAL driver bundles and device wrappers implement: {@link dev.ortho.hal.spi.DriverFactory},
 * registered as an OSGi service (or with {@link dev.ortho.hal.DriverRegistry#register} in plain
 * Java); {@link dev.ortho.hal.spi.DeviceWrapper}, composed by device URI
 * ({@code validation+local-sync://}); the {@code Forwarding…} bases wrappers build on
 * ({@link dev.ortho.hal.spi.ForwardingDevice} and one class per object a device hands out); and
 * {@link dev.ortho.hal.spi.TimelineSemaphore}, the host semaphore drivers share;
 * {@link dev.ortho.hal.spi.CommandRecorder}, IREE's command-buffer recording rules written once,
 * which produces an immutable {@link dev.ortho.hal.spi.Recording} of
 * {@link dev.ortho.hal.spi.RecordedCommand}s; {@link dev.ortho.hal.spi.RecordingCommandBuffer}, the
 * base of a driver's own command buffer built on the recorder; and {@link dev.ortho.hal.spi.RefCount}, the
 * retain/release counter every resource uses; {@link dev.ortho.hal.spi.BufferAccess}, the host-mapping
 * rules of every driver's buffer; {@link dev.ortho.hal.spi.RootedBuffer}, the base of a driver's buffer
 * that is a root allocation or a subspan retaining it.
 */
@Export
@Version("1.4.0")
package dev.ortho.hal.spi;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
