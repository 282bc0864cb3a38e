package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/** Opens the {@link BlockingSocket} of a {@link BlockingTcpConnection}. */
public final class BlockingSockets {
    private BlockingSockets() {
    }

    /**
     * Connects a socket for this transport to {@code address} within {@code timeoutMillis} (0: no
     * limit): a {@link NativeSocket} where available, else a {@link Socket} for
     * {@link SocketStreams} with {@code TCP_NODELAY}. On a platform thread (a short-lived one if
     * the caller is a virtual thread). A {@link Socket} connects without a timed operation (which
     * would leave it non-blocking for good): untimed, with a watchdog (a virtual thread,
     * {@code ortho-remote-connect-timeout}, gone as soon as the connect ends) that closes it at
     * the timeout.
     *
     * @throws SocketTimeoutException if the timeout passed first
     * @throws IOException if the connect failed (refused, unreachable) or a virtual caller was interrupted
     */
    public static BlockingSocket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        return connect(address, timeoutMillis, NativeSocket.available());
    }

    /** {@link #connect(InetSocketAddress, int)}; {@code nativeSocket} false: a {@link SocketStreams} even where a {@link NativeSocket} is available. */
    static BlockingSocket connect(InetSocketAddress address, int timeoutMillis, boolean nativeSocket) throws IOException {
        if (Thread.currentThread().isVirtual()) {
            return onPlatformThread(() -> connect(address, timeoutMillis, nativeSocket), address);
        }
        if (nativeSocket) {
            return NativeSocket.connect(address, timeoutMillis);
        }
        Socket socket = new Socket();
        AtomicBoolean settled = new AtomicBoolean();
        Thread watchdog = null;
        if (timeoutMillis > 0) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            watchdog = Thread.ofVirtual().name("ortho-remote-connect-timeout").start(() -> {
                long left;
                while (!settled.get() && (left = deadline - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(left);
                }
                if (settled.compareAndSet(false, true)) {
                    closeQuietly(socket);
                }
            });
        }
        IOException failure = null;
        try {
            socket.connect(address);
            socket.setTcpNoDelay(true);
        } catch (IOException e) {
            failure = e;
        }
        boolean timedOut = !settled.compareAndSet(false, true); // else the watchdog does nothing from now on
        LockSupport.unpark(watchdog); // (null: none) it sees the connect settled and ends
        if (timedOut || failure != null) {
            closeQuietly(socket);
            throw timedOut ? new SocketTimeoutException("connect timed out after " + timeoutMillis + " ms") : failure;
        }
        return new SocketStreams(socket);
    }

    /** A connect that must not run on a virtual thread: on a short-lived platform thread, joined. */
    private static BlockingSocket onPlatformThread(java.util.concurrent.Callable<BlockingSocket> connect,
            InetSocketAddress address) throws IOException {
        java.util.concurrent.CompletableFuture<BlockingSocket> result = new java.util.concurrent.CompletableFuture<>();
        Thread connector = Thread.ofPlatform().daemon().name("ortho-remote-connect").start(() -> {
            try {
                result.complete(connect.call());
            } catch (Throwable t) {
                result.completeExceptionally(t);
            }
        });
        try {
            connector.join();
        } catch (InterruptedException e) {
            result.thenAccept(BlockingSocket::close); // once it connected: not wanted any more
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while connecting to " + address);
        }
        try {
            return result.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
