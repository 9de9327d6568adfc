package keel.http.ws;

import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.function.Consumer;

/** A real server on 127.0.0.1 and a free port for one WebSocket test; {@link #close()} stops it. */
final class WsServer implements AutoCloseable {
    private final HttpServer server;

    private WsServer(HttpServer server) {
        this.server = server;
    }

    static WsServer start(Router router) {
        return start(router, options -> { });
    }

    static WsServer start(Router router, Consumer<ServerOptions.Builder> customize) {
        ServerOptions.Builder builder = ServerOptions.builder().host("127.0.0.1").port(0).loops(2).lingerDrain(Duration.ofSeconds(2));
        customize.accept(builder);
        try {
            return new WsServer(HttpServer.start(builder.build(), router));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return server.port();
    }

    URI uri(String path) {
        return URI.create("ws://127.0.0.1:" + port() + path);
    }

    HttpServer server() {
        return server;
    }

    /** Waits up to 5 s until the server counts {@code count} open connections; true when it does. */
    boolean awaitOpenConnections(int count) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (server.openConnections() != count && System.nanoTime() < deadline) Thread.sleep(5);
        return server.openConnections() == count;
    }

    @Override
    public void close() {
        server.close();
    }
}
