package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.ConnectException;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GracefulShutdownTest {
    private static Router slowRoutes() {
        return slowRoutes(new CountDownLatch(0));
    }

    /** {@code arrived} counts down as each {@code /slow} request reaches its handler. */
    private static Router slowRoutes(CountDownLatch arrived) {
        return new Router()
                .get("/slow", request -> {
                    arrived.countDown();
                    Thread.sleep(400);
                    return Response.ok("finished");
                })
                .get("/fast", request -> Response.ok("fast"));
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void letsRequestsInFlightFinishUnderLoadAndThenRefusesConnections(Wire wire) throws Exception {
        CountDownLatch arrived = new CountDownLatch(40);
        TestServer server = TestServer.start(wire, slowRoutes(arrived), b -> b.execution(Execution.VIRTUAL_THREAD));
        int port = server.port();
        try (HttpClient client = server.httpClientBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                inFlight.add(client.sendAsync(HttpRequest.newBuilder(server.uri("/slow")).build(), HttpResponse.BodyHandlers.ofString()));
            }
            // Every request in its handler, however long the connections (and their handshakes) took to open.
            assertThat(arrived.await(10, TimeUnit.SECONDS)).as("all 40 requests reached their handlers").isTrue();
            long start = System.nanoTime();
            server.server().stop(Duration.ofSeconds(10));
            long stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            for (CompletableFuture<HttpResponse<String>> response : inFlight) {
                HttpResponse<String> answered = response.get(5, TimeUnit.SECONDS);
                assertThat(answered.statusCode()).isEqualTo(200);
                assertThat(answered.body()).isEqualTo("finished");
            }
            assertThat(stopMillis).as("stop waited for the in-flight requests, not the whole grace").isBetween(100L, 5_000L);
        }
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersTheRequestInFlightWithConnectionCloseAndClosesIdleConnections(Wire wire) throws Exception {
        TestServer server = TestServer.start(wire, slowRoutes(), b -> b.execution(Execution.WORKER_POOL));
        try (RawClient busy = server.raw(); RawClient idle = server.raw()) {
            idle.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(idle.read().header("connection")).isNull();
            busy.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
            Thread.sleep(100);
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> server.server().stop(Duration.ofSeconds(10)));

            assertThat(idle.timeout(3_000).closedByServer()).as("idle connection closed cleanly").isTrue();
            RawClient.RawResponse answer = busy.read();
            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("finished");
            assertThat(answer.header("connection")).isEqualTo("close");
            assertThat(busy.timeout(3_000).closedByServer()).isTrue();
            stopping.get(5, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesWhatRemainsWhenTheGracePeriodEnds(Wire wire) throws Exception {
        Router router = new Router().get("/forever", request -> {
            Thread.sleep(10_000);
            return Response.ok("too late");
        });
        TestServer server = TestServer.start(wire, router, b -> b.execution(Execution.VIRTUAL_THREAD));
        try (RawClient client = server.raw()) {
            client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n");
            Thread.sleep(100);
            long start = System.nanoTime();
            server.server().stop(Duration.ofMillis(300));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 3_000L);
            assertThat(server.server().openConnections()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void servesAsBeforeDuringTheHealthGraceWhileAHealthRouteAnswers503(Wire wire) throws Exception {
        java.util.concurrent.atomic.AtomicReference<HttpServer> running = new java.util.concurrent.atomic.AtomicReference<>();
        Router router = slowRoutes().get("/health", request -> running.get().isStopping()
                ? Response.status(503) : Response.ok("up"));
        TestServer server = TestServer.start(wire, router, b -> b.healthGrace(Duration.ofSeconds(2)));
        running.set(server.server());
        int port = server.port();
        try (RawClient keptAlive = server.raw()) {
            keptAlive.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(keptAlive.read().status()).isEqualTo(200);
            long start = System.nanoTime();
            CompletableFuture<Void> stopping = CompletableFuture.runAsync(() -> server.server().stop(Duration.ofSeconds(5)));
            while (!server.server().isStopping()) Thread.onSpinWait();

            keptAlive.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(keptAlive.read().status()).as("health on a kept-alive connection").isEqualTo(503);
            keptAlive.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
            RawClient.RawResponse fast = keptAlive.read();
            assertThat(fast.status()).isEqualTo(200);
            assertThat(fast.header("connection")).as("no close yet: the balancer has not taken the server out").isNull();
            try (RawClient fresh = server.raw()) {
                fresh.send("GET /fast HTTP/1.1\r\nHost: t\r\n\r\n");
                assertThat(fresh.read().status()).as("a new connection is still accepted").isEqualTo(200);
            }

            assertThat(keptAlive.timeout(5_000).closedByServer()).as("the idle connection closes after the health grace").isTrue();
            stopping.get(10, TimeUnit.SECONDS);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(2_000L);
        }
        assertThatThrownBy(() -> new Socket("127.0.0.1", port).close()).isInstanceOf(ConnectException.class);
    }
}
