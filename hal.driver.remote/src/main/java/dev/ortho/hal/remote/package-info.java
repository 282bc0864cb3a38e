/**
 * The remote HAL's server side, for hosts that expose a local device over the wire
 * ({@code ortho serve-device}, the server DS component): {@link dev.ortho.hal.remote.DeviceServer}
 * and its {@link dev.ortho.hal.remote.ServerOptions}; for hosts that start shared-memory worker JVMs
 * themselves, {@link dev.ortho.hal.remote.ShmWorkerLauncher} and {@link dev.ortho.hal.remote.ShmWorker}.
 * Clients need nothing from here: they create
 * devices by URI ({@code remote://127.0.0.1:7640?token_file=/path}) through the
 * {@link dev.ortho.hal.DriverRegistry}.
 */
@Export
@Version("1.1.0")
package dev.ortho.hal.remote;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
