/**
 * The shared-memory transport (seed 001): a mailbox in a memory-mapped file with the
 * IDLE / TASK_READY / TASK_DONE / SHUTDOWN state machine per direction, pumps that spin briefly
 * then park with bounded slices (senders write their blocks themselves, and a caller waiting for
 * the peer polls the incoming channel itself while the pump parks), and a pool of pre-spawned
 * workers in THREAD or PROCESS mode.
 */
package dev.ortho.hal.remote.internal.shm;
