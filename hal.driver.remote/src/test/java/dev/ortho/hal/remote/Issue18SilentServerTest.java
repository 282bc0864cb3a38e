package dev.ortho.hal.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: a server whose I/O hangs (the connection open, nothing answered) holds neither a
 * short timed wait nor an interrupted one. Behind a relay the test freezes, on either TCP reader
 * (the default blocking one, whose waiting thread blocks in the socket's read, and the selector):
 * a semaphore wait with a 100 ms deadline ends with DEADLINE_EXCEEDED, an interrupted untimed
 * wait with ABORTED (the interrupt kept), both long before the liveness deadline (10 minutes
 * here), and once the server answers again the connection serves on, as a local device's
 * semaphore wait that timed out or was interrupted leaves the device usable. Before the fix the
 * blocking reader's waiter stayed in the socket's read until the server answered the reader's
 * ping (never, here): the hang guard closed the device and the wait failed with UNAVAILABLE.
 * Hang guards only, no timing assertions.
 */
class Issue18SilentServerTest {
    @Test
    void aSilentServerHoldsNeitherAShortDeadlineNorAnInterruptedWait() throws Exception {
        try (Loopback server = Loopback.start(); Relay relay = new Relay(server.server.address().getPort())) {
            for (String reader : new String[] {"blocking", "selector"}) {
                try (RemoteDriver driver = new RemoteDriver(name -> null);
                        Device device = driver.createDevice(DeviceUri.parse("remote://127.0.0.1:" + relay.port()
                                + "?token_file=" + server.tokenFile + "&deadline_ms=600000&tcp_reader=" + reader))) {
                    Semaphore semaphore = device.createSemaphore(0);
                    Semaphore never = device.createSemaphore(0);
                    Buffer buffer = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 64);
                    long value = 0;
                    boolean inRead = false;
                    for (int attempt = 0; attempt < 5 && !inRead; attempt++) {
                        // a round trip first: this thread then takes the receiving role for its next wait
                        value++;
                        device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, value), buffer, 0, 4, 1, 4, 0);
                        semaphore.await(value, Timeout.infinite());
                        relay.frozen = true;

                        StatusException late = guarded(device, reader + ": a 100 ms wait on a silent server",
                                () -> never.await(1, Timeout.of(Duration.ofMillis(100))));
                        assertEquals(StatusCode.DEADLINE_EXCEEDED, late.code(), reader + ": " + late);

                        Thread self = Thread.currentThread();
                        AtomicBoolean reading = new AtomicBoolean();
                        Thread interrupter = Thread.ofPlatform().name("interrupter").start(() -> {
                            HangGuard.await(() -> waitsIn(self), reader + ": the waiter waits");
                            reading.set(blockedReading(self));
                            self.interrupt();
                        });
                        StatusException aborted = guarded(device, reader + ": an interrupted wait on a silent server",
                                () -> never.await(1, Timeout.infinite()));
                        boolean stillSet = Thread.interrupted(); // read and cleared before join, which would throw
                        interrupter.join();
                        assertTrue(stillSet, reader + ": the interrupt stays set for the caller");
                        assertEquals(StatusCode.ABORTED, aborted.code(), reader + ": " + aborted);
                        inRead = reading.get();

                        relay.frozen = false; // the server answers again: the connection serves on
                        value++;
                        device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, value), buffer, 0, 4, 2, 4, 0);
                        semaphore.await(value, Timeout.infinite());
                    }
                    assertTrue(inRead, reader + ": in five tries the interrupt never reached the waiter in the socket's read");
                    never.signal(1);
                    never.await(1, Timeout.infinite());
                    never.release();
                    semaphore.release();
                    buffer.release();
                }
            }
        }
    }

    /**
     * Runs {@code wait}, which must fail; returns its failure. Should it not return within the
     * hang guard, closes the device (which ends the wait) and fails the test.
     */
    private static StatusException guarded(Device device, String what, Runnable wait) {
        AtomicBoolean returned = new AtomicBoolean();
        AtomicBoolean hung = new AtomicBoolean();
        Thread guard = Thread.ofPlatform().daemon().name("hang-guard").start(() -> {
            long until = System.nanoTime() + HangGuard.GUARD_NANOS;
            while (!returned.get()) {
                if (System.nanoTime() - until >= 0) {
                    hung.set(true);
                    System.err.println(what + " did not return (hang guard)\n" + HangGuard.threadDump());
                    device.close();
                    return;
                }
                LockSupport.parkNanos(1_000_000);
            }
        });
        StatusException failure;
        try {
            failure = assertThrows(StatusException.class, wait::run);
        } finally {
            returned.set(true);
        }
        try {
            guard.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // (kept for the caller, as the wait's own interrupt)
        }
        assertTrue(!hung.get(), what + " did not return (hang guard): " + failure);
        return failure;
    }

    /** Whether {@code thread} waits: in a semaphore wait, blocked in a read, a selector, a poll or a park. */
    private static boolean waitsIn(Thread thread) {
        boolean inAwait = false;
        boolean blocked = false;
        for (StackTraceElement frame : thread.getStackTrace()) {
            String where = frame.getClassName() + "." + frame.getMethodName();
            inAwait |= where.contains("RemoteSemaphore.await");
            blocked |= where.contains("NioSocketImpl.read") || where.contains("NativeSocket.read")
                    || where.contains("SelectorImpl.select") || where.contains("LockSupport.park")
                    || where.contains("Net.poll");
        }
        return inAwait && blocked;
    }

    /** Whether {@code thread} is blocked receiving: in the socket's read, or a selector of its own. */
    private static boolean blockedReading(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            String where = frame.getClassName() + "." + frame.getMethodName();
            if (where.contains("NioSocketImpl.read") || where.contains("NativeSocket.read")
                    || where.contains("SelectorImpl.select")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A TCP relay on an ephemeral loopback port to the server's port: while {@link #frozen}, bytes
     * are taken from the sockets but held back in either direction (the server answers nothing and
     * sees nothing, the connections stay open); unfrozen, they go on in order.
     */
    static final class Relay implements AutoCloseable {
        private final ServerSocket listener;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();
        volatile boolean frozen;

        Relay(int serverPort) throws IOException {
            listener = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
            Thread.ofPlatform().daemon().name("relay-accept").start(() -> {
                try {
                    while (true) {
                        Socket client = listener.accept();
                        Socket upstream = new Socket();
                        upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), serverPort));
                        client.setTcpNoDelay(true);
                        upstream.setTcpNoDelay(true);
                        sockets.add(client);
                        sockets.add(upstream);
                        Thread.ofPlatform().daemon().name("relay-up").start(() -> copy(client, upstream));
                        Thread.ofPlatform().daemon().name("relay-down").start(() -> copy(upstream, client));
                    }
                } catch (IOException e) {
                    // closed
                }
            });
        }

        int port() {
            return listener.getLocalPort();
        }

        private void copy(Socket from, Socket to) {
            byte[] bytes = new byte[64 << 10];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(bytes)) > 0) {
                    while (frozen && !to.isClosed()) {
                        LockSupport.parkNanos(1_000_000);
                    }
                    out.write(bytes, 0, n);
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }

        private static void closeQuietly(Socket socket) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket socket : sockets) {
                closeQuietly(socket);
            }
        }
    }
}
