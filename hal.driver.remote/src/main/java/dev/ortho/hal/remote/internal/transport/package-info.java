/**
 * Transports for the remote HAL behind one interface
 * ({@link dev.ortho.hal.remote.internal.transport.Transport}), and the TCP one.
 *
 * <p><b>NIO, not Netty.</b> The TCP transport is one selector thread per endpoint
 * ({@link dev.ortho.hal.remote.internal.transport.IoLoop}) and a length-prefixed framer
 * ({@link dev.ortho.hal.remote.internal.transport.TcpConnection}) written on the JDK's
 * {@code java.nio.channels}. What the remote HAL needs from a network library is small: frames,
 * non-blocking writes from any thread (including semaphore callbacks), a periodic tick for
 * liveness, and a hard cap on what a peer can make us allocate. Netty would bring a third-party
 * dependency (and its event-loop, buffer-pool and reference-counting models) into a driver
 * bundle whose only allowed dependency is hal.api; its strengths (TLS, HTTP/2, many protocols,
 * epoll tuning) are not used here. A client's plain-TCP connection by default blocks its waiting
 * thread in the socket's read instead
 * ({@link dev.ortho.hal.remote.internal.transport.BlockingTcpConnection}, one system call per
 * receive), on a socket no interrupt closes: one it drives through the C library where native
 * access is enabled ({@code NativeSocket}), else a {@code java.net.Socket}'s streams.
 * The shared-memory transport lives in {@code internal.shm}.
 */
package dev.ortho.hal.remote.internal.transport;
