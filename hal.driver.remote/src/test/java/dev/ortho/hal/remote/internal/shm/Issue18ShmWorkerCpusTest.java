package dev.ortho.hal.remote.internal.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.DeviceUri;
import dev.ortho.hal.remote.LocalSyncSupplier;
import dev.ortho.hal.remote.internal.client.RemoteDriver;
import dev.ortho.hal.remote.internal.protocol.Protocol;
import dev.ortho.hal.remote.internal.transport.HangGuard;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Issue 18, the shared-memory tail: {@code worker_cpus=} keeps a worker's pump on CPUs of its own
 * (with the client's waiting threads elsewhere the two spinners never share a CPU, which is what
 * the tail was; bench/README.md). The list is checked before any worker starts, the pool hands it
 * to its workers through the mailbox, and the pump pins itself where this JVM can pin threads.
 * Nothing here is timed.
 */
class Issue18ShmWorkerCpusTest {
    private static final Timeout GUARD = Timeout.of(Duration.ofSeconds(60));

    @Test
    void cpuListsBecomeMasksAndBadOnesAreRefusedNamingTheList() {
        assertEquals(0b10, Affinity.mask("1"));
        assertEquals(0b101, Affinity.mask("0,2"));
        assertEquals(0b1001100, Affinity.mask("2-3,6"));
        assertEquals(Long.MIN_VALUE, Affinity.mask("63"));
        for (String bad : new String[] {"", "a", "64", "3-2", "-1", "1,", "1-x"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Affinity.mask(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
        }
    }

    @Test
    void aBadWorkerCpusParameterIsRefusedBeforeAnyWorkerStarts() {
        try (RemoteDriver driver = new RemoteDriver(name -> null)) {
            StatusException e = assertThrows(StatusException.class, () -> driver.createDevice(DeviceUri.parse(
                    "remote://shm?mode=thread&supplier=" + LocalSyncSupplier.class.getName() + "&worker_cpus=64")).close());
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), e.toString());
            assertTrue(e.getMessage().contains("worker_cpus") && e.getMessage().contains("'64'"), e.getMessage());
        }
    }

    /** The lowest CPU this thread may run on, as a one-CPU mask. */
    private static long oneAllowedCpu() {
        long allowed = Affinity.currentThreadMask();
        assumeTrue(allowed != 0, "this JVM cannot tell or pin a thread's CPUs");
        return Long.lowestOneBit(allowed);
    }

    @Test
    void aPinnedPumpRunsOnlyOnItsCpus() {
        long cpu = oneAllowedCpu();
        Mailbox mailbox = Mailbox.inMemory(4096, new byte[0]);
        Doorbell[] bells = Doorbell.pipes(mailbox);
        AtomicLong seen = new AtomicLong();
        // the tick runs on the pump thread: it reports the CPUs that thread may use
        MailboxTransport transport = new MailboxTransport(mailbox, bells[1], false, () -> true, "pinned",
                Protocol.HANDSHAKE_MAX_FRAME_BYTES, Protocol.DEFAULT_MAX_FRAME_BYTES,
                () -> seen.set(Affinity.currentThreadMask()), TimeUnit.MILLISECONDS.toNanos(1));
        transport.pinPumpTo(cpu);
        try {
            transport.start(new dev.ortho.hal.remote.internal.transport.Transport.Listener() {
                @Override
                public void onFrame(ByteBuffer body) {
                }

                @Override
                public void onClosed(StatusException reason) {
                }
            });
            HangGuard.await(() -> seen.get() != 0, "the pump ticked", transport::diagnostics);
            assertEquals(cpu, seen.get(), "the pump's CPUs");
            assertTrue(transport.diagnostics().contains("(pinned)"), transport.diagnostics());
        } finally {
            transport.close(new StatusException(StatusCode.CANCELLED, "test done"));
            mailbox.close();
            bells[0].close();
            bells[1].close();
        }
    }

    /** Threads of this JVM whose name begins with {@code ortho-remote-sh} and that may run only on {@code cpu}. */
    private static long pumpsPinnedTo(int cpu) throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            return tasks.filter(task -> {
                try {
                    return Files.readString(task.resolve("comm")).startsWith("ortho-remote-sh")
                            && Files.readAllLines(task.resolve("status")).contains("Cpus_allowed_list:\t" + cpu);
                } catch (IOException vanished) {
                    return false;
                }
            }).count();
        }
    }

    @Test
    void aPoolsWorkersPinTheirPumpsToTheCpusItWasGiven() throws Exception {
        long cpu = oneAllowedCpu();
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")));
        try (WorkerPool pool = new WorkerPool(WorkerPool.Mode.THREAD, 1, LocalSyncSupplier.class.getName(),
                WorkerPool.PLAIN_JAVA, 1 << 16, cpu)) {
            WorkerPool.Worker worker = pool.pickIdle(GUARD, GUARD);
            assertEquals(cpu, worker.mailbox().workerCpus(), "the pool wrote the mask into the mailbox");
            int number = Long.numberOfTrailingZeros(cpu);
            HangGuard.await(() -> {
                try {
                    return pumpsPinnedTo(number) > 0;
                } catch (IOException e) {
                    throw new AssertionError(e);
                }
            }, "the worker's pump pinned itself to CPU " + number);
            pool.release(worker);
        }
    }
}
