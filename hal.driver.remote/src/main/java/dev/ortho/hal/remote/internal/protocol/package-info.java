/**
 * The remote HAL wire protocol: constants and layouts ({@link dev.ortho.hal.remote.internal.protocol.Protocol}),
 * a frame builder and a bounds-checked frame reader. Versioned by the handshake; decoding never
 * trusts a length it has not checked.
 */
package dev.ortho.hal.remote.internal.protocol;
