package keel.amqp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of the real broker that a test can stall ({@link #freeze}: bytes stop moving
 * both ways, as with a paused broker) or cut ({@link #cut}: every connection closed, as when the
 * network drops). Only the connections of the code under test go through it.
 */
public final class BrokerProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress broker;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean frozen;

    public BrokerProxy() throws IOException {
        URI uri = URI.create(Services.AMQP_URI);
        this.broker = new InetSocketAddress(uri.getHost(), uri.getPort() < 0 ? 5672 : uri.getPort());
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon(true).name("broker-proxy-accept").start(this::accept);
    }

    /** The broker's URI with this proxy's address. */
    public String uri() {
        URI real = URI.create(Services.AMQP_URI);
        return real.getScheme() + "://" + real.getRawUserInfo() + "@127.0.0.1:" + listener.getLocalPort()
                + (real.getRawPath() == null ? "" : real.getRawPath());
    }

    public void freeze() {
        frozen = true;
    }

    public void thaw() {
        frozen = false;
    }

    /** Closes every proxied connection; new ones are still accepted. */
    public void cut() {
        for (Socket socket : sockets) closeQuietly(socket);
        sockets.clear();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket upstream = new Socket();
                upstream.connect(broker, 3_000);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                if (listener.isClosed()) return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread.ofPlatform().daemon(true).name("broker-proxy-pump").start(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    while (frozen && !from.isClosed()) Thread.sleep(10);
                    out.write(buffer, 0, n);
                }
            } catch (IOException | InterruptedException e) {
                // the other side closed or the test cut the connection
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        cut();
    }
}
