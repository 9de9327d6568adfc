package keel.metrics;

import keel.core.loop.EventLoop;
import keel.core.tls.HandshakeFailures;
import keel.http.Execution;
import keel.http.HttpStatusException;
import keel.http.Response;
import keel.http.Rejection;
import keel.http.router.Router;
import keel.http.server.ServerObserver;
import keel.http.server.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The metrics a running server publishes on /metrics, over real sockets. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class KeelMetricsTest {
    private static final String REQUESTS_COUNT = "keel_http_server_requests_seconds_count";

    private static Router hello() {
        return new Router().get("/hello", request -> Response.ok("Hello"));
    }

    @Test
    void metricsIsPrometheusTextWithEveryKeelFamilyTyped() throws Exception {
        try (MetricsServer server = MetricsServer.start(hello())) {
            assertThat(server.get("/hello").statusCode()).isEqualTo(200);

            HttpResponse<String> response = server.get("/metrics");
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");

            PrometheusText text = PrometheusText.parse(response.body());
            assertThat(text.samples()).isNotEmpty();
            assertThat(text.types()).containsEntry("keel_http_server_requests_seconds", "histogram")
                    .containsEntry("keel_http_server_requests_seconds_max", "gauge")
                    .containsEntry("keel_http_server_rejected_total", "counter")
                    .containsEntry("keel_http_server_bytes_received_total", "counter")
                    .containsEntry("keel_http_server_bytes_sent_total", "counter")
                    .containsEntry("keel_http_server_connections_open", "gauge")
                    .containsEntry("keel_worker_pool_active_threads", "gauge")
                    .containsEntry("keel_worker_pool_queued_requests", "gauge")
                    .containsEntry("keel_virtual_threads_in_flight", "gauge")
                    .containsEntry("keel_event_loop_pending_tasks", "gauge")
                    .containsEntry("keel_http_server_access_log_dropped_total", "counter")
                    .containsKey("jvm_memory_used_bytes");
            assertThat(text.find("keel_http_server_requests_seconds_bucket", "route", "/hello", "le", "+Inf")).hasSize(1);
            assertThat(text.find("keel_http_server_requests_seconds_max", "route", "/hello")).hasSize(1);
            for (Rejection reason : Rejection.values()) {
                assertThat(text.find("keel_http_server_rejected_total", "reason", reason.label()))
                        .as(reason.label()).singleElement().extracting(PrometheusText.Sample::value).isEqualTo(0.0);
            }
            for (ServerObserver.Timeout reason : ServerObserver.Timeout.values()) {
                assertThat(text.find("keel_http_server_timeouts_total", "reason", reason.label()))
                        .as(reason.label()).singleElement().extracting(PrometheusText.Sample::value).isEqualTo(0.0);
            }
            for (ServerObserver.Drop reason : ServerObserver.Drop.values()) {
                assertThat(text.find("keel_http_server_dropped_total", "reason", reason.label()))
                        .as(reason.label()).singleElement().extracting(PrometheusText.Sample::value).isEqualTo(0.0);
            }
            assertThat(text.value("keel_http_server_connections_open")).isGreaterThanOrEqualTo(1);
            assertThat(text.value("keel_http_server_access_log_dropped_total")).as("the access log is off").isZero();
            for (EventLoop loop : server.server().loops()) {
                assertThat(text.find("keel_event_loop_pending_tasks", "loop", loop.name())).hasSize(1);
            }
        }
    }

    @Test
    void theJvmGaugesJoinAtTheFirstScrapeAndTheGcMetersFromTheStart() {
        try (KeelMetrics metrics = new KeelMetrics()) {
            assertThat(metrics.registry().find("jvm.gc.memory.allocated").meters()).as("GC meters count from the start").isNotEmpty();
            assertThat(metrics.registry().find("jvm.memory.used").meters()).as("before the first scrape").isEmpty();

            PrometheusText text = PrometheusText.parse(metrics.scrape());

            assertThat(text.types()).containsKeys("jvm_memory_used_bytes", "jvm_threads_live_threads", "process_uptime_seconds",
                    "system_cpu_count", "jvm_gc_memory_allocated_bytes_total");
            assertThat(text.value("system_cpu_count")).isEqualTo(Runtime.getRuntime().availableProcessors());
            assertThat(metrics.scrape().lines().filter(line -> line.startsWith("# TYPE jvm_memory_used_bytes")))
                    .as("bound once").hasSize(1);
        }
    }

    @Test
    void theWarmupRecordsNothingInTheRealRegistry() {
        try (KeelMetrics metrics = new KeelMetrics()) {
            String before = metrics.scrape();
            metrics.warmup(100);
            String after = metrics.scrape();
            assertThat(after).doesNotContain("/warmup/");
            assertThat(after.lines().filter(line -> line.startsWith("keel_http_server_requests_seconds_count")))
                    .containsExactlyElementsOf(before.lines().filter(line -> line.startsWith("keel_http_server_requests_seconds_count")).toList());
            assertThat(after).contains("jvm_memory_used_bytes");
        }
    }

    @Test
    void tlsHandshakeFailuresAreCountedByReasonEachFromZero() {
        try (KeelMetrics metrics = new KeelMetrics()) {
            metrics.onTlsHandshakeFailed(HandshakeFailures.PLAIN_HTTP);
            metrics.onTlsHandshakeFailed(HandshakeFailures.PLAIN_HTTP);
            metrics.onTlsHandshakeFailed(HandshakeFailures.CERTIFICATE);
            PrometheusText text = PrometheusText.parse(metrics.scrape());
            assertThat(text.types()).containsEntry("keel_http_server_tls_handshake_failures_total", "counter");
            assertThat(text.value("keel_http_server_tls_handshake_failures_total", "reason", "plain_http")).isEqualTo(2);
            assertThat(text.value("keel_http_server_tls_handshake_failures_total", "reason", "certificate")).isEqualTo(1);
            for (String reason : List.of("timeout", "protocol_version", "renegotiation", "other")) {
                assertThat(text.value("keel_http_server_tls_handshake_failures_total", "reason", reason)).as(reason).isZero();
            }
        }
    }

    @Test
    void requestCountersAndByteCountersMoveWithTraffic() throws Exception {
        try (MetricsServer server = MetricsServer.start(hello())) {
            PrometheusText before = server.scrape();
            double receivedBefore = before.value("keel_http_server_bytes_received_total");
            double sentBefore = before.value("keel_http_server_bytes_sent_total");
            assertThat(before.value(REQUESTS_COUNT, "route", "/hello")).isZero();

            int n = 7;
            for (int i = 0; i < n; i++) assertThat(server.get("/hello").statusCode()).isEqualTo(200);
            assertThat(server.get("/nope").statusCode()).isEqualTo(404);

            PrometheusText after = server.scrapeUntil(t -> t.value("keel_http_server_bytes_sent_total") > sentBefore);
            assertThat(after.value(REQUESTS_COUNT, "method", "GET", "route", "/hello", "status", "200", "status_class", "2xx"))
                    .isEqualTo(n);
            assertThat(after.value(REQUESTS_COUNT, "method", "GET", "route", "none", "status", "404", "status_class", "4xx"))
                    .isEqualTo(1);
            assertThat(after.value("keel_http_server_requests_seconds_sum", "route", "/hello")).isPositive();
            assertThat(after.value("keel_http_server_requests_seconds_bucket", "route", "/hello", "le", "+Inf")).isEqualTo(n);
            assertThat(after.value("keel_http_server_bytes_received_total")).isGreaterThan(receivedBefore);
            assertThat(after.value("keel_http_server_bytes_sent_total")).isGreaterThan(sentBefore);
        }
    }

    @Test
    void eachLoopPublishesItsLagAsAHistogram() throws Exception {
        try (MetricsServer server = MetricsServer.start(hello(), b -> b.lagProbeInterval(Duration.ofMillis(10)))) {
            List<String> loops = server.server().loops().stream().map(EventLoop::name).toList();
            assertThat(loops).hasSize(2);

            PrometheusText text = server.scrapeUntil(t -> loops.stream()
                    .allMatch(loop -> t.value("keel_event_loop_lag_seconds_count", "loop", loop) >= 5));
            assertThat(text.types()).containsEntry("keel_event_loop_lag_seconds", "histogram");
            for (String loop : loops) {
                double count = text.value("keel_event_loop_lag_seconds_count", "loop", loop);
                assertThat(count).as(loop).isGreaterThanOrEqualTo(5);
                // The buckets around the healthy/slow boundary exist, and +Inf holds every observation.
                assertThat(text.find("keel_event_loop_lag_seconds_bucket", "loop", loop, "le", "0.005")).as(loop).hasSize(1);
                assertThat(text.find("keel_event_loop_lag_seconds_bucket", "loop", loop, "le", "0.001")).as(loop).hasSize(1);
                assertThat(text.value("keel_event_loop_lag_seconds_bucket", "loop", loop, "le", "+Inf")).as(loop).isEqualTo(count);
                assertThat(text.find("keel_event_loop_lag_seconds_max", "loop", loop)).as(loop).hasSize(1);
            }
        }
    }

    @Test
    void aRouteBlockingTheLoopIsCountedUnderItsPattern() throws Exception {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).get("/block", request -> {
            Thread.sleep(300);
            return Response.ok("x");
        });
        try (MetricsServer server = MetricsServer.start(router, b -> b.blockedThreshold(Duration.ofMillis(50)))) {
            assertThat(server.get("/block").statusCode()).isEqualTo(200);

            PrometheusText text = server.scrapeUntil(t -> t.value("keel_event_loop_blocked_total", "route", "/block") >= 1);
            assertThat(text.types()).containsEntry("keel_event_loop_blocked_total", "counter");
            assertThat(text.value("keel_event_loop_blocked_total", "route", "/block")).isGreaterThanOrEqualTo(1);
        }
    }

    @Test
    void aFullWorkerPoolIsCountedAsARejection() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Router router = new Router();
        router.with(Execution.WORKER_POOL).get("/slow", request -> {
            release.await(5, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        try (MetricsServer server = MetricsServer.start(router, b -> b.workerThreads(1).workerQueue(1))) {
            List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) calls.add(server.getAsync("/slow"));

                // The third request is refused as soon as the first two are admitted; the pool's thread takes
                // up the first a moment later: scrape until both have happened.
                PrometheusText text = server.scrapeUntil(t -> t.value("keel_http_server_rejected_total", "reason", "worker_pool_full") >= 1
                        && t.value("keel_worker_pool_active_threads") == 1 && t.value("keel_worker_pool_queued_requests") == 1);
                assertThat(text.value("keel_http_server_rejected_total", "reason", "worker_pool_full")).isGreaterThanOrEqualTo(1);
                assertThat(text.value("keel_worker_pool_active_threads")).isEqualTo(1);
                assertThat(text.value("keel_worker_pool_queued_requests")).isEqualTo(1);
            } finally {
                release.countDown();
            }
            List<Integer> statuses = calls.stream().map(call -> call.join().statusCode()).sorted().toList();
            assertThat(statuses).containsExactly(200, 200, 503);
            PrometheusText text = server.scrapeUntil(t -> t.value(REQUESTS_COUNT, "route", "/slow", "status", "200") == 2);
            assertThat(text.value(REQUESTS_COUNT, "route", "/slow", "status", "503", "status_class", "5xx")).isEqualTo(1);
            assertThat(text.value(REQUESTS_COUNT, "route", "/slow", "status", "200")).isEqualTo(2);
            assertThat(text.value("keel_http_server_rejected_total", "reason", "handler")).as("counted once, as the pool's").isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void a503TheHandlerAnswersIsCountedAsTheHandlers(Transport transport) throws Exception {
        Router router = new Router()
                .get("/down", request -> Response.text(503, "down for maintenance"))
                .get("/unavailable", request -> {
                    throw new HttpStatusException(503, "not ready");
                })
                .getAsync("/later", request -> CompletableFuture.completedFuture(Response.text(503, "later")))
                .get("/fine", request -> Response.ok("fine"));
        router.with(Execution.EVENT_LOOP).get("/loop/down", request -> Response.text(503, "down for maintenance"));
        router.with(Execution.EVENT_LOOP).get("/loop/unavailable", request -> {
            throw new HttpStatusException(503, "not ready");
        });
        List<String> unavailable = List.of("/down", "/unavailable", "/later", "/loop/down", "/loop/unavailable");
        try (MetricsServer server = MetricsServer.start(router, b -> b.transport(transport))) {
            for (String path : unavailable) assertThat(server.get(path).statusCode()).as(path).isEqualTo(503);
            assertThat(server.get("/fine").statusCode()).isEqualTo(200);

            PrometheusText text = server.scrape();
            assertThat(text.value("keel_http_server_rejected_total", "reason", "handler")).isEqualTo(unavailable.size());
            assertThat(text.find("keel_http_server_rejected_total").stream().mapToDouble(PrometheusText.Sample::value).sum())
                    .as("no 503 counted under two reasons").isEqualTo(unavailable.size());
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void aBodyTooSlowIsAnswered408AndCountedAsATimeout(Transport transport) throws Exception {
        Router router = new Router().post("/upload", request -> Response.ok("got " + request.body().length));
        try (MetricsServer server = MetricsServer.start(router, b -> b.transport(transport).bodyMinRate(1_000)
                .bodyRateWindow(Duration.ofMillis(200)));
             java.net.Socket socket = new java.net.Socket("127.0.0.1", server.server().port())) {
            socket.setSoTimeout(5_000);
            var out = socket.getOutputStream();
            out.write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            try {
                for (int i = 0; i < 100 && socket.getInputStream().available() == 0; i++) { // a byte per 20 ms, 50 bytes/s
                    out.write('x');
                    out.flush();
                    Thread.sleep(20);
                }
            } catch (java.io.IOException closed) {
                // the server answered and closed while the client trickled
            }
            String answer = new String(socket.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 408 ").contains("request body slower than 1000 bytes/s");

            PrometheusText text = server.scrapeUntil(t -> t.value("keel_http_server_timeouts_total", "reason", "body_too_slow") >= 1);
            assertThat(text.value("keel_http_server_timeouts_total", "reason", "body_too_slow")).isEqualTo(1);
            assertThat(text.value("keel_http_server_timeouts_total", "reason", "body_stalled")).isZero();
        }
    }

    @Test
    void accessLogLinesThatCannotBeWrittenAreCountedAsDropped() throws Exception {
        Path full = Path.of("/dev/full"); // every write fails with ENOSPC: a full disk
        assumeTrue(Files.isWritable(full), "needs /dev/full");
        try (MetricsServer server = MetricsServer.start(hello(), b -> b.accessLog(true).accessLogFile(full))) {
            for (int i = 0; i < 5; i++) assertThat(server.get("/hello").statusCode()).isEqualTo(200);
            PrometheusText text = server.scrapeUntil(t -> t.value("keel_http_server_access_log_dropped_total") >= 5);
            assertThat(text.value("keel_http_server_access_log_dropped_total")).isGreaterThanOrEqualTo(5);
        }
    }

    @Test
    void unknownMethodsShareOneSeries() {
        try (KeelMetrics metrics = new KeelMetrics()) {
            metrics.onResponse("BREW", null, 405, 1_000);
            metrics.onResponse("WHEN", null, 405, 2_000);
            metrics.onResponse(null, "/x", 200, 2_000);
            PrometheusText text = PrometheusText.parse(metrics.scrape());
            assertThat(text.value(REQUESTS_COUNT, "method", "OTHER", "route", "none", "status", "405")).isEqualTo(2);
            assertThat(text.value(REQUESTS_COUNT, "method", "OTHER", "route", "/x", "status", "200")).isEqualTo(1);
        }
    }
}
