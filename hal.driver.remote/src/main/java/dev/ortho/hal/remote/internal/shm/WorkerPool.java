package dev.ortho.hal.remote.internal.shm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.base.Timeout;
import dev.ortho.hal.remote.ShmWorkerLauncher;
import java.io.IOException;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Seed 001's worker pool for shared-memory devices: {@code size} workers, each serving one
 * device over its own {@link Mailbox}, in one of two modes chosen per device URI:
 * <ul>
 *   <li>{@link Mode#THREAD}: the worker runs in this JVM (no process, no isolation);
 *   <li>{@link Mode#PROCESS}: the worker is a child JVM spawned when the pool is built, before
 *       any thread of the pool exists; the mailbox is a file in a private (owner-only) directory
 *       holding a random token. The child is {@code java -cp <this class path> ShmChild ...}
 *       serving a supplier class ({@link #PLAIN_JAVA}), or whatever a host's
 *       {@link ShmWorkerLauncher} starts to serve a device URI.
 * </ul>
 * {@link #pickIdle} hands out an idle, ready worker or waits (bounded) for one: backpressure.
 * A worker serves one device at a time and is reused after it closes; a worker whose process
 * died (while serving, or while idle) is replaced by a fresh spawn, so the pool stays warm.
 * Thread-safe.
 */
public final class WorkerPool implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WorkerPool.class);
    private static final AtomicInteger EXEC_THREADS = new AtomicInteger();

    /** Where workers run. */
    public enum Mode { THREAD, PROCESS }

    /** One worker: a mailbox, its doorbell and the process (PROCESS) serving it. */
    public final class Worker {
        private final Mailbox mailbox;
        private final Process process;
        private final byte[] token;
        private final int id;
        private final AtomicBoolean busy = new AtomicBoolean();
        private final ServerSocketChannel bell; // PROCESS: the listener until the child's connections are accepted
        private final Path file;
        private final Doorbell childDoorbell; // THREAD: the worker's end
        private Doorbell doorbell; // the client's end; guarded by this
        private volatile boolean broken;

        Worker(Mailbox mailbox, Process process, byte[] token, int id, ServerSocketChannel bell, Path file,
                Doorbell[] pipes) {
            this.mailbox = mailbox;
            this.process = process;
            this.token = token;
            this.id = id;
            this.bell = bell;
            this.file = file;
            this.doorbell = pipes == null ? null : pipes[0];
            this.childDoorbell = pipes == null ? null : pipes[1];
        }

        public Mailbox mailbox() {
            return mailbox;
        }

        /**
         * The client's end of the worker's doorbell (PROCESS: accepted from the child on first
         * use; it connected before it became ready). Owned by the worker.
         *
         * @throws StatusException UNAVAILABLE if the child's connections cannot be accepted (the
         *     worker is then replaced when released)
         */
        public synchronized Doorbell doorbell() {
            if (doorbell == null) {
                try {
                    doorbell = Doorbell.accept(bell, file, mailbox);
                } catch (StatusException e) {
                    broken = true;
                    throw e;
                }
            }
            return doorbell;
        }

        private synchronized void closeDoorbell() {
            if (doorbell != null) {
                doorbell.close();
            }
            if (childDoorbell != null) {
                childDoorbell.close();
            }
            if (bell != null) {
                try {
                    bell.close();
                    Files.deleteIfExists(Doorbell.path(file));
                } catch (IOException e) {
                    // nothing more to release
                }
            }
        }

        /** The child process, or null in THREAD mode. */
        public Process process() {
            return process;
        }

        public byte[] token() {
            return token.clone();
        }

        public boolean isAlive() {
            return process == null || process.isAlive();
        }

        /** Serving and both channels idle: the last session is fully over on both sides. */
        boolean isReady() {
            return mailbox.lvReady() && mailbox.lvState(Mailbox.TO_PARENT) == Mailbox.IDLE
                    && mailbox.lvState(Mailbox.TO_CHILD) == Mailbox.IDLE;
        }

        @Override
        public String toString() {
            return mode + " worker " + id + (process == null ? "" : " (pid " + process.pid() + ")");
        }
    }

    /**
     * Starts {@code java -cp <java.class.path> ShmChild MAILBOX CAPACITY SUPPLIER_CLASS}: works
     * where this bundle's classes and the supplier are on the JVM's class path (plain Java). Where
     * this JVM can use futex bells ({@link Futex}: native access enabled), the child gets
     * {@code --enable-native-access=ALL-UNNAMED} too.
     */
    public static final ShmWorkerLauncher PLAIN_JAVA = (mailbox, capacity, supplierClass) -> {
        List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java")));
        if (Futex.get() != null) {
            command.add("--enable-native-access=ALL-UNNAMED");
        }
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ShmChild.class.getName(),
                mailbox.toString(), Long.toString(capacity), supplierClass));
        return command;
    };

    private final Mode mode;
    private final String served;
    private final ShmWorkerLauncher launcher;
    private final long capacity;
    /** CPUs each worker's pump keeps to (bits 0 to 63), 0 for any. */
    private final long workerCpus;
    private final Path directory;
    private final ExecutorService executor;
    private final List<Worker> workers = new ArrayList<>(); // guarded by this
    private final AtomicInteger ids = new AtomicInteger();
    private final SecureRandom random = new SecureRandom();
    private volatile boolean closed;

    /** A pool of workers serving the devices the public {@code Supplier<Device>} class supplies. */
    public WorkerPool(Mode mode, int size, String supplierClass, long mailboxBytes) {
        this(mode, size, supplierClass, PLAIN_JAVA, mailboxBytes);
    }

    /** As below, the workers' pumps on any CPU. */
    public WorkerPool(Mode mode, int size, String served, ShmWorkerLauncher launcher, long mailboxBytes) {
        this(mode, size, served, launcher, mailboxBytes, 0);
    }

    /**
     * Builds the pool and spawns every worker (PROCESS mode: before any thread of the pool starts).
     *
     * @param served what the workers serve: a supplier class name for THREAD mode and
     *     {@link #PLAIN_JAVA}, else what {@code launcher} understands (a device URI)
     * @param launcher starts PROCESS-mode children
     * @param workerCpus the CPUs (bits 0 to 63) each worker's pump keeps to where the worker can
     *     pin threads, 0 for any: apart from the CPUs of the client's waiting threads, so the two
     *     never share one (bench/README.md, "the tail is where the scheduler puts the two spinners")
     * @throws StatusException UNAVAILABLE if a worker cannot be spawned, INVALID_ARGUMENT if the
     *     supplier class is unusable
     */
    public WorkerPool(Mode mode, int size, String served, ShmWorkerLauncher launcher, long mailboxBytes,
            long workerCpus) {
        this.mode = mode;
        this.served = served;
        this.launcher = launcher;
        this.capacity = mailboxBytes;
        this.workerCpus = workerCpus;
        try {
            this.directory = Files.createTempDirectory("ortho-shm-",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot create a private mailbox directory: "
                    + e.getMessage());
        }
        if (mode == Mode.THREAD || launcher == PLAIN_JAVA) {
            ShmChild.supplier(served); // fail here, not in a child, if the class is unusable
        }
        List<Worker> spawned = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            spawned.add(spawn()); // PROCESS: children first ...
        }
        this.executor = mode == Mode.THREAD ? Executors.newFixedThreadPool(2, runnable -> Thread.ofPlatform()
                .daemon().name("ortho-remote-exec-shm-" + EXEC_THREADS.incrementAndGet()).unstarted(runnable)) : null;
        synchronized (this) {
            workers.addAll(spawned);
        }
        if (mode == Mode.THREAD) {
            for (Worker worker : spawned) {
                startInProcess(worker); // ... threads after
            }
        }
    }

    public Mode mode() {
        return mode;
    }

    /**
     * The CPU mask of a list such as {@code 1} or {@code 2-3,6}, for {@code workerCpus}.
     *
     * @throws IllegalArgumentException naming the list if it is malformed or names a CPU outside [0, 63]
     */
    public static long cpuMask(String list) {
        return Affinity.mask(list);
    }

    private Worker spawn() {
        int id = ids.incrementAndGet();
        byte[] token = new byte[32];
        random.nextBytes(token);
        if (mode == Mode.THREAD) {
            Mailbox mailbox = Mailbox.inMemory(capacity, token);
            mailbox.workerCpus(workerCpus);
            return new Worker(mailbox, null, token, id, null, null, Doorbell.pipes(mailbox));
        }
        Path file = directory.resolve("mailbox-" + id);
        Mailbox mailbox = Mailbox.create(file, capacity, token);
        mailbox.workerCpus(workerCpus); // before the child starts and reads it
        mailbox.soCanFutex(true, Futex.get() != null); // the child says its part before it connects the doorbell
        ServerSocketChannel bell;
        try {
            bell = Doorbell.listen(file); // before the child starts: it connects before it marks itself ready
        } catch (StatusException e) {
            mailbox.close();
            throw e;
        }
        try {
            Process process = new ProcessBuilder(launcher.command(file, capacity, served))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            return new Worker(mailbox, process, token, id, bell, file, null);
        } catch (IOException | RuntimeException e) {
            mailbox.close();
            try {
                bell.close();
                Files.deleteIfExists(Doorbell.path(file));
            } catch (IOException closing) {
                e.addSuppressed(closing);
            }
            if (e instanceof StatusException status) {
                throw status;
            }
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot spawn shared-memory worker: " + e.getMessage());
        }
    }

    private void startInProcess(Worker worker) {
        // the client is this JVM; the worker stops when the pool closes
        ShmChild.serve(worker.mailbox, worker.childDoorbell, ShmChild.supplier(served),
                dev.ortho.hal.remote.ServerOptions.defaults(worker.token), () -> true, executor, () -> closed,
                new java.util.concurrent.CountDownLatch(1));
    }

    /**
     * An idle worker whose child is ready, marked busy; waits for one until {@code timeout}
     * (spinning briefly, then parking in growing slices). While no worker is ready but one is
     * still starting (its JVM and framework coming up: seconds on a loaded machine), it waits up
     * to {@code startTimeout} instead, so a cold pool is not mistaken for a busy one.
     *
     * @throws StatusException RESOURCE_EXHAUSTED naming the pool size if none becomes idle in
     *     time (and whether workers were still starting), UNAVAILABLE if the pool is closed
     */
    public Worker pickIdle(Timeout timeout, Timeout startTimeout) {
        long deadline = timeout.toDeadlineNanos();
        long startDeadline = startTimeout.toDeadlineNanos();
        for (int round = 0; ; round++) {
            if (closed) {
                throw new StatusException(StatusCode.UNAVAILABLE, "shared-memory worker pool is closed");
            }
            Worker picked = null;
            List<Worker> dead = null;
            int starting = 0;
            synchronized (this) {
                for (Worker worker : workers) {
                    if (worker.isAlive() && !worker.busy.get() && !worker.isReady()) {
                        starting++;
                    }
                    if (!worker.isAlive()) {
                        if (worker.busy.compareAndSet(false, true)) { // died while idle: nobody will release it
                            (dead == null ? dead = new ArrayList<>() : dead).add(worker);
                        }
                    } else if (picked == null && worker.isReady() && worker.busy.compareAndSet(false, true)) {
                        if (worker.isReady()) {
                            picked = worker;
                        } else {
                            worker.busy.set(false); // it stopped being ready under us: look again
                        }
                    }
                }
            }
            if (dead != null) {
                for (Worker worker : dead) {
                    LOG.warn("{} died while idle; replacing it", worker);
                    retire(worker);
                }
            }
            if (picked != null) {
                return picked;
            }
            long now = System.nanoTime();
            long remaining = (starting > 0 ? Math.max(deadline, startDeadline) : deadline) - now;
            if (remaining <= 0) {
                int size;
                synchronized (this) {
                    size = workers.size();
                }
                throw new StatusException(StatusCode.RESOURCE_EXHAUSTED, starting > 0
                        ? "no shared-memory worker became ready: " + starting + " of " + size
                                + " still starting after the start timeout"
                        : "all " + size + " shared-memory workers are busy");
            }
            if (round < 100) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(this, Math.min(remaining, Math.min(TimeUnit.MILLISECONDS.toNanos(10),
                        1000L << Math.min(round - 100, 20))));
            }
        }
    }

    /**
     * Returns {@code worker} after its device closed: it serves the next client once it has
     * reset (a live worker is reused); a dead one is replaced by a fresh spawn.
     */
    public void release(Worker worker) {
        if (worker.isAlive() && !worker.broken && !closed) {
            worker.busy.set(false);
            return;
        }
        retire(worker);
    }

    /** Drops {@code worker} and spawns a replacement (unless the pool is closed). */
    private void retire(Worker worker) {
        synchronized (this) {
            workers.remove(worker);
        }
        worker.mailbox.close();
        worker.closeDoorbell();
        if (worker.process != null) {
            // it exits on its own once the mailbox is shut down; make sure it does
            worker.process.onExit().orTimeout(30, TimeUnit.SECONDS)
                    .whenComplete((p, timeout) -> worker.process.destroyForcibly());
        }
        if (closed) {
            return;
        }
        // retiring can run on whatever thread noticed the death (a process-exit callback in the
        // common pool, say) with its interrupt status set; an interrupted thread cannot open the
        // new mailbox file (ClosedByInterruptException), so the status waits until the spawn is done
        boolean interrupted = Thread.interrupted();
        try {
            Worker fresh = spawn();
            synchronized (this) {
                workers.add(fresh);
            }
            if (mode == Mode.THREAD) {
                startInProcess(fresh);
            }
        } catch (StatusException e) {
            LOG.warn("could not replace retired {}: {}", worker, e.toString());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Stops idle workers; busy ones stop when their devices close. */
    @Override
    public void close() {
        closed = true;
        List<Worker> idle = new ArrayList<>();
        synchronized (this) {
            for (Worker worker : workers) {
                if (worker.busy.compareAndSet(false, true)) {
                    idle.add(worker);
                }
            }
            workers.removeAll(idle);
        }
        for (Worker worker : idle) {
            worker.mailbox.soState(Mailbox.TO_CHILD, Mailbox.SHUTDOWN);
            worker.mailbox.close(); // this side never started a transport on it
            worker.closeDoorbell(); // the child's end sees its end of stream
            if (worker.process != null) {
                worker.process.destroy();
            }
        }
        if (executor != null) {
            executor.shutdown();
        }
    }
}
