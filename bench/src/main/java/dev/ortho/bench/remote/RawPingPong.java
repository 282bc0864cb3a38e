package dev.ortho.bench.remote;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The peer of the remote HAL: a raw loopback TCP ping-pong. A blocking echo thread answers each
 * {@code request}-byte message with a {@code response}-byte one; the client writes and reads on
 * blocking channels with TCP_NODELAY. Also streams bulk bytes for the transfer peer. With
 * {@code selectorEcho} the echo waits in a {@code Selector} on a non-blocking channel, then reads
 * (an {@code epoll_wait} and a {@code read}, as the device server's I/O thread does): the
 * difference to the blocking echo is what a blocking server read could save. With {@code spin}
 * both ends poll before they block, as the remote transport does: the echo polls its selector
 * ({@code selectNow}) and the client its non-blocking channel for up to {@link #SPIN_NANOS} after
 * each message, yielding between polls, then block (the echo in {@code select}, the client in a
 * selector of its own).
 */
final class RawPingPong implements AutoCloseable {
    private final ServerSocketChannel acceptor;
    private final SocketChannel client;
    private final Thread echo;
    private final ByteBuffer request;
    private final ByteBuffer response;
    /** The client's selector when both ends spin, else null. */
    private final java.nio.channels.Selector clientSelector;
    /** How long a spinning end polls before it blocks (the remote transport's budget). */
    static final long SPIN_NANOS = 50_000;

    RawPingPong(int requestBytes, int responseBytes) {
        this(requestBytes, responseBytes, false);
    }

    RawPingPong(int requestBytes, int responseBytes, boolean selectorEcho) {
        this(requestBytes, responseBytes, selectorEcho, false);
    }

    RawPingPong(int requestBytes, int responseBytes, boolean selectorEcho, boolean spin) {
        try {
            acceptor = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
            client = SocketChannel.open(acceptor.getLocalAddress());
            client.socket().setTcpNoDelay(true);
            SocketChannel server = acceptor.accept();
            server.socket().setTcpNoDelay(true);
            echo = Thread.ofPlatform().daemon().name("raw-echo").start(selectorEcho || spin
                    ? () -> serveSelecting(server, requestBytes, responseBytes, spin)
                    : () -> serve(server, requestBytes, responseBytes));
            if (spin) {
                client.configureBlocking(false);
                clientSelector = java.nio.channels.Selector.open();
                client.register(clientSelector, java.nio.channels.SelectionKey.OP_READ);
            } else {
                clientSelector = null;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        request = ByteBuffer.allocateDirect(requestBytes);
        response = ByteBuffer.allocateDirect(responseBytes);
    }

    private static void serve(SocketChannel server, int requestBytes, int responseBytes) {
        ByteBuffer in = ByteBuffer.allocateDirect(Math.max(requestBytes, 1 << 16));
        ByteBuffer out = ByteBuffer.allocateDirect(responseBytes);
        try (server) {
            long pending = 0;
            while (true) {
                in.clear();
                int n = server.read(in);
                if (n < 0) {
                    return;
                }
                pending += n;
                while (pending >= requestBytes) {
                    pending -= requestBytes;
                    out.clear();
                    while (out.hasRemaining()) {
                        server.write(out);
                    }
                }
            }
        } catch (IOException closed) {
            // benchmark over
        }
    }

    /** {@link #serve} waiting in a selector on a non-blocking channel: {@code epoll_wait}, then {@code read}. */
    private static void serveSelecting(SocketChannel server, int requestBytes, int responseBytes, boolean spin) {
        ByteBuffer in = ByteBuffer.allocateDirect(Math.max(requestBytes, 1 << 16));
        ByteBuffer out = ByteBuffer.allocateDirect(responseBytes);
        try (server; java.nio.channels.Selector selector = java.nio.channels.Selector.open()) {
            server.configureBlocking(false);
            server.register(selector, java.nio.channels.SelectionKey.OP_READ);
            long pending = 0;
            while (true) {
                if (!spin || !spun(selector)) {
                    selector.select();
                }
                selector.selectedKeys().clear();
                in.clear();
                int n = server.read(in);
                if (n < 0) {
                    return;
                }
                pending += n;
                while (pending >= requestBytes) {
                    pending -= requestBytes;
                    out.clear();
                    while (out.hasRemaining()) {
                        server.write(out); // a small response: the socket takes it at once
                    }
                }
            }
        } catch (IOException closed) {
            // benchmark over
        }
    }

    /** Polls {@code selector} for up to {@link #SPIN_NANOS}, yielding between polls; whether it became ready. */
    private static boolean spun(java.nio.channels.Selector selector) throws IOException {
        long start = System.nanoTime();
        while (selector.selectNow() == 0) {
            if (System.nanoTime() - start >= SPIN_NANOS) {
                return false;
            }
            Thread.yield();
        }
        return true;
    }

    /** One request and its response. */
    void roundTrip() throws IOException {
        request.clear();
        while (request.hasRemaining()) {
            client.write(request);
        }
        response.clear();
        while (response.hasRemaining()) {
            if (clientSelector != null) { // spinning: poll, then block in the selector
                int n = client.read(response);
                if (n < 0) {
                    throw new IOException("echo closed");
                }
                if (n == 0 && !spun(clientSelector)) {
                    clientSelector.select();
                }
                clientSelector.selectedKeys().clear();
                continue;
            }
            if (client.read(response) < 0) {
                throw new IOException("echo closed");
            }
        }
    }

    /** Sends {@code data} whole (the echo answers every {@code requestBytes}); used for bulk streaming. */
    void send(ByteBuffer data) throws IOException {
        while (data.hasRemaining()) {
            client.write(data);
        }
    }

    /** Reads exactly {@code bytes} response bytes. */
    void receive(long bytes) throws IOException {
        for (long done = 0; done < bytes; ) {
            response.clear();
            if (bytes - done < response.capacity()) {
                response.limit((int) (bytes - done));
            }
            int n = client.read(response);
            if (n < 0) {
                throw new IOException("echo closed");
            }
            done += n;
        }
    }

    /**
     * Sends the bytes of {@code data} whole from the heap, {@code slice} bytes per write: what a
     * program streaming a {@code byte[]} does (the JDK copies each write's heap bytes into a
     * temporary direct buffer; a whole 16 MiB array per call would be copied again on every
     * partial write).
     */
    void sendHeap(byte[] data, int slice) throws IOException {
        for (int done = 0; done < data.length; ) {
            ByteBuffer piece = ByteBuffer.wrap(data, done, Math.min(slice, data.length - done));
            while (piece.hasRemaining()) {
                done += client.write(piece);
            }
        }
    }

    /** Reads {@code data.length} response bytes into the heap array, at most {@code slice} per read. */
    void receiveHeap(byte[] data, int slice) throws IOException {
        for (int done = 0; done < data.length; ) {
            int n = client.read(ByteBuffer.wrap(data, done, Math.min(slice, data.length - done)));
            if (n < 0) {
                throw new IOException("echo closed");
            }
            done += n;
        }
    }

    @Override
    public void close() throws IOException {
        if (clientSelector != null) {
            clientSelector.close();
        }
        client.close();
        acceptor.close();
        echo.interrupt();
    }
}
