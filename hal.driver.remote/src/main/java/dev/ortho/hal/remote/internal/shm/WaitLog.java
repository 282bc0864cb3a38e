package dev.ortho.hal.remote.internal.shm;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Diagnostics of the shared-memory transport's waits (off unless the system property
 * {@code ortho.shm.waitlog} names a directory; {@code JAVA_TOOL_OPTIONS} reaches the worker JVMs
 * too): every wait of a {@link MailboxTransport} side that ended in progress, and every ring,
 * with {@link System#nanoTime()} stamps (CLOCK_MONOTONIC on Linux: comparable across the JVMs of
 * one machine), written to {@code DIR/waits-PID.txt} when the JVM exits. Used to tell which path
 * a slow round trip took (spun and caught, slept and rung, and how long the bell took); see
 * bench/README.md. Each event also names the CPU its thread ran on when it was recorded
 * ({@link Affinity#currentCpu}, -1 without native access). Off, it costs a constant-folded
 * branch. The first 1 M events are kept (about 200,000 round trips).
 */
final class WaitLog {
    static final Path DIR = dir();
    static final boolean ON = DIR != null;
    /** Event kinds. */
    static final int CALLER_WAIT = 0;
    static final int PUMP_WAIT = 1;
    static final int RING = 2;
    /** A caller's {@code receiveWhile} found the receiving role held by another thread (the pump). */
    static final int REFUSED = 3;
    /** A worker's pump moved off the CPU its client's receiving caller runs on ({@code spins} holds that CPU). */
    static final int MOVED = 4;
    private static final int FIELDS = 9;
    private static final int EVENTS = 1 << 20; // 72 MiB of longs, allocated only when on
    private static final long[] LOG = ON ? new long[EVENTS * FIELDS] : null;
    private static final AtomicInteger NEXT = new AtomicInteger();

    static {
        if (ON) {
            Runtime.getRuntime().addShutdownHook(new Thread(WaitLog::dump, "ortho-shm-waitlog"));
        }
    }

    private WaitLog() {
    }

    private static Path dir() {
        String dir = System.getProperty("ortho.shm.waitlog");
        return dir == null || dir.isEmpty() ? null : Path.of(dir);
    }

    /**
     * A wait that ended in progress: it began at {@code start} (first idle round), spun
     * {@code spins} rounds, blocked {@code sleeps} times ({@code rung} of them ended by a ring),
     * its last block returned at {@code woke} (0 if none), and it saw progress at {@code end}.
     */
    static void waited(int kind, boolean parent, long start, long end, int spins, int sleeps, int rung, long woke) {
        int i = NEXT.getAndIncrement();
        if (i >= EVENTS) {
            return;
        }
        int at = i * FIELDS;
        LOG[at] = kind;
        LOG[at + 1] = parent ? 1 : 0;
        LOG[at + 2] = start;
        LOG[at + 3] = end;
        LOG[at + 4] = spins;
        LOG[at + 5] = sleeps;
        LOG[at + 6] = rung;
        LOG[at + 7] = woke;
        LOG[at + 8] = Affinity.currentCpu();
    }

    /** One loop's current wait (a receiving caller's or a pump's), recorded when it ends in progress. Not thread-safe. */
    static final class Wait {
        private final int kind;
        private final boolean parent;
        private long start;
        private int sleeps;
        private int rung;
        private long woke;

        Wait(int kind, boolean parent) {
            this.kind = kind;
            this.parent = parent;
        }

        /** After a round of the loop that had spun {@code idle} rounds: records the wait on progress, else notes its start. */
        void round(boolean progress, int idle) {
            long now = System.nanoTime();
            if (progress) {
                waited(kind, parent, idle == 0 ? now : start, now, idle, sleeps, rung, woke);
                sleeps = 0;
                rung = 0;
                woke = 0;
            } else if (idle == 0) {
                start = now;
            }
        }

        /** The loop blocked on its bell, and whether a ring ended the block. */
        void slept(boolean byRing) {
            sleeps++;
            rung += byRing ? 1 : 0;
            woke = System.nanoTime();
        }
    }

    /** A ring of the peer's sleeper {@code who} ({@link Doorbell#PUMP}, {@link Doorbell#CALLER}) at {@code at}. */
    static void rang(boolean parent, int who, long at) {
        waited(RING, parent, at, System.nanoTime(), who, 0, 0, 0);
    }

    /** A caller's {@code receiveWhile} found the receiving role held at {@code at} (it waits by other means instead). */
    static void refused(boolean parent, long at) {
        waited(REFUSED, parent, at, System.nanoTime(), 0, 0, 0, 0);
    }

    /** A worker's pump that ran on {@code callerCpu} beside the receiving caller tried to move off it at {@code at}. */
    static void moved(long at, int callerCpu, boolean moved) {
        waited(MOVED, false, at, System.nanoTime(), callerCpu, moved ? 1 : 0, 0, 0);
    }

    private static void dump() {
        int n = Math.min(NEXT.get(), EVENTS);
        Path file = DIR.resolve("waits-" + ProcessHandle.current().pid() + ".txt");
        try {
            Files.createDirectories(DIR);
            try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
                out.println("# kind(0 caller wait, 1 pump wait, 2 ring, 3 caller refused, 4 pump moved) parent start end spins|who|cpu sleeps|moved rung woke cpu");
                for (int i = 0; i < n; i++) {
                    int at = i * FIELDS;
                    out.print(LOG[at]);
                    for (int f = 1; f < FIELDS; f++) {
                        out.print(' ');
                        out.print(LOG[at + f]);
                    }
                    out.println();
                }
            }
        } catch (IOException e) {
            System.err.println("ortho.shm.waitlog: cannot write " + file + ": " + e);
        }
    }
}
