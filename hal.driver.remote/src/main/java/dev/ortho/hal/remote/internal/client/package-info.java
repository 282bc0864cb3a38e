/**
 * The {@code remote} driver: devices that marshal the HAL to a device server, with
 * client-assigned handles, mirrored semaphores, client-recorded command buffers and shadow
 * mappings.
 */
package dev.ortho.hal.remote.internal.client;
