package keel.metrics;

import keel.http.Execution;
import keel.http.Response;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import keel.http.client.ClientTimeoutException;
import keel.http.client.HttpClient;
import keel.http.client.HttpClientException;
import keel.http.client.PoolFullException;
import keel.http.client.RetryPolicy;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Keel's HTTP client against a Keel server, both reporting to the registry that server's /metrics shows. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ClientMetricsTest {
    private static final String CALLS = "keel_http_client_calls_seconds_count";

    private final CountDownLatch slowEntered = new CountDownLatch(1);
    private final CountDownLatch slowRelease = new CountDownLatch(1);
    private final AtomicInteger flakyCalls = new AtomicInteger();

    private Router routes() {
        Router router = new Router()
                .get("/hello", request -> Response.ok("hello"))
                .get("/flaky", request -> flakyCalls.getAndIncrement() == 0 ? Response.text(503, "once") : Response.ok("now"))
                .get("/big", request -> Response.ok("x".repeat(4096)));
        router.with(Execution.VIRTUAL_THREAD).get("/slow", request -> {
            slowEntered.countDown();
            slowRelease.await(10, TimeUnit.SECONDS);
            return Response.ok("slow");
        });
        return router;
    }

    /** One loop, one connection and one waiter per host: the pool's bounds are reached with three calls. */
    private static HttpClient client(MetricsServer server) {
        return HttpClient.create(ClientOptions.builder().loops(1).maxConnections(1).maxPendingAcquires(1)
                .maxResponseBodySize(1024).observer(server.metrics().client()).build());
    }

    @Test
    void everyOutcomeIsTimedPerHostAndRetriesAreCounted() throws Exception {
        try (MetricsServer server = MetricsServer.start(routes()); HttpClient client = client(server)) {
            String host = "127.0.0.1:" + server.server().port();
            String base = "http://" + host;
            for (int i = 0; i < 3; i++) assertThat(client.send(ClientRequest.get(base + "/hello")).status()).isEqualTo(200);
            assertThat(client.send(ClientRequest.get(base + "/flaky").retry(RetryPolicy.fixed(2, Duration.ofMillis(10)))).status())
                    .isEqualTo(200);
            assertThatThrownBy(() -> client.send(ClientRequest.get(base + "/big"))).isInstanceOf(HttpClientException.class)
                    .hasMessageContaining("larger than 1024 bytes");
            assertThatThrownBy(() -> client.send(ClientRequest.get(base + "/slow").timeout(Duration.ofMillis(200))))
                    .isInstanceOf(ClientTimeoutException.class);
            int closedPort;
            try (ServerSocket socket = new ServerSocket(0)) {
                closedPort = socket.getLocalPort();
            }
            assertThatThrownBy(() -> client.send(ClientRequest.get("http://127.0.0.1:" + closedPort + "/"))).isInstanceOf(HttpClientException.class);
            slowRelease.countDown();

            PrometheusText text = server.scrape();
            assertThat(text.types()).containsEntry("keel_http_client_calls_seconds", "histogram")
                    .containsEntry("keel_http_client_retries_total", "counter")
                    .containsEntry("keel_http_client_connections_open", "gauge");
            assertThat(text.value(CALLS, "host", host, "outcome", "ok")).isEqualTo(4);
            assertThat(text.value(CALLS, "host", host, "outcome", "failed")).isEqualTo(1);
            assertThat(text.value(CALLS, "host", host, "outcome", "timeout")).isEqualTo(1);
            assertThat(text.value(CALLS, "host", "127.0.0.1:" + closedPort, "outcome", "connect_failed")).isEqualTo(1);
            assertThat(text.value("keel_http_client_calls_seconds_bucket", "host", host, "outcome", "ok", "le", "+Inf")).isEqualTo(4);
            assertThat(text.value("keel_http_client_calls_seconds_sum", "host", host, "outcome", "timeout")).isGreaterThanOrEqualTo(0.2);
            assertThat(text.value("keel_http_client_retries_total", "host", host, "reason", "policy")).isEqualTo(1);
            assertThat(text.value("keel_http_client_retries_total", "host", host, "reason", "stale_connection")).isZero();
        }
    }

    @Test
    void poolGaugesFollowTheConnectionsAndWaitersAndAFullPoolIsCounted() throws Exception {
        try (MetricsServer server = MetricsServer.start(routes()); HttpClient client = client(server)) {
            String host = "127.0.0.1:" + server.server().port();
            String base = "http://" + host;
            assertThat(client.send(ClientRequest.get(base + "/hello")).status()).isEqualTo(200);
            PrometheusText idle = server.scrape();
            assertThat(idle.value("keel_http_client_connections_open", "host", host)).isEqualTo(1);
            assertThat(idle.value("keel_http_client_connections_idle", "host", host)).isEqualTo(1);
            assertThat(idle.value("keel_http_client_pending_acquires", "host", host)).isZero();

            CompletionStage<Response> holding = client.sendAsync(ClientRequest.get(base + "/slow"));
            assertThat(slowEntered.await(5, TimeUnit.SECONDS)).isTrue();
            CompletionStage<Response> waiting = client.sendAsync(ClientRequest.get(base + "/hello"));
            PrometheusText busy = server.scrapeUntil(t -> t.value("keel_http_client_pending_acquires", "host", host) == 1);
            assertThat(busy.value("keel_http_client_pending_acquires", "host", host)).isEqualTo(1);
            assertThat(busy.value("keel_http_client_connections_idle", "host", host)).isZero();
            assertThatThrownBy(() -> client.send(ClientRequest.get(base + "/hello"))).isInstanceOf(PoolFullException.class);
            slowRelease.countDown();
            assertThat(holding.toCompletableFuture().get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(waiting.toCompletableFuture().get(5, TimeUnit.SECONDS).status()).isEqualTo(200);

            PrometheusText after = server.scrapeUntil(t -> t.value("keel_http_client_connections_idle", "host", host) == 1);
            assertThat(after.value(CALLS, "host", host, "outcome", "pool_full")).isEqualTo(1);
            assertThat(after.value(CALLS, "host", host, "outcome", "ok")).isEqualTo(3);
            assertThat(after.value("keel_http_client_pending_acquires", "host", host)).isZero();
            assertThat(after.value("keel_http_client_connections_open", "host", host)).isEqualTo(1);
            assertThat(after.value("keel_http_client_connections_idle", "host", host)).isEqualTo(1);
        }
    }
}
