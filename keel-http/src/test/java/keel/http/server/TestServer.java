package keel.http.server;

import keel.http.router.Router;
import keel.http.tls.TestCertificates;
import keel.http.warmup.RequestPathWarmup;

import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * A real server on a free port for one test; {@link #close()} stops it. Client tests share it. Its
 * clients ({@link #raw()}, {@link #uri}, {@link #httpClientBuilder()}) speak https, trusting the test
 * CA, when the server was started with TLS (a TLS {@link Wire}).
 */
public final class TestServer implements AutoCloseable {
    private final HttpServer server;

    private TestServer(HttpServer server) {
        this.server = server;
    }

    public static TestServer start(Router router) {
        return start(router, options -> { });
    }

    public static TestServer start(Wire wire, Router router) {
        return start(wire, router, options -> { });
    }

    /** Starts on {@code wire}; {@code customize} adjusts the test's other options. */
    public static TestServer start(Wire wire, Router router, Consumer<ServerOptions.Builder> customize) {
        return start(router, options -> customize.accept(wire.configure(options)));
    }

    /** Starts on 127.0.0.1 and a free port; {@code customize} adjusts the test's options. */
    public static TestServer start(Router router, Consumer<ServerOptions.Builder> customize) {
        return start(router, customize, null, ServerObserver.NONE);
    }

    /** Starts on {@code wire}, reporting to {@code observer}; {@code customize} adjusts the test's other options. */
    public static TestServer start(Wire wire, Router router, ServerObserver observer, Consumer<ServerOptions.Builder> customize) {
        return start(router, options -> customize.accept(wire.configure(options)), null, observer);
    }

    /**
     * Starts on {@code wire} with the access log on, written to {@code accessLog} (by the log's own
     * thread) instead of standard output; {@code customize} adjusts the test's other options.
     */
    static TestServer startWithAccessLog(Wire wire, Router router, OutputStream accessLog, Consumer<ServerOptions.Builder> customize) {
        return start(router, options -> customize.accept(wire.configure(options.accessLog(true))), accessLog, ServerObserver.NONE);
    }

    /** Like {@link #startWithAccessLog(Wire, Router, OutputStream, Consumer)}, with {@code observer} hearing every response. */
    static TestServer startWithAccessLog(Wire wire, Router router, OutputStream accessLog, ServerObserver observer,
                                         Consumer<ServerOptions.Builder> customize) {
        return start(router, options -> customize.accept(wire.configure(options.accessLog(true))), accessLog, observer);
    }

    private static TestServer start(Router router, Consumer<ServerOptions.Builder> customize, OutputStream accessLog, ServerObserver observer) {
        ServerOptions.Builder builder = ServerOptions.builder().host("127.0.0.1").port(0).loops(2)
                .lingerDrain(Duration.ofSeconds(2));
        customize.accept(builder);
        try {
            ServerOptions options = builder.build();
            return new TestServer(accessLog == null ? HttpServer.start(options, router, observer, new RequestPathWarmup())
                    : HttpServer.start(options, router, observer, accessLog));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public int port() {
        return server.port();
    }

    /** True when the server speaks TLS. */
    public boolean isTls() {
        return server.options().tls().enabled();
    }

    /** {@code http://127.0.0.1:PORT} plus {@code pathAndQuery}; {@code https://localhost:PORT} over TLS (the certificate's name). */
    public URI uri(String pathAndQuery) {
        return URI.create((isTls() ? "https://localhost:" : "http://127.0.0.1:") + port() + pathAndQuery);
    }

    /** A JDK client builder that reaches this server: over TLS it trusts the test CA. */
    public HttpClient.Builder httpClientBuilder() {
        HttpClient.Builder builder = HttpClient.newBuilder();
        return isTls() ? builder.sslContext(TestCertificates.clientContextTrustingCa()) : builder;
    }

    /** A raw client connected (and, over TLS, handshaken) to this server. */
    RawClient raw() {
        return isTls() ? RawClient.tls(port()) : RawClient.connect(port());
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
