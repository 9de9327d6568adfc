package keel.http.server;

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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class GracefulShutdownTest {
    private static Router slowRoutes() {
        return new Router()
                .get("/slow", request -> {
                    Thread.sleep(400);
                    return Response.ok("finished");
                })
                .get("/fast", request -> Response.ok("fast"));
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void letsRequestsInFlightFinishUnderLoadAndThenRefusesConnections(Transport transport) throws Exception {
        TestServer server = TestServer.start(slowRoutes(), b -> b.transport(transport).execution(Execution.VIRTUAL_THREAD));
        int port = server.port();
        try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
            List<CompletableFuture<HttpResponse<String>>> inFlight = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                inFlight.add(client.sendAsync(HttpRequest.newBuilder(server.uri("/slow")).build(), HttpResponse.BodyHandlers.ofString()));
            }
            server.awaitOpenConnections(20);
            Thread.sleep(100); // the requests reach their handlers
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
    @EnumSource(Transport.class)
    void answersTheRequestInFlightWithConnectionCloseAndClosesIdleConnections(Transport transport) throws Exception {
        TestServer server = TestServer.start(slowRoutes(), b -> b.transport(transport).execution(Execution.WORKER_POOL));
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
    @EnumSource(Transport.class)
    void closesWhatRemainsWhenTheGracePeriodEnds(Transport transport) throws Exception {
        Router router = new Router().get("/forever", request -> {
            Thread.sleep(10_000);
            return Response.ok("too late");
        });
        TestServer server = TestServer.start(router, b -> b.transport(transport).execution(Execution.VIRTUAL_THREAD));
        try (RawClient client = server.raw()) {
            client.send("GET /forever HTTP/1.1\r\nHost: t\r\n\r\n");
            Thread.sleep(100);
            long start = System.nanoTime();
            server.server().stop(Duration.ofMillis(300));
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(250L, 3_000L);
            assertThat(server.server().openConnections()).isZero();
        }
    }
}
