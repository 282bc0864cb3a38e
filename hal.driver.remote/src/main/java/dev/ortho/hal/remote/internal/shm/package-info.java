/**
 * The shared-memory transport (seed 001): a mailbox in a memory-mapped file with the
 * IDLE / TASK_READY / TASK_DONE / SHUTDOWN state machine per direction, senders that write their
 * blocks themselves and a caller waiting for the peer that polls the incoming channel itself,
 * sides that spin briefly and then sleep on a doorbell the peer rings only when the sleeper
 * announced itself in the mailbox ({@link dev.ortho.hal.remote.internal.shm.Sleepers},
 * {@link dev.ortho.hal.remote.internal.shm.Doorbell}: Linux futexes in the mailbox where native
 * access allows, else Unix-domain sockets between processes and pipes in one), and a pool of
 * pre-spawned workers in THREAD or PROCESS mode.
 */
package dev.ortho.hal.remote.internal.shm;
