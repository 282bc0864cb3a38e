package dev.ortho.hal.remote.internal.shm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.remote.ServerOptions;
import dev.ortho.hal.remote.internal.server.ServerSession;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of the shared-memory transport: serves one client over a {@link Mailbox}. In
 * PROCESS mode it is the main class of the pre-spawned child JVM
 * ({@code ShmChild MAILBOX_FILE CAPACITY SUPPLIER_CLASS}); in THREAD mode {@link #serve} runs it
 * in the client's JVM. The device comes from {@code SUPPLIER_CLASS}, a public
 * {@code Supplier<Device>} with a public no-argument constructor. Each client session gets a
 * fresh device; the child JVM exits when its parent process dies or a session ends abnormally.
 */
public final class ShmChild {
    private static final Logger LOG = LoggerFactory.getLogger(ShmChild.class);
    private static final AtomicInteger THREADS = new AtomicInteger();

    private ShmChild() {}

    /**
     * Instantiates a device supplier by class name.
     *
     * @throws StatusException INVALID_ARGUMENT naming the class if it is not a usable supplier
     */
    @SuppressWarnings("unchecked")
    public static Supplier<Device> supplier(String className) {
        try {
            Object instance = Class.forName(className).getConstructor().newInstance();
            if (instance instanceof Supplier<?> supplier) {
                return (Supplier<Device>) supplier;
            }
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "device supplier class '" + className
                    + "' cannot be instantiated: " + e);
        }
        throw new StatusException(StatusCode.INVALID_ARGUMENT, "device supplier class '" + className
                + "' is not a java.util.function.Supplier");
    }

    /**
     * Serves clients over {@code mailbox}, one session after another, until {@code stop} says so:
     * each session ends when the client shuts its channel down; then, once the client has
     * acknowledged (both sides wrote SHUTDOWN), the channels are reset and the worker is marked
     * ready for the next client. Returns at once; sessions run on the transport and executor
     * threads.
     *
     * @param options the sessions' quotas and timeouts; the token must be the mailbox's (the
     *     handshake timeout runs from the client's first block, not while the worker waits to be
     *     picked)
     * @param doorbell the worker's end of the mailbox's doorbell (borrowed; outlives the sessions)
     * @param parentAlive whether the client side still exists
     * @param stop checked between sessions; true ends serving (and counts {@code ended} down)
     */
    public static void serve(Mailbox mailbox, Doorbell doorbell, Supplier<Device> devices, ServerOptions options,
            java.util.function.BooleanSupplier parentAlive, ExecutorService executor,
            java.util.function.BooleanSupplier stop, CountDownLatch ended) {
        serve(mailbox, doorbell, devices, options, parentAlive, executor, stop, ended, ShmChild::logFailureInside);
    }

    /**
     * As above; {@code closed} is told why each session closed (on an executor thread, after the
     * session freed its resources, before the worker serves the next client).
     */
    static void serve(Mailbox mailbox, Doorbell doorbell, Supplier<Device> devices, ServerOptions options,
            java.util.function.BooleanSupplier parentAlive, ExecutorService executor,
            java.util.function.BooleanSupplier stop, CountDownLatch ended, Consumer<StatusException> closed) {
        mailbox.acquire(); // held by this session until it has decided whether to serve another
        mailbox.reset();
        ServerSession[] session = new ServerSession[1];
        MailboxTransport[] transport = new MailboxTransport[1];
        // the TCP server's limits: the handshake's frame limit until the client proved the token
        transport[0] = MailboxTransport.forServer(mailbox, doorbell, parentAlive, "shm client", options.maxFrameBytes(),
                () -> session[0].tick(System.nanoTime()));
        transport[0].pinPumpTo(mailbox.workerCpus()); // the CPUs the pool asked for, if any
        session[0] = new ServerSession(transport[0], options, devices, executor, s -> {
            // on an executor thread, after the session freed its resources
            try {
                closed.accept(s.closeReason());
                boolean acknowledged = transport[0].awaitTermination(TimeUnit.SECONDS.toNanos(30));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (mailbox.lvState(Mailbox.TO_CHILD) != Mailbox.SHUTDOWN && parentAlive.getAsBoolean()
                        && System.nanoTime() < deadline) {
                    java.util.concurrent.locks.LockSupport.parkNanos(100_000);
                }
                if (!acknowledged || stop.getAsBoolean() || !parentAlive.getAsBoolean()
                        || mailbox.lvState(Mailbox.TO_CHILD) != Mailbox.SHUTDOWN) {
                    ended.countDown();
                    return;
                }
                serve(mailbox, doorbell, devices, options, parentAlive, executor, stop, ended, closed);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                ended.countDown();
            } catch (RuntimeException e) {
                ended.countDown();
                throw e;
            } finally {
                mailbox.close(); // this session's hold; a next session took its own
            }
        });
        transport[0].start(session[0]);
        mailbox.soReady(true);
    }

    /**
     * Logs a session closed by a failure inside the worker (INTERNAL): no client should cause
     * one, as the TCP server logs them.
     */
    private static void logFailureInside(StatusException reason) {
        if (reason != null && reason.code() == StatusCode.INTERNAL) {
            LOG.warn("shared-memory worker: a session was dropped by a failure inside the server: {}", reason.toString());
        }
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3) {
            System.err.println("usage: ShmChild MAILBOX_FILE CAPACITY SUPPLIER_CLASS");
            System.exit(2);
        }
        serveChild(Path.of(args[0]), Long.parseLong(args[1]), null, args[2]);
        System.exit(0);
    }

    /** The child JVM's body: see {@link dev.ortho.hal.remote.ShmWorker#serve}. */
    public static void serveChild(Path file, long capacity, Supplier<Device> devices) throws InterruptedException {
        serveChild(file, capacity, devices, null);
    }

    private static void serveChild(Path file, long capacity, Supplier<Device> devices, String supplierClass)
            throws InterruptedException {
        // created before any other thread this code starts, as seed 001 orders fork and threads
        Mailbox mailbox = Mailbox.open(file, capacity);
        Doorbell doorbell = Doorbell.connect(file, mailbox); // the pool bound it before spawning; connected before ready
        if (devices == null) {
            devices = supplier(supplierClass);
        }
        ExecutorService executor = Executors.newFixedThreadPool(2, runnable -> Thread.ofPlatform().daemon()
                .name("ortho-remote-exec-shm-" + THREADS.incrementAndGet()).unstarted(runnable));
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        CountDownLatch ended = new CountDownLatch(1);
        serve(mailbox, doorbell, devices, ServerOptions.defaults(mailbox.token()),
                () -> parent == null || parent.isAlive(), executor, () -> false, ended);
        while (!ended.await(1, TimeUnit.SECONDS)) {
            if (parent != null && !parent.isAlive()) {
                break; // the client process died: nobody will use this worker again
            }
        }
        executor.shutdown();
        executor.awaitTermination(10, TimeUnit.SECONDS);
        doorbell.close();
    }
}
