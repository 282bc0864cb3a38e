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
import dev.ortho.hal.Semaphore;
import dev.ortho.hal.SemaphoreList;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 18: both TCP readers of a remote device ({@code tcp_reader=blocking}, the default, where
 * the waiting thread blocks in the socket's read; {@code tcp_reader=selector}) serve round trips,
 * end a wait on its deadline without losing the connection, and end a wait a host signal
 * satisfies while the waiting thread is blocked receiving (with pings 150 s apart, only the
 * wake-up ends it); an interrupted wait, of a platform or a virtual thread, ends with ABORTED and
 * the connection serves on; a bad value is INVALID_ARGUMENT naming the parameter and the value.
 */
class Issue18TcpReaderTest {
    @Test
    void bothReadersServeRoundTripsDeadlinesAndHostSignals() throws Exception {
        try (Loopback server = Loopback.start()) {
            for (String reader : new String[] {"blocking", "selector"}) {
                try (Device device = server.connect("tcp_reader=" + reader + "&deadline_ms=600000")) {
                    Semaphore semaphore = device.createSemaphore(0);
                    Buffer buffer = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 64);
                    for (int i = 1; i <= 50; i++) { // each a request out and a report back
                        device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, i), buffer, 0, 4, i, 4, 0);
                        semaphore.await(i, Timeout.infinite());
                    }
                    Semaphore never = device.createSemaphore(0);
                    StatusException late = assertThrows(StatusException.class,
                            () -> never.await(1, Timeout.of(Duration.ofMillis(20))));
                    assertEquals(StatusCode.DEADLINE_EXCEEDED, late.code(), reader + ": " + late);

                    // this thread waits (after a round trip it holds the receiving role: blocked in
                    // the socket's read or its selector); another thread's host signal must end it
                    Thread self = Thread.currentThread();
                    java.util.concurrent.atomic.AtomicBoolean returned = new java.util.concurrent.atomic.AtomicBoolean();
                    java.util.concurrent.atomic.AtomicBoolean hung = new java.util.concurrent.atomic.AtomicBoolean();
                    Thread signaller = Thread.ofPlatform().name("host-signaller").start(() -> {
                        HangGuard.await(() -> waitsIn(self), reader + ": the waiter waits");
                        never.signal(1);
                        long guard = System.nanoTime() + HangGuard.GUARD_NANOS;
                        while (!returned.get()) {
                            if (System.nanoTime() - guard >= 0) {
                                hung.set(true);
                                System.err.println(HangGuard.threadDump());
                                device.close(); // ends the wait with an error instead of hanging the build
                                return;
                            }
                            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                        }
                    });
                    device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, 51), buffer, 0, 4, 51, 4, 0);
                    semaphore.await(51, Timeout.infinite());
                    never.await(1, Timeout.infinite());
                    returned.set(true);
                    signaller.join();
                    assertTrue(!hung.get(), reader + ": a wait a host signal satisfied did not return (hang guard)");

                    device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, 52), buffer, 0, 4, 52, 4, 0);
                    semaphore.await(52, Timeout.infinite()); // the connection still serves
                    never.release();
                    semaphore.release();
                    buffer.release();
                }
            }
        }
    }

    /** Whether {@code thread} waits: in a semaphore wait, blocked in a read, a selector or a park. */
    private static boolean waitsIn(Thread thread) {
        boolean inAwait = false;
        boolean blocked = false;
        for (StackTraceElement frame : thread.getStackTrace()) {
            String where = frame.getClassName() + "." + frame.getMethodName();
            inAwait |= where.contains("RemoteSemaphore.await");
            blocked |= where.contains("SocketChannelImpl.read") || where.contains("NioSocketImpl.read")
                    || where.contains("NativeSocket.read")
                    || where.contains("SelectorImpl.select")
                    || where.contains("LockSupport.park") || where.contains("Net.poll");
        }
        return inAwait && blocked;
    }

    /**
     * On either reader (the default blocking one first) a thread interrupted while it waits on a
     * remote device gets ABORTED, keeps its interrupt, and the connection (with the device's
     * buffers and operations) serves on. The interrupt must reach the thread while it is blocked
     * in the socket's read (or, on the selector reader, its selector) at least once in up to five
     * tries (a try whose waiter the reader thread happened to hold parked counts, but does not
     * end the test): there a blocking {@code SocketChannel} would close.
     */
    @Test
    void anInterruptedWaitOnTheDefaultReaderIsAbortedAndTheConnectionServesOn() throws Exception {
        try (Loopback server = Loopback.start()) {
            for (String params : new String[] {"deadline_ms=600000", "deadline_ms=600000&tcp_reader=selector"}) {
                try (Device device = server.connect(params)) {
                    Semaphore semaphore = device.createSemaphore(0);
                    Buffer buffer = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 64);
                    long value = 0;
                    boolean inRead = false;
                    for (int attempt = 0; attempt < 5 && !inRead; attempt++) {
                        value++;
                        device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, value), buffer, 0, 4, 1, 4, 0);
                        semaphore.await(value, Timeout.infinite());
                        Semaphore never = device.createSemaphore(0);
                        Thread self = Thread.currentThread();
                        java.util.concurrent.atomic.AtomicBoolean reading = new java.util.concurrent.atomic.AtomicBoolean();
                        Thread interrupter = Thread.ofPlatform().name("interrupter").start(() -> {
                            HangGuard.await(() -> waitsIn(self), params + ": the waiter waits");
                            reading.set(blockedReading(self));
                            self.interrupt();
                        });
                        StatusException aborted = assertThrows(StatusException.class, () -> never.await(1, Timeout.infinite()));
                        boolean stillSet = Thread.interrupted(); // read and cleared before join, which would throw
                        interrupter.join();
                        assertTrue(stillSet, params + ": the interrupt stays set for the caller");
                        assertEquals(StatusCode.ABORTED, aborted.code(), params + ": " + aborted);
                        inRead = reading.get();

                        value++;
                        device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, value), buffer, 0, 4, 2, 4, 0);
                        semaphore.await(value, Timeout.infinite()); // the connection still serves
                        never.release();
                    }
                    assertTrue(inRead, params + ": in five tries the interrupt never reached the waiter in the socket's read");
                    semaphore.release();
                    buffer.release();
                }
            }
        }
    }

    /** Whether {@code thread} is blocked receiving: in the socket's read, or a selector of its own. */
    private static boolean blockedReading(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            String where = frame.getClassName() + "." + frame.getMethodName();
            if (where.contains("SocketChannelImpl.read") || where.contains("NioSocketImpl.read")
                    || where.contains("NativeSocket.read") || where.contains("SelectorImpl.select")) {
                return true;
            }
        }
        return false;
    }

    /**
     * A virtual thread waiting on a device on the default reader never blocks in the socket (the
     * JDK would close a socket whose blocked virtual thread is interrupted): the reader thread
     * receives for it. Its round trips work, an interrupt ends its wait with ABORTED, and the
     * connection serves on, for it and for a platform thread.
     */
    @Test
    void anInterruptedVirtualThreadWaitIsAbortedAndTheConnectionServesOn() throws Exception {
        try (Loopback server = Loopback.start(); Device device = server.connect("deadline_ms=600000")) {
            Semaphore semaphore = device.createSemaphore(0);
            Semaphore never = device.createSemaphore(0);
            Buffer buffer = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 64);
            java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicReference<StatusException> aborted = new java.util.concurrent.atomic.AtomicReference<>();
            java.util.concurrent.atomic.AtomicBoolean stillSet = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.atomic.AtomicBoolean atNever = new java.util.concurrent.atomic.AtomicBoolean();
            Thread waiter = Thread.ofVirtual().name("virtual-waiter").start(() -> {
                try {
                    for (int i = 1; i <= 20; i++) {
                        device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, i), buffer, 0, 4, i, 4, 0);
                        semaphore.await(i, Timeout.infinite());
                    }
                    atNever.set(true);
                    try {
                        never.await(1, Timeout.infinite());
                    } catch (StatusException e) {
                        aborted.set(e);
                    }
                    stillSet.set(Thread.interrupted());
                    device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, 21), buffer, 0, 4, 21, 4, 0);
                    semaphore.await(21, Timeout.infinite()); // the connection still serves the virtual thread
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            HangGuard.await(() -> atNever.get() && parkedInAwait(waiter), "the virtual thread waits");
            waiter.interrupt();
            waiter.join(java.time.Duration.ofNanos(HangGuard.GUARD_NANOS));
            assertTrue(!waiter.isAlive(), "the virtual thread returned (hang guard)");
            assertEquals(null, failure.get());
            assertTrue(aborted.get() != null && aborted.get().code() == StatusCode.ABORTED, String.valueOf(aborted.get()));
            assertTrue(stillSet.get(), "the interrupt stays set for the virtual thread");

            device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, 22), buffer, 0, 4, 22, 4, 0);
            semaphore.await(22, Timeout.infinite()); // and a platform thread
            never.release();
            semaphore.release();
            buffer.release();
        }
    }

    /** Whether {@code thread} is parked in a semaphore wait (a virtual thread's stack shows no socket). */
    private static boolean parkedInAwait(Thread thread) {
        boolean inAwait = false;
        boolean parked = false;
        for (StackTraceElement frame : thread.getStackTrace()) {
            String where = frame.getClassName() + "." + frame.getMethodName();
            inAwait |= where.contains("RemoteSemaphore.await");
            parked |= where.contains("park");
        }
        return inAwait && parked;
    }

    /**
     * The blocking reader's socket connects untimed (a timed connect would leave it non-blocking
     * for good) with a watchdog that closes it at {@code connect_timeout_ms}: a server whose
     * accept queue is full (SYNs dropped) fails the device with UNAVAILABLE naming the timeout,
     * on either reader, from a platform and from a virtual thread.
     */
    @Test
    void aConnectThatDoesNotCompleteTimesOutWithUnavailable() throws Exception {
        try (java.nio.channels.ServerSocketChannel full = java.nio.channels.ServerSocketChannel.open()
                .bind(new java.net.InetSocketAddress("127.0.0.1", 0), 1)) {
            java.util.List<java.nio.channels.SocketChannel> queued = new java.util.ArrayList<>();
            try {
                // fill the accept queue (never accepted) until a connect stays pending: SYNs are dropped from then on
                boolean pending = false;
                while (!pending && queued.size() < 64) {
                    java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open();
                    queued.add(c);
                    c.configureBlocking(false);
                    if (!c.connect(full.getLocalAddress())) {
                        long until = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(300);
                        while (!c.finishConnect() && System.nanoTime() - until < 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
                        }
                        pending = !c.isConnected();
                    }
                }
                org.junit.jupiter.api.Assumptions.assumeTrue(pending, "this kernel completes connects past a full accept queue");
                int port = ((java.net.InetSocketAddress) full.getLocalAddress()).getPort();
                try (dev.ortho.hal.remote.internal.client.RemoteDriver driver =
                        new dev.ortho.hal.remote.internal.client.RemoteDriver(name -> "token")) {
                    for (String reader : new String[] {"blocking", "selector"}) {
                        dev.ortho.hal.DeviceUri uri = dev.ortho.hal.DeviceUri.parse("remote://127.0.0.1:" + port
                                + "?connect_timeout_ms=200&tcp_reader=" + reader);
                        StatusException e = assertThrows(StatusException.class, () -> driver.createDevice(uri));
                        assertEquals(StatusCode.UNAVAILABLE, e.code(), reader + ": " + e);
                        assertTrue(e.getMessage().contains("timed out"), reader + ": " + e.getMessage());
                    }
                    java.util.concurrent.atomic.AtomicReference<Throwable> fromVirtual = new java.util.concurrent.atomic.AtomicReference<>();
                    Thread virtual = Thread.ofVirtual().start(() -> {
                        try {
                            driver.createDevice(dev.ortho.hal.DeviceUri.parse("remote://127.0.0.1:" + port + "?connect_timeout_ms=200"));
                        } catch (Throwable t) {
                            fromVirtual.set(t);
                        }
                    });
                    virtual.join(java.time.Duration.ofNanos(HangGuard.GUARD_NANOS));
                    assertTrue(!virtual.isAlive(), "a virtual thread's connect returned (hang guard)");
                    assertTrue(fromVirtual.get() instanceof StatusException se && se.code() == StatusCode.UNAVAILABLE
                            && se.getMessage().contains("timed out"), String.valueOf(fromVirtual.get()));
                }
            } finally {
                for (java.nio.channels.SocketChannel c : queued) {
                    c.close();
                }
            }
        }
    }

    @Test
    void anUnknownReaderIsInvalidArgument() {
        try (Loopback server = Loopback.start()) {
            StatusException e = assertThrows(StatusException.class, () -> server.connect("tcp_reader=epoll"));
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.toString());
            assertTrue(e.getMessage().contains("tcp_reader") && e.getMessage().contains("epoll"), e.getMessage());
        }
    }
}
