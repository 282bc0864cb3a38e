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
 * Issue 18: both TCP readers of a remote device ({@code tcp_reader=blocking}, opt-in, where
 * the waiting thread blocks in the socket's read; {@code tcp_reader=selector}) serve round trips,
 * end a wait on its deadline without losing the connection, and end a wait a host signal
 * satisfies while the waiting thread is blocked receiving (with pings 150 s apart, only the
 * wake-up ends it); a bad value is INVALID_ARGUMENT naming the parameter and the value.
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
            blocked |= where.contains("SocketChannelImpl.read") || where.contains("SelectorImpl.select")
                    || where.contains("LockSupport.park") || where.contains("Net.poll");
        }
        return inAwait && blocked;
    }

    /**
     * The default reader is the selector: a thread interrupted while it waits on a remote device
     * gets ABORTED, keeps its interrupt, and the connection (with the device's buffers and
     * operations) serves on. With {@code tcp_reader=blocking} an interrupt that reaches a thread
     * blocked in the socket's read closes the connection, which is why that reader is opt-in.
     */
    @Test
    void anInterruptedWaitOnTheDefaultReaderIsAbortedAndTheConnectionServesOn() throws Exception {
        try (Loopback server = Loopback.start(); Device device = server.connect("deadline_ms=600000")) {
            Semaphore semaphore = device.createSemaphore(0);
            Buffer buffer = device.allocator().allocateBuffer(BufferParams.deviceLocal(), 64);
            device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, 1), buffer, 0, 4, 1, 4, 0);
            semaphore.await(1, Timeout.infinite());
            Semaphore never = device.createSemaphore(0);
            Thread self = Thread.currentThread();
            Thread interrupter = Thread.ofPlatform().name("interrupter").start(() -> {
                HangGuard.await(() -> waitsIn(self), "the waiter waits");
                self.interrupt();
            });
            StatusException aborted = assertThrows(StatusException.class, () -> never.await(1, Timeout.infinite()));
            boolean stillSet = Thread.interrupted(); // read and cleared before join, which would throw
            interrupter.join();
            assertTrue(stillSet, "the interrupt stays set for the caller");
            assertEquals(StatusCode.ABORTED, aborted.code(), aborted.toString());

            device.queueFill(-1, SemaphoreList.empty(), SemaphoreList.of(semaphore, 2), buffer, 0, 4, 2, 4, 0);
            semaphore.await(2, Timeout.infinite()); // the connection still serves
            never.release();
            semaphore.release();
            buffer.release();
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
