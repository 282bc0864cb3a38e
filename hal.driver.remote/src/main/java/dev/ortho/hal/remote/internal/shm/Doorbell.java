package dev.ortho.hal.remote.internal.shm;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * One side's end of the wake-up channels of a {@link Mailbox}: a side that has spun without
 * progress announces in the mailbox that it sleeps ({@link Sleepers}), re-checks, and blocks in
 * {@link #await}; the peer, after publishing a state, {@link #ring}s only when that sleeper's word
 * is set. Two bells per side, one per sleeper ({@link #PUMP}, {@link #CALLER}), so the pump and a
 * receiving caller never share a selector.
 *
 * <p>PROCESS mode: two Unix-domain socket connections between client and child (the client binds
 * {@code <mailbox>.bell} in the pool's owner-only directory before spawning; the child connects
 * before it marks itself ready); a socket's end of stream reports the peer's death at once.
 * THREAD mode and tests: four pipes ({@link #pipes}), with futex bells in the in-memory mailbox
 * where this JVM can use futexes ({@link #pipes(Mailbox)}).
 *
 * <p><b>Futex bells.</b> Between processes that both can use Linux futexes ({@link Futex}: the
 * client and the child each say so in the mailbox before the sockets connect), a sleeper blocks
 * on a sequence word in the mailbox instead and a ring increments it and wakes the sleeper: one
 * system call each side instead of a socket write, a selector and a read, and a wake-up that is
 * not synchronous (a socket or pipe write asks Linux to run the woken thread on the ringer's CPU,
 * where both sides then share one CPU under load). A sleeper takes the word's value
 * ({@link #prepare}) before it announces itself and re-checks, so a ring in between ends its wait
 * at once. The sockets stay connected for liveness: a futex wait that ends un-rung (at most a tick)
 * reads the socket, and its end of stream reports the peer's death (UNAVAILABLE). Lives as long as the worker, across
 * sessions (a ring left over from a session is a spurious wake-up, drained). {@link #ring} and
 * {@link #wakeup} may be called from any thread; one thread at a time {@link #await}s each bell.
 */
public final class Doorbell implements AutoCloseable {
    /** The side's pump thread. */
    public static final int PUMP = 0;
    /** The side's caller receiving in {@link MailboxTransport#receiveWhile}. */
    public static final int CALLER = 1;
    private static final long CONNECT_MILLIS = TimeUnit.SECONDS.toMillis(10);

    private final Bell[] bells;
    /** Futex bells ({@link #useFutexWhereBothCan}), or null: the sockets or pipes carry the rings. */
    private volatile FutexBells futex;

    /**
     * The mailbox with both sides' futex words, this side, the words' addresses for the system
     * calls, and scratch timeouts (one awaiting thread per bell). The calls get bare addresses,
     * not the mapping's segments: a downcall holds the session of a segment it is passed, and a
     * sleeper blocked in the kernel must not keep the mailbox from being unmapped (closing it
     * would fail, and a retired worker would not be replaced). A wait on an address unmapped
     * meanwhile ends by its timeout; a wake of one fails harmlessly (EFAULT).
     */
    private record FutexBells(Futex calls, Mailbox mailbox, boolean parentSide, MemorySegment[][] words,
            MemorySegment[] timespec) {
        static FutexBells of(Futex calls, Mailbox mailbox, boolean parentSide) {
            MemorySegment[][] words = new MemorySegment[2][2]; // [parent side ? 1 : 0][who]
            for (int side = 0; side < 2; side++) {
                for (int who : new int[] {PUMP, CALLER}) {
                    words[side][who] = MemorySegment.ofAddress(mailbox.bell(side == 1, who).address());
                }
            }
            Arena arena = Arena.ofAuto();
            return new FutexBells(calls, mailbox, parentSide, words,
                    new MemorySegment[] {Futex.timespec(arena), Futex.timespec(arena)});
        }

        MemorySegment word(boolean side, int who) {
            return words[side ? 1 : 0][who];
        }

        int load(int who) {
            return mailbox.lvBell(parentSide, who);
        }

        /** Rings {@code who} of this side ({@code own}) or of the peer; nothing once the mailbox is unmapped. */
        void ring(boolean own, int who) {
            boolean side = own == parentSide;
            try {
                mailbox.incrementBell(side, who);
                calls.wake(word(side, who), 1);
            } catch (IllegalStateException unmapped) {
                // closed: nobody waits on this mailbox any more
            }
        }
    }

    private static final class Bell {
        final ReadableByteChannel in;
        final WritableByteChannel out;
        final Selector selector;
        final ByteBuffer drain = ByteBuffer.allocateDirect(64);

        Bell(SelectableChannel in, SelectableChannel out) throws IOException {
            in.configureBlocking(false);
            out.configureBlocking(false);
            this.in = (ReadableByteChannel) in;
            this.out = (WritableByteChannel) out;
            this.selector = Selector.open();
            in.register(selector, SelectionKey.OP_READ);
        }
    }

    private Doorbell(Bell pump, Bell caller) {
        this.bells = new Bell[] {pump, caller};
    }

    /**
     * Two ends in this process for {@code mailbox}, {@code [parent's, child's]}: futex bells in it
     * where this JVM can use futexes, otherwise (or as well, for closing) {@link #pipes()}.
     */
    static Doorbell[] pipes(Mailbox mailbox) {
        Doorbell[] ends = pipes();
        boolean can = Futex.get() != null;
        mailbox.soCanFutex(true, can);
        mailbox.soCanFutex(false, can);
        ends[0].useFutexWhereBothCan(mailbox, true);
        ends[1].useFutexWhereBothCan(mailbox, false);
        return ends;
    }

    /** Two connected ends in this process over pipes: {@code [parent's, child's]}. */
    public static Doorbell[] pipes() {
        try {
            Pipe toParentPump = Pipe.open();
            Pipe toChildPump = Pipe.open();
            Pipe toParentCaller = Pipe.open();
            Pipe toChildCaller = Pipe.open();
            return new Doorbell[] {
                new Doorbell(new Bell(toParentPump.source(), toChildPump.sink()),
                        new Bell(toParentCaller.source(), toChildCaller.sink())),
                new Doorbell(new Bell(toChildPump.source(), toParentPump.sink()),
                        new Bell(toChildCaller.source(), toParentCaller.sink()))};
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot open doorbell pipes: " + e.getMessage());
        }
    }

    /**
     * Rings and sleeps on futex words in {@code mailbox} from now on if both sides said they can
     * ({@link Mailbox#soCanFutex}); called by each side once its sockets are connected, before a
     * transport uses the bell. Both sides decide alike from the same two words.
     */
    void useFutexWhereBothCan(Mailbox mailbox, boolean parentSide) {
        Futex calls = Futex.get();
        if (calls == null || !mailbox.lvCanFutex(true) || !mailbox.lvCanFutex(false)) {
            return;
        }
        futex = FutexBells.of(calls, mailbox, parentSide);
    }

    /** Whether rings go through futex words (tests, diagnostics). */
    boolean usesFutex() {
        return futex != null;
    }

    /**
     * What a sleeper on {@code who} takes before it announces itself and re-checks: with futex
     * bells the word's value (a ring or {@link #wakeup} after this ends the next {@link #await}
     * at once); 0 otherwise (a socket or selector keeps a ring until it is read).
     */
    int prepare(int who) {
        FutexBells f = futex;
        return f == null ? 0 : f.load(who);
    }

    /** The socket path of the mailbox in {@code mailboxFile}. */
    static Path path(Path mailboxFile) {
        return mailboxFile.resolveSibling(mailboxFile.getFileName() + ".bell");
    }

    /** The client's listening socket, bound before the worker is spawned. */
    static ServerSocketChannel listen(Path mailboxFile) {
        try {
            Files.deleteIfExists(path(mailboxFile));
            ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            server.bind(UnixDomainSocketAddress.of(path(mailboxFile)), 2);
            return server;
        } catch (IOException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot bind the doorbell of '" + mailboxFile + "': "
                    + e.getMessage());
        }
    }

    /**
     * The client's end: accepts the worker's two connections (made before it marked itself
     * ready, each starting with a byte naming its bell) and closes the listener.
     *
     * @throws StatusException UNAVAILABLE if the worker did not connect both within 10 s
     */
    static Doorbell accept(ServerSocketChannel server, Path mailboxFile, Mailbox mailbox) {
        SocketChannel[] bells = new SocketChannel[2];
        try (server; Selector selector = Selector.open()) {
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONNECT_MILLIS);
            for (int accepted = 0; accepted < 2; ) {
                SocketChannel channel = server.accept();
                if (channel == null) {
                    waitFor(selector, deadline, mailboxFile);
                    continue;
                }
                accepted++;
                int who = readTag(channel, deadline, mailboxFile);
                if (bells[who] != null) {
                    channel.close();
                    throw new IOException("two connections for bell " + who);
                }
                bells[who] = channel;
            }
            Files.deleteIfExists(path(mailboxFile));
            Doorbell doorbell = new Doorbell(new Bell(bells[PUMP], bells[PUMP]), new Bell(bells[CALLER], bells[CALLER]));
            doorbell.useFutexWhereBothCan(mailbox, true); // the child said whether it can before it connected
            return doorbell;
        } catch (IOException e) {
            for (SocketChannel channel : bells) {
                closeQuietly(channel);
            }
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot accept the doorbell of '" + mailboxFile + "': "
                    + e.getMessage());
        }
    }

    private static void waitFor(Selector selector, long deadline, Path mailboxFile) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new IOException("the worker of '" + mailboxFile + "' did not connect within " + CONNECT_MILLIS + " ms");
        }
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        selector.selectedKeys().clear();
    }

    private static int readTag(SocketChannel channel, long deadline, Path mailboxFile) throws IOException {
        channel.configureBlocking(false);
        ByteBuffer tag = ByteBuffer.allocate(1);
        try (Selector selector = Selector.open()) {
            channel.register(selector, SelectionKey.OP_READ);
            while (tag.hasRemaining()) {
                if (channel.read(tag) < 0) {
                    throw new IOException("the worker closed a doorbell connection before naming it");
                }
                if (tag.hasRemaining()) {
                    waitFor(selector, deadline, mailboxFile);
                }
            }
        }
        int who = tag.get(0);
        if (who != PUMP && who != CALLER) {
            throw new IOException("doorbell connection names bell " + who + ", not 0 or 1");
        }
        return who;
    }

    /**
     * The worker's end: says in {@code mailbox} whether it can use futex bells, then connects both
     * bells to the client's doorbell of {@code mailboxFile}.
     */
    static Doorbell connect(Path mailboxFile, Mailbox mailbox) {
        mailbox.soCanFutex(false, Futex.get() != null);
        SocketChannel[] bells = new SocketChannel[2];
        try {
            for (int who : new int[] {PUMP, CALLER}) {
                bells[who] = SocketChannel.open(StandardProtocolFamily.UNIX);
                bells[who].connect(UnixDomainSocketAddress.of(path(mailboxFile)));
                bells[who].write(ByteBuffer.wrap(new byte[] {(byte) who}));
            }
            Doorbell doorbell = new Doorbell(new Bell(bells[PUMP], bells[PUMP]), new Bell(bells[CALLER], bells[CALLER]));
            doorbell.useFutexWhereBothCan(mailbox, false); // the client said so when it created the mailbox
            return doorbell;
        } catch (IOException e) {
            for (SocketChannel channel : bells) {
                closeQuietly(channel);
            }
            throw new StatusException(StatusCode.UNAVAILABLE, "cannot connect to the doorbell of '" + mailboxFile
                    + "': " + e.getMessage());
        }
    }

    /**
     * Wakes the peer's sleeper {@code who}: one byte (a full buffer already holds a pending ring;
     * a peer that is gone sees its end of stream instead).
     */
    void ring(int who) {
        FutexBells f = futex;
        if (f != null) {
            f.ring(false, who);
            return;
        }
        try {
            bells[who].out.write(ByteBuffer.wrap(new byte[1]));
        } catch (IOException | RuntimeException e) {
            // the peer is gone or this end was closed: the peer's own await or our close reports it
        }
    }

    /**
     * Blocks until the peer rings {@code who}, {@link #wakeup} is called, the thread is
     * interrupted or about {@code nanos} pass (rounded up to a millisecond), then consumes the
     * rings; answers whether there were any (the wait was rung, not only woken or timed out).
     * With futex bells: until the word differs from {@code prepared} ({@link #prepare}); a wait
     * that ends un-rung checks the socket for the peer's end of stream.
     *
     * @throws StatusException UNAVAILABLE if the peer's end is closed (its process died) or this
     *     doorbell was closed
     */
    boolean await(int who, int prepared, long nanos, String peer) {
        Bell bell = bells[who];
        FutexBells f = futex;
        if (f != null) {
            f.calls.await(f.word(f.parentSide, who), prepared, nanos, f.timespec[who]);
            try {
                if (f.load(who) != prepared) {
                    return true;
                }
            } catch (IllegalStateException unmapped) {
                throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": the mailbox was closed");
            }
            try {
                bell.drain.clear();
                if (bell.in.read(bell.drain) < 0) {
                    throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer
                            + ": the peer process is gone (its doorbell closed)");
                }
                return false;
            } catch (java.net.SocketException e) {
                throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": the peer process is gone"
                        + " (its doorbell connection: " + e.getMessage() + ")");
            } catch (IOException e) {
                throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": doorbell failed: " + e);
            }
        }
        try {
            bell.selector.select(Math.max(1, (nanos + 999_999) / 1_000_000));
            bell.selector.selectedKeys().clear();
            int n;
            boolean rung = false;
            do {
                bell.drain.clear();
                n = bell.in.read(bell.drain);
                rung |= n > 0;
            } while (n > 0);
            if (n < 0) {
                throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": the peer process is gone"
                        + " (its doorbell closed)");
            }
            return rung;
        } catch (java.net.SocketException e) {
            // a killed peer's socket resets the connection when rings were left unread
            throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": the peer process is gone"
                    + " (its doorbell connection: " + e.getMessage() + ")");
        } catch (IOException | ClosedSelectorException e) {
            throw new StatusException(StatusCode.UNAVAILABLE, "mailbox to " + peer + ": doorbell failed: " + e);
        }
    }

    /** Ends a local {@link #await} of {@code who} at once (or the next one, if none is blocked). Any thread. */
    void wakeup(int who) {
        FutexBells f = futex;
        if (f != null) {
            f.ring(true, who);
            return;
        }
        try {
            bells[who].selector.wakeup();
        } catch (ClosedSelectorException e) {
            // closed: a blocked await has already ended
        }
    }

    @Override
    public void close() {
        if (futex != null) { // a closed selector ends a blocked select; a futex sleeper is woken instead
            wakeup(PUMP);
            wakeup(CALLER);
        }
        for (Bell bell : bells) {
            try {
                bell.selector.close();
            } catch (IOException e) {
                // nothing more to release
            }
            closeQuietly(bell.in);
            closeQuietly(bell.out);
        }
    }

    private static void closeQuietly(java.nio.channels.Channel channel) {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                // nothing more to release
            }
        }
    }
}
