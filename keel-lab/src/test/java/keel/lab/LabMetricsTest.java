package keel.lab;

import keel.amqp.AmqpOptions;
import keel.http.server.ServerOptions;
import keel.lab.measure.Scrape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/keel serve}'s one registry: what its HTTP client, WebSocket routes, gateway and ingest
 * pipeline do shows on its own {@code GET /metrics}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LabMetricsTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final LabSettings FAST_UPSTREAM = LabSettings.defaults().withUpstreamDelay(Duration.ofMillis(20));

    private static ServerOptions options() {
        return ServerOptions.builder().host("127.0.0.1").port(0).loops(2).build();
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return HTTP.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(LabApp app, String path) {
        return URI.create("http://127.0.0.1:" + app.server().port() + path);
    }

    private static Scrape scrape(LabApp app) throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(uri(app, "/metrics")));
        assertThat(response.statusCode()).isEqualTo(200);
        return Scrape.parse(System.nanoTime(), response.body());
    }

    private static Predicate<Scrape.Sample> labelled(String... labels) {
        return sample -> {
            for (int i = 0; i < labels.length; i += 2) if (!labels[i + 1].equals(sample.label(labels[i]))) return false;
            return true;
        };
    }

    @Test
    void theClientTheWebSocketRoutesAndEvery503ShowOnMetrics() throws Exception {
        try (LabApp app = LabApp.start(options(), FAST_UPSTREAM)) {
            String self = "127.0.0.1:" + app.server().port();
            assertThat(send(HttpRequest.newBuilder(uri(app, "/devices/d1/status"))).statusCode()).isEqualTo(200);
            // Order 0's secondary address is one the mock upstream refuses with 503.
            String order = "[{\"id\":\"o0\",\"primary\":{\"street\":\"1 Main St\"},\"secondary\":{\"street\":\"PO Box 1\",\"fail\":true}}]";
            assertThat(send(HttpRequest.newBuilder(uri(app, "/orders/refine")).POST(HttpRequest.BodyPublishers.ofString(order)))
                    .statusCode()).isEqualTo(200);

            CompletableFuture<String> echo = new CompletableFuture<>();
            WebSocket session = HTTP.newWebSocketBuilder().buildAsync(URI.create("ws://" + self + "/ws/echo"), new WebSocket.Listener() {
                @Override
                public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                    echo.complete(data.toString());
                    return null;
                }
            }).get(5, TimeUnit.SECONDS);
            session.sendText("ping", true).get(5, TimeUnit.SECONDS);
            assertThat(echo.get(5, TimeUnit.SECONDS)).isEqualTo("ping");

            Scrape metrics = scrape(app);
            // Five aspects of the device, two addresses of the order: every call answered. The refused address
            // is tried once more (the refiner's policy) and answered 503 both times by the mock upstream's handler.
            assertThat(metrics.sum("keel_http_client_calls_seconds_count", labelled("host", self, "outcome", "ok"))).isEqualTo(7);
            assertThat(metrics.sum("keel_http_client_retries_total", labelled("host", self, "reason", "policy"))).isEqualTo(1);
            assertThat(metrics.sum("keel_http_client_connections_open", labelled("host", self))).isPositive();
            assertThat(metrics.sum("keel_http_server_rejected_total", labelled("reason", "handler"))).isEqualTo(2);
            assertThat(metrics.sum("keel_websocket_server_sessions_open", s -> true)).isEqualTo(1);
            assertThat(metrics.sum("keel_websocket_server_messages_received_total", s -> true)).isEqualTo(1);
            assertThat(metrics.sum("keel_websocket_server_messages_sent_total", s -> true)).isEqualTo(1);
            session.abort();
        }
    }

    @Test
    void withMetricsOffTheRoutesAnswerAndMetricsIsNotServed() throws Exception {
        try (LabApp app = LabApp.start(options(), new LabSettings(Duration.ofMillis(20), "", false))) {
            assertThat(send(HttpRequest.newBuilder(uri(app, "/benchmark/hello"))).body()).isEqualTo("Hello, World!");
            assertThat(send(HttpRequest.newBuilder(uri(app, "/devices/d1/status"))).statusCode()).isEqualTo(200);
            assertThat(send(HttpRequest.newBuilder(uri(app, "/metrics"))).statusCode()).isEqualTo(404);
        }
    }

    @Test
    void aMessageThroughTheGatewayAndTheIngestPipelineShowsOnMetrics() throws Exception {
        String queue = "keel.test.lab-metrics." + UUID.randomUUID().toString().substring(0, 8);
        AmqpOptions amqp = AmqpOptions.builder().uri(TestServices.amqpUri())
                .databaseUrl(TestServices.env("KEEL_DATABASE_URL", "jdbc:postgresql://127.0.0.1:5432/keel"))
                .databaseUser(TestServices.env("KEEL_DATABASE_USER", "keel")).databasePassword(TestServices.env("KEEL_DATABASE_PASSWORD", "keel"))
                .routingKey(queue).ingestEnabled(true).ingestQueue(queue).build();
        try (LabApp app = LabApp.start(options(), FAST_UPSTREAM, amqp)) {
            awaitScrape(app, m -> m.sum("keel_http_server_requests_seconds_count", labelled("route", "/keel/health", "status", "200")) > 0,
                    "the broker and the database up (bin/keel services up)", "/keel/health");
            HttpResponse<String> published = send(HttpRequest.newBuilder(uri(app, "/gateway/publish"))
                    .header("Message-Id", "lab-metrics-" + UUID.randomUUID()).POST(HttpRequest.BodyPublishers.ofString("{\"t\":21}")));
            assertThat(published.statusCode()).as(published.body()).isEqualTo(202);

            Scrape metrics = awaitScrape(app, m -> m.sum("keel_ingest_rows_stored_total", s -> true) == 1, "the event stored", null);
            assertThat(metrics.sum("keel_gateway_publishes_total", labelled("result", "confirmed"))).isEqualTo(1);
            assertThat(metrics.sum("keel_gateway_publishes_in_flight", s -> true)).isZero();
            assertThat(metrics.sum("keel_gateway_rejected_total", s -> true)).isZero();
            assertThat(metrics.sum("keel_ingest_batch_size_count", s -> true)).isEqualTo(1);
            assertThat(metrics.sum("keel_ingest_redeliveries_total", s -> true)).isZero();
        } finally {
            TestServices.deleteQueue(amqp, queue);
        }
    }

    /** Scrapes until {@code done} holds; {@code poll} is a path to request between scrapes (or null). */
    private static Scrape awaitScrape(LabApp app, Predicate<Scrape> done, String what, String poll) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (true) {
            if (poll != null) send(HttpRequest.newBuilder(uri(app, poll)));
            Scrape scraped = scrape(app);
            if (done.test(scraped)) return scraped;
            if (System.nanoTime() > deadline) throw new AssertionError("not seen within 20 s: " + what);
            Thread.sleep(50);
        }
    }
}
