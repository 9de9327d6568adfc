package keel.http.server;

import keel.http.router.Router;

import java.net.URI;
import java.time.Duration;
import java.util.function.Consumer;

/** A real server on a free port for one test; {@link #close()} stops it. Client tests share it. */
public final class TestServer implements AutoCloseable {
    private final HttpServer server;

    private TestServer(HttpServer server) {
        this.server = server;
    }

    public static TestServer start(Router router) {
        return start(router, options -> { });
    }

    public static TestServer start(Transport transport, Router router) {
        return start(router, options -> options.transport(transport));
    }

    /** Starts on 127.0.0.1 and a free port; {@code customize} adjusts the test's options. */
    public static TestServer start(Router router, Consumer<ServerOptions.Builder> customize) {
        ServerOptions.Builder builder = ServerOptions.builder().host("127.0.0.1").port(0).loops(2)
                .lingerDrain(Duration.ofSeconds(2));
        customize.accept(builder);
        try {
            return new TestServer(HttpServer.start(builder.build(), router));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public int port() {
        return server.port();
    }

    public URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port() + pathAndQuery);
    }

    RawClient raw() {
        return RawClient.connect(port());
    }

    /** Waits up to 5 s until the server counts {@code count} open connections. */
    public void awaitOpenConnections(int count) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
        while (server.openConnections() < count && System.nanoTime() < deadline) Thread.sleep(5);
    }

    public HttpServer server() {
        return server;
    }

    @Override
    public void close() {
        server.close();
    }
}
