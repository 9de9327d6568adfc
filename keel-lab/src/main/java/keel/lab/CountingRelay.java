package keel.lab;

import keel.core.log.Log;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay on 127.0.0.1 that counts the bytes passing each way: what a bench driver's client
 * sends to the server ({@link #upstreamBytes()}) and receives from it ({@link #downstreamBytes()}),
 * TCP payload exactly, WebSocket frame headers and masks included. Blocking sockets, two virtual
 * threads per connection; at most {@code maxConnections} connections, later ones are closed at once.
 */
final class CountingRelay implements AutoCloseable {
    private static final Log LOG = Log.of(CountingRelay.class);

    private final InetSocketAddress target;
    private final int maxConnections;
    private final ServerSocket listener;
    private final AtomicLong upstream = new AtomicLong();
    private final AtomicLong downstream = new AtomicLong();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    CountingRelay(InetSocketAddress target, int maxConnections) throws IOException {
        this.target = target;
        this.maxConnections = maxConnections;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("relay-accept").start(this::accept);
    }

    int port() {
        return listener.getLocalPort();
    }

    long upstreamBytes() {
        return upstream.get();
    }

    long downstreamBytes() {
        return downstream.get();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                if (sockets.size() >= 2 * maxConnections) {
                    client.close();
                    continue;
                }
                Socket server = new Socket(target.getAddress(), target.getPort());
                for (Socket socket : List.of(client, server)) {
                    socket.setTcpNoDelay(true); // as Keel's own sockets: no Nagle delay added by the relay
                    sockets.add(socket);
                }
                Thread.ofVirtual().start(() -> pump(client, server, upstream));
                Thread.ofVirtual().start(() -> pump(server, client, downstream));
            } catch (IOException e) {
                if (!closed) LOG.warn("relay_accept_failed", e);
            }
        }
    }

    /**
     * Copies until {@code from} ends, then passes the end on. Bytes are counted before they are
     * written, so a reader that has seen them always finds them counted.
     */
    private void pump(Socket from, Socket to, AtomicLong counter) {
        byte[] buffer = new byte[64 * 1024];
        try {
            InputStream in = from.getInputStream(); // not closed here: that would close the socket, whose other way may still run
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) > 0) {
                counter.addAndGet(n);
                out.write(buffer, 0, n);
            }
            to.shutdownOutput();
        } catch (IOException e) {
            if (!closed) LOG.debug("relay_pump_ended", "cause", e.getMessage());
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket socket : sockets) socket.close();
    }
}
