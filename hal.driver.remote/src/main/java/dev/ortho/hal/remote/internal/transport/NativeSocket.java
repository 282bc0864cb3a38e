package dev.ortho.hal.remote.internal.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP socket this transport opens and drives itself through the C library ({@code socket},
 * {@code connect}, {@code recv}, {@code sendmsg}, {@code shutdown}, {@code close}, via the FFM
 * linker), in blocking mode: a read is one {@code recv} that sleeps until bytes arrive, straight
 * into a direct buffer's memory, and a write is one {@code sendmsg} of the buffers' memory; no
 * copy for direct buffers. Reads are sliced ({@link #readUntil}): the socket's receive timeout
 * ends a {@code recv} that got nothing within {@link #READ_SLICE_NANOS} (the kernel's timer, no
 * extra system call), and a bound nearer than that is waited for with {@code poll} first, so a
 * reader sees its deadline and its interrupt whatever the peer does. The JDK does not know this
 * descriptor, so nothing it does on an interrupt (closing an {@code InterruptibleChannel}, a
 * virtual thread's socket close) reaches it: an interrupt never ends nor closes a read or a write
 * here.
 *
 * <p>Linux on x86-64 or AArch64 only, and only where native access is enabled for this code
 * ({@code --enable-native-access}); {@link #available()} says so without calling a restricted
 * method first. Elsewhere {@link BlockingTcpConnection} uses {@link SocketStreams}.
 *
 * <p><b>Close.</b> {@link #close} from any thread shuts the socket down ({@code shutdown}), which
 * ends a blocked {@code recv} (it returns the end of the stream) or {@code sendmsg} (an error),
 * and closes the descriptor once no call is in progress, so its number is never reused under a
 * call of ours. Calls made after close fail with an {@link IOException}.
 *
 * <p><b>Threads.</b> One reader at a time and one writer at a time (the connection's read and
 * write roles); each side has its own scratch memory. Virtual threads must not call in (a
 * blocked downcall pins the carrier); {@link BlockingTcpConnection} hands their I/O to its threads.
 */
final class NativeSocket implements BlockingSocket {
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int SOCK_STREAM = 1;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int F_GETFL = 3;
    private static final int F_SETFL = 4;
    private static final int O_NONBLOCK = 0x800;
    private static final int SOL_SOCKET = 1;
    private static final int SO_ERROR = 4;
    private static final int SO_RCVTIMEO = 20;
    private static final int IPPROTO_TCP = 6;
    private static final int TCP_NODELAY = 1;
    private static final int SHUT_RDWR = 2;
    private static final int MSG_NOSIGNAL = 0x4000;
    private static final int MSG_DONTWAIT = 0x40;
    /** What {@link #spinRecv} answers when nothing came within the spin. */
    private static final long NOTHING_YET = Long.MIN_VALUE;
    private static final short POLLIN = 1;
    private static final short POLLOUT = 4;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;
    private static final int EINPROGRESS = 115;
    /** Most buffers one {@code sendmsg} is given. */
    private static final int MAX_IOV = 64;
    /** Scratch for heap buffers, each side; the most one call copies. */
    private static final int SCRATCH_BYTES = 128 << 10;

    private static final Calls CALLS = Calls.create();

    private final int fd;
    private final Arena arena = Arena.ofShared();
    /** {@code users}: calls in progress; its sign bit: closed. */
    private final AtomicInteger users = new AtomicInteger();
    private final AtomicBoolean released = new AtomicBoolean();
    // reader's memory (read role)
    private final MemorySegment readErrno;
    private final MemorySegment readPollfd;
    /** {@link #readUntil}'s bound (read role). */
    private long readDeadline = Long.MAX_VALUE;
    /** {@link #callerReads} (read role). */
    private boolean callerReads;
    /** Whether a caller's read polls before it blocks (read role). */
    private final SpinBudget spin = new SpinBudget();
    private MemorySegment readScratch;
    /**
     * The direct buffer last read into and the address of its index 0: the receive buffer is read
     * into again and again, so its address is taken once (no segment object per read). Its
     * memory stays valid while its owner passes it in: the connection's receive buffer lives as
     * long as the connection, and a lent sink's memory is released only after the sink was
     * aborted, which excludes reads into it ({@link BodySink}).
     */
    private ByteBuffer readBuffer;
    private long readBase;
    // writer's memory (write role)
    private final MemorySegment writeErrno;
    private final MemorySegment msghdr;
    private final MemorySegment iov;
    private MemorySegment writeScratch;
    private final ByteBuffer[] single = new ByteBuffer[1];

    private NativeSocket(int fd) {
        this.fd = fd;
        this.readErrno = arena.allocate(CALLS.errnoLayout);
        this.readPollfd = arena.allocate(8, 4);
        this.writeErrno = arena.allocate(CALLS.errnoLayout);
        this.msghdr = arena.allocate(56, 8);
        this.iov = arena.allocate(16L * MAX_IOV, 8);
    }

    /** Whether this JVM can open native sockets (Linux x86-64/AArch64, native access enabled). */
    static boolean available() {
        return CALLS != null;
    }

    /**
     * Opens a socket and connects it to {@code address}, waiting at most {@code timeoutMillis}
     * (0: no limit) for the connection; blocking mode and {@code TCP_NODELAY} from then on. Call
     * on a platform thread.
     *
     * @throws SocketTimeoutException if the connection was not made within the timeout
     * @throws IOException if it failed (refused, unreachable: the system's message)
     */
    static NativeSocket connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        if (address.isUnresolved()) {
            throw new IOException("unresolved address " + address);
        }
        byte[] ip = address.getAddress().getAddress();
        boolean v4 = address.getAddress() instanceof Inet4Address;
        try (Arena local = Arena.ofConfined()) {
            MemorySegment errno = local.allocate(CALLS.errnoLayout);
            int fd = (int) CALLS.socket.invokeExact(errno, v4 ? AF_INET : AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                throw CALLS.failure("socket", errno);
            }
            NativeSocket socket = new NativeSocket(fd);
            boolean done = false;
            try {
                MemorySegment sockaddr = local.allocate(v4 ? 16 : 28, 8);
                sockaddr.set(ValueLayout.JAVA_SHORT, 0, (short) (v4 ? AF_INET : AF_INET6));
                sockaddr.set(ValueLayout.JAVA_BYTE, 2, (byte) (address.getPort() >> 8));
                sockaddr.set(ValueLayout.JAVA_BYTE, 3, (byte) address.getPort());
                MemorySegment.copy(ip, 0, sockaddr, ValueLayout.JAVA_BYTE, v4 ? 4 : 8, ip.length);
                if (!v4 && address.getAddress() instanceof java.net.Inet6Address a6) {
                    sockaddr.set(ValueLayout.JAVA_INT, 24, a6.getScopeId());
                }
                int r = (int) CALLS.connect.invokeExact(errno, fd, sockaddr, (int) sockaddr.byteSize());
                if (r != 0) {
                    if (CALLS.errno(errno) != EINPROGRESS) {
                        throw CALLS.failure("connect to " + address, errno);
                    }
                    socket.awaitConnected(local, errno, address, timeoutMillis);
                }
                int flags = (int) CALLS.fcntl.invokeExact(errno, fd, F_GETFL, 0);
                if (flags < 0 || (int) CALLS.fcntl.invokeExact(errno, fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
                    throw CALLS.failure("fcntl", errno);
                }
                MemorySegment one = local.allocate(ValueLayout.JAVA_INT);
                one.set(ValueLayout.JAVA_INT, 0, 1);
                if ((int) CALLS.setsockopt.invokeExact(errno, fd, IPPROTO_TCP, TCP_NODELAY, one, 4) != 0) {
                    throw CALLS.failure("setsockopt TCP_NODELAY", errno);
                }
                // every recv sleeps at most a slice (the kernel's timer: no extra system call per read)
                MemorySegment slice = local.allocate(16, 8); // struct timeval
                slice.set(ValueLayout.JAVA_LONG, 0, READ_SLICE_NANOS / 1_000_000_000);
                slice.set(ValueLayout.JAVA_LONG, 8, READ_SLICE_NANOS % 1_000_000_000 / 1_000);
                if ((int) CALLS.setsockopt.invokeExact(errno, fd, SOL_SOCKET, SO_RCVTIMEO, slice, 16) != 0) {
                    throw CALLS.failure("setsockopt SO_RCVTIMEO", errno);
                }
                done = true;
                return socket;
            } finally {
                if (!done) {
                    socket.close();
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("native call failed: " + t, t);
        }
    }

    /** The non-blocking connect is in progress: polls for it (EINTR retried) until the timeout, then checks its result. */
    private void awaitConnected(Arena local, MemorySegment errno, InetSocketAddress address, int timeoutMillis)
            throws Throwable {
        MemorySegment pollfd = local.allocate(8, 4);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            pollfd.set(ValueLayout.JAVA_INT, 0, fd);
            pollfd.set(ValueLayout.JAVA_SHORT, 4, POLLOUT);
            pollfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            int wait = timeoutMillis <= 0 ? -1
                    : (int) Math.max(0, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime() + 999_999) / 1_000_000));
            int n = (int) CALLS.poll.invokeExact(errno, pollfd, 1L, wait);
            if (n < 0 && CALLS.errno(errno) == EINTR) {
                continue;
            }
            if (n < 0) {
                throw CALLS.failure("poll", errno);
            }
            if (n == 0) {
                if (timeoutMillis > 0 && deadline - System.nanoTime() <= 0) {
                    throw new SocketTimeoutException("connect timed out after " + timeoutMillis + " ms");
                }
                continue;
            }
            break;
        }
        MemorySegment err = local.allocate(ValueLayout.JAVA_INT);
        MemorySegment len = local.allocate(ValueLayout.JAVA_INT);
        len.set(ValueLayout.JAVA_INT, 0, 4);
        if ((int) CALLS.getsockopt.invokeExact(errno, fd, SOL_SOCKET, SO_ERROR, err, len) != 0) {
            throw CALLS.failure("getsockopt SO_ERROR", errno);
        }
        int code = err.get(ValueLayout.JAVA_INT, 0);
        if (code != 0) {
            errno.set(ValueLayout.JAVA_INT, CALLS.errnoOffset, code);
            throw CALLS.failure("connect to " + address, errno);
        }
    }

    private void enter() throws IOException {
        while (true) {
            int u = users.get();
            if (u < 0) {
                throw new IOException("socket closed");
            }
            if (users.compareAndSet(u, u + 1)) {
                return;
            }
        }
    }

    private void exit() {
        if (users.decrementAndGet() == Integer.MIN_VALUE) {
            release(); // closed meanwhile and this was the last call
        }
    }

    /** A caller's reads poll with {@code recv(MSG_DONTWAIT)} for up to a spin budget before blocking, while that pays. */
    @Override
    public void callerReads(boolean caller) {
        callerReads = caller;
    }

    /**
     * Every read is sliced: the socket's receive timeout ({@code SO_RCVTIMEO}, set at connect)
     * ends a {@code recv} that got nothing within {@link #READ_SLICE_NANOS}; a bound nearer than
     * a slice is waited for with {@code poll} first. Always true.
     */
    @Override
    public boolean readUntil(long deadlineNanos) {
        readDeadline = deadlineNanos;
        return true;
    }

    /**
     * Blocks until bytes arrive, at most a {@linkplain #READ_SLICE_NANOS slice} or until the bound
     * of {@link #readUntil}: bytes read into {@code dst} (0 if it is full or none came in time),
     * -1 at the end of the stream.
     */
    @Override
    public int read(ByteBuffer dst) throws IOException {
        int room = dst.remaining();
        if (room == 0) {
            return 0;
        }
        enter();
        try {
            boolean direct = dst.isDirect();
            long address;
            if (direct) {
                if (dst != readBuffer) { // a new buffer: its address once (the receive buffer is read into again and again)
                    readBase = MemorySegment.ofBuffer(dst).address() - dst.position();
                    readBuffer = dst;
                }
                address = readBase + dst.position();
            } else {
                if (readScratch == null) {
                    readScratch = arena.allocate(SCRATCH_BYTES, 64);
                }
                address = readScratch.address();
                room = Math.min(room, SCRATCH_BYTES);
            }
            long deadline = readDeadline;
            long n = callerReads && spin.worthSpinning() ? spinRecv(address, room, deadline) : NOTHING_YET;
            if (n == NOTHING_YET) {
                if (deadline != Long.MAX_VALUE && deadline - System.nanoTime() < READ_SLICE_NANOS && !readable(deadline)) {
                    return 0; // the bound passed with nothing to read
                }
                while (true) {
                    n = (long) CALLS.recv.invokeExact(readErrno, fd, address, (long) room, 0);
                    if (n >= 0 || CALLS.errno(readErrno) != EINTR) {
                        break;
                    }
                }
            }
            java.lang.ref.Reference.reachabilityFence(dst); // its memory stays while recv writes into it
            if (n < 0 && CALLS.errno(readErrno) == EAGAIN) {
                return 0; // a slice passed with nothing received
            }
            if (n < 0) {
                throw CALLS.failure("recv", readErrno);
            }
            if (n == 0) {
                return -1;
            }
            if (direct) {
                dst.position(dst.position() + (int) n);
            } else {
                MemorySegment.copy(readScratch, ValueLayout.JAVA_BYTE, 0, dst.array(), dst.arrayOffset() + dst.position(), (int) n);
                dst.position(dst.position() + (int) n);
            }
            return (int) n;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("recv failed: " + t, t);
        } finally {
            exit();
        }
    }

    /**
     * Polls with {@code recv(MSG_DONTWAIT)} for up to a spin budget (not past {@code deadline}):
     * what the last {@code recv} answered (bytes, 0 at the end of the stream, -1 with a failure's
     * {@code errno}), or {@link #NOTHING_YET}.
     */
    private long spinRecv(long address, int room, long deadline) throws Throwable {
        long start = System.nanoTime();
        long budget = deadline == Long.MAX_VALUE ? SpinBudget.NANOS : Math.min(SpinBudget.NANOS, deadline - start);
        long n;
        while (true) {
            n = (long) CALLS.recv.invokeExact(readErrno, fd, address, (long) room, MSG_DONTWAIT);
            int errno = n < 0 ? CALLS.errno(readErrno) : 0;
            if (n >= 0 || errno != EAGAIN && errno != EINTR) {
                spin.ended(true);
                return n;
            }
            if (System.nanoTime() - start >= budget) {
                spin.ended(false);
                return NOTHING_YET;
            }
            Thread.yield(); // (a peer on this CPU runs; alone here, this vCPU stays awake)
        }
    }

    /** Waits with {@code poll} until the socket is readable (true) or {@code deadline} passed (false); EINTR retried. */
    private boolean readable(long deadline) throws Throwable {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            readPollfd.set(ValueLayout.JAVA_INT, 0, fd);
            readPollfd.set(ValueLayout.JAVA_SHORT, 4, POLLIN);
            readPollfd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
            int n = (int) CALLS.poll.invokeExact(readErrno, readPollfd, 1L, (int) ((left + 999_999) / 1_000_000));
            if (n > 0) {
                return true; // bytes, the end of the stream or an error: recv says which
            }
            if (n < 0 && CALLS.errno(readErrno) != EINTR) {
                throw CALLS.failure("poll", readErrno);
            }
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        single[0] = src;
        try {
            return (int) write(single, 0, 1);
        } finally {
            single[0] = null;
        }
    }

    /**
     * One {@code sendmsg} of {@code srcs[offset, offset + length)} in order (direct buffers from
     * their memory, heap buffers through the scratch memory, at most {@value #SCRATCH_BYTES} bytes
     * of them per call), blocking until the socket took some; returns how many bytes it took and
     * advances the buffers by them.
     */
    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        enter();
        try {
            int count = 0;
            long copied = 0;
            for (int i = offset; i < offset + length && count < MAX_IOV; i++) {
                ByteBuffer src = srcs[i];
                int bytes = src.remaining();
                if (bytes == 0) {
                    continue;
                }
                long address;
                if (src.isDirect()) {
                    address = MemorySegment.ofBuffer(src).address();
                } else {
                    if (writeScratch == null) {
                        writeScratch = arena.allocate(SCRATCH_BYTES, 64);
                    }
                    if (copied == SCRATCH_BYTES) {
                        break;
                    }
                    bytes = (int) Math.min(bytes, SCRATCH_BYTES - copied);
                    if (src.hasArray()) { // (no segment object for the common small heap frame)
                        MemorySegment.copy(src.array(), src.arrayOffset() + src.position(), writeScratch,
                                ValueLayout.JAVA_BYTE, copied, bytes);
                    } else {
                        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, writeScratch, copied, bytes);
                    }
                    address = writeScratch.address() + copied;
                    copied += bytes;
                }
                iov.set(ValueLayout.JAVA_LONG, 16L * count, address);
                iov.set(ValueLayout.JAVA_LONG, 16L * count + 8, bytes);
                count++;
            }
            if (count == 0) {
                return 0;
            }
            msghdr.fill((byte) 0);
            msghdr.set(ValueLayout.ADDRESS, 16, iov);
            msghdr.set(ValueLayout.JAVA_LONG, 24, count);
            long n;
            while (true) {
                n = (long) CALLS.sendmsg.invokeExact(writeErrno, fd, msghdr, MSG_NOSIGNAL);
                if (n >= 0 || CALLS.errno(writeErrno) != EINTR) {
                    break;
                }
            }
            if (n < 0) {
                throw CALLS.failure("sendmsg", writeErrno);
            }
            long left = n;
            for (int i = offset; i < offset + length && left > 0; i++) {
                ByteBuffer src = srcs[i];
                int take = (int) Math.min(left, src.remaining());
                src.position(src.position() + take);
                left -= take;
            }
            return n;
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("sendmsg failed: " + t, t);
        } finally {
            exit();
        }
    }

    @Override
    public boolean isOpen() {
        return users.get() >= 0;
    }

    @Override
    public boolean copies() {
        return false;
    }

    /**
     * Shuts the socket down (a blocked {@code recv} returns the end of the stream, a blocked
     * {@code sendmsg} fails) and closes the descriptor once no call is in progress. Idempotent,
     * any thread.
     */
    @Override
    public void close() {
        int u;
        do {
            u = users.get();
            if (u < 0) {
                return;
            }
        } while (!users.compareAndSet(u, u | Integer.MIN_VALUE));
        try {
            int ignored = (int) CALLS.shutdown.invokeExact(fd, SHUT_RDWR);
        } catch (Throwable t) {
            // closing anyway
        }
        if (u == 0) {
            release();
        }
    }

    /** Closes the descriptor and frees the scratch memory (once, when closed and no call is in progress). */
    private void release() {
        if (!released.compareAndSet(false, true)) {
            return;
        }
        try {
            int ignored = (int) CALLS.close.invokeExact(fd);
        } catch (Throwable t) {
            // nothing more to do
        }
        arena.close();
    }

    /** The C library functions, each capturing {@code errno}; null where unavailable. */
    private static final class Calls {
        final MemoryLayout errnoLayout = Linker.Option.captureStateLayout();
        final long errnoOffset = errnoLayout.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
        final VarHandle errnoHandle = errnoLayout.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        MethodHandle socket;
        MethodHandle connect;
        MethodHandle poll;
        MethodHandle fcntl;
        MethodHandle getsockopt;
        MethodHandle setsockopt;
        MethodHandle recv;
        MethodHandle sendmsg;
        MethodHandle shutdown;
        MethodHandle close;
        MethodHandle strerror;

        static Calls create() {
            String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
            if (!(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))
                    || !System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
                    || !NativeSocket.class.getModule().isNativeAccessEnabled()) {
                return null;
            }
            try {
                Calls c = new Calls();
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                Linker.Option errno = Linker.Option.captureCallState("errno");
                ValueLayout i = ValueLayout.JAVA_INT;
                ValueLayout l = ValueLayout.JAVA_LONG;
                ValueLayout a = ValueLayout.ADDRESS;
                c.socket = c.handle(linker, libc, "socket", FunctionDescriptor.of(i, i, i, i), errno);
                c.connect = c.handle(linker, libc, "connect", FunctionDescriptor.of(i, i, a, i), errno);
                c.poll = c.handle(linker, libc, "poll", FunctionDescriptor.of(i, a, l, i), errno);
                c.fcntl = c.handle(linker, libc, "fcntl", FunctionDescriptor.of(i, i, i, i), errno,
                        Linker.Option.firstVariadicArg(2));
                c.getsockopt = c.handle(linker, libc, "getsockopt", FunctionDescriptor.of(i, i, i, i, a, a), errno);
                c.setsockopt = c.handle(linker, libc, "setsockopt", FunctionDescriptor.of(i, i, i, i, a, i), errno);
                // the buffer as a plain address (a long): no segment object per read
                c.recv = c.handle(linker, libc, "recv", FunctionDescriptor.of(l, i, l, l, i), errno);
                c.sendmsg = c.handle(linker, libc, "sendmsg", FunctionDescriptor.of(l, i, a, i), errno);
                c.shutdown = c.handle(linker, libc, "shutdown", FunctionDescriptor.of(i, i, i));
                c.close = c.handle(linker, libc, "close", FunctionDescriptor.of(i, i));
                c.strerror = c.handle(linker, libc, "strerror", FunctionDescriptor.of(a, i));
                return c;
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }

        private MethodHandle handle(Linker linker, SymbolLookup libc, String name, FunctionDescriptor descriptor,
                Linker.Option... options) {
            MemorySegment address = libc.find(name).orElseThrow(() -> new IllegalStateException("no " + name));
            return linker.downcallHandle(address, descriptor, options);
        }

        int errno(MemorySegment state) {
            return (int) errnoHandle.get(state, 0L);
        }

        /** An IOException naming the call and the system's message for the captured errno. */
        IOException failure(String call, MemorySegment state) {
            int code = errno(state);
            String text;
            try {
                MemorySegment message = (MemorySegment) strerror.invokeExact(code);
                text = message.reinterpret(256).getString(0);
            } catch (Throwable t) {
                text = "error";
            }
            return new IOException(call + " failed: " + text + " (errno " + code + ")");
        }
    }
}
