package keel.metrics;

import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Predicate;

/** A real server on 127.0.0.1 and a free port, measured by a {@link KeelMetrics} that serves /metrics. */
final class MetricsServer implements AutoCloseable {
    private static final Duration DEADLINE = Duration.ofSeconds(2);

    private final KeelMetrics metrics;
    private final HttpServer server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).build();

    private MetricsServer(KeelMetrics metrics, HttpServer server) {
        this.metrics = metrics;
        this.server = server;
    }

    static MetricsServer start(Router router) {
        return start(router, options -> { });
    }

    /** Starts with 2 loops; {@code customize} adjusts the test's options. */
    static MetricsServer start(Router router, Consumer<ServerOptions.Builder> customize) {
        ServerOptions.Builder options = ServerOptions.builder().host("127.0.0.1").port(0).loops(2);
        customize.accept(options);
        KeelMetrics metrics = new KeelMetrics();
        metrics.register(router);
        try {
            return new MetricsServer(metrics, HttpServer.start(options.build(), router, metrics));
        } catch (IOException e) {
            metrics.close();
            throw new UncheckedIOException(e);
        }
    }

    HttpServer server() {
        return server;
    }

    KeelMetrics metrics() {
        return metrics;
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    CompletableFuture<HttpResponse<String>> getAsync(String path) {
        return client.sendAsync(HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** GET /metrics, parsed strictly. */
    PrometheusText scrape() throws IOException, InterruptedException {
        HttpResponse<String> response = get("/metrics");
        if (response.statusCode() != 200) throw new AssertionError("/metrics answered " + response.statusCode());
        return PrometheusText.parse(response.body());
    }

    /** Scrapes until {@code done} holds or the deadline passes; returns the last scrape either way. */
    PrometheusText scrapeUntil(Predicate<PrometheusText> done) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            PrometheusText scraped = scrape();
            if (done.test(scraped) || System.nanoTime() > deadline) return scraped;
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } finally {
            client.close();
            metrics.close();
        }
    }
}
