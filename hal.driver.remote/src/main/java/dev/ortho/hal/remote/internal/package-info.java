/**
 * The remote HAL (private): the {@code remote://} client driver ({@code client}), the device
 * server's per-client sessions ({@code server}), the wire protocol ({@code protocol}), the TCP
 * transport ({@code transport}), the shared-memory transport and worker pool ({@code shm}),
 * wait gating shared by both ends ({@code sync}) and the DS adapters ({@code osgi}).
 */
package dev.ortho.hal.remote.internal;
