package keel.http.server;

import keel.http.router.Router;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;

/**
 * An HTTP/1.1 server: a transport ({@code nio} or {@code blocking}) in front of a frozen route table.
 *
 * <pre>{@code
 * Router router = new Router().get("/hello", req -> Response.ok("Hello, World!"));
 * try (HttpServer server = HttpServer.start(ServerOptions.builder().port(8080).build(), router)) {
 *     server.awaitStop();
 * }
 * }</pre>
 */
public final class HttpServer implements AutoCloseable {

    /** What each transport runs: the bound socket and its connections. */
    interface Listener {
        InetSocketAddress address() throws IOException;

        int openConnections();

        void stop() throws IOException;
    }

    private final ServerOptions options;
    private final Dispatcher dispatcher;
    private final Listener transport;
    private final java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);

    private HttpServer(ServerOptions options, Router router) throws IOException {
        this.options = options;
        this.dispatcher = new Dispatcher(options, router.freeze());
        try {
            this.transport = switch (options.transport()) {
                case NIO -> new NioServer(new ServerContext(options, dispatcher));
                case BLOCKING -> new BlockingServer(new ServerContext(options, dispatcher));
            };
        } catch (IOException | RuntimeException e) {
            dispatcher.close();
            throw e;
        }
    }

    /** Binds and starts serving; the routes are frozen from here on. */
    public static HttpServer start(ServerOptions options, Router router) throws IOException {
        return new HttpServer(options, router);
    }

    public ServerOptions options() {
        return options;
    }

    public InetSocketAddress address() {
        try {
            return transport.address();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bound port (useful with port 0). */
    public int port() {
        return address().getPort();
    }

    public int openConnections() {
        return transport.openConnections();
    }

    /** Stops accepting, closes every connection and stops the threads the server started. */
    public void stop() {
        try {
            transport.stop();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            dispatcher.close();
            stopped.countDown();
        }
    }

    /** Blocks until {@link #stop()} has run. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        if (stopped.getCount() > 0) stop();
    }
}
