/**
 * The remote HAL (private): the remote:// client driver, the device server and its transports.
 */
package dev.ortho.hal.remote.internal;
