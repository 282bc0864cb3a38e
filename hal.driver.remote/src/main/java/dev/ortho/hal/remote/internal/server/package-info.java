/**
 * The device server's per-client sessions: handshake and token check, handle table with quotas,
 * frame decoding, and queue operations held until their waits are reached.
 */
package dev.ortho.hal.remote.internal.server;
