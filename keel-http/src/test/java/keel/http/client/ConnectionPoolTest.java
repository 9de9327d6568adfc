package keel.http.client;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.TestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The pool: reuse, bounds, stale connections, eviction, order. */
class ConnectionPoolTest {

    private static HttpClient client(ClientOptions.Builder options) {
        return HttpClient.create(options.loops(1).build());
    }

    @Test
    void reusesOneConnectionForSequentialRequests() throws Exception {
        try (TestServer server = TestServer.start(new Router().get("/hello", request -> Response.ok("hi")));
             HttpClient client = client(ClientOptions.builder())) {
            for (int i = 0; i < 20; i++) {
                assertThat(client.send(ClientRequest.get(server.uri("/hello").toString())).status()).isEqualTo(200);
            }
            assertThat(client.openConnections()).isEqualTo(1);
            assertThat(server.server().openConnections()).isEqualTo(1);
        }
    }

    @Test
    void aConnectionTheServerClosedWhileIdleNeverFailsTheNextRequest() throws Exception {
        // The server's keep-alive (150 ms) is far shorter than the pool's max idle time (20 s).
        try (TestServer server = TestServer.start(new Router().get("/hello", request -> Response.ok("hi")),
                options -> options.idleTimeout(Duration.ofMillis(150)));
             HttpClient client = client(ClientOptions.builder())) {
            for (int round = 0; round < 5; round++) {
                assertThat(client.send(ClientRequest.get(server.uri("/hello").toString())).status()).isEqualTo(200);
                Thread.sleep(400); // the server closes the idle connection meanwhile
                assertThat(server.server().openConnections()).as("the server closed it").isZero();
            }
        }
    }

    @Test
    void eachRequestAfterAnIdleCloseGoesOutOnANewConnection() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) -> ScriptedServer.ok("c" + connection), 150);
             HttpClient client = client(ClientOptions.builder())) {
            for (int round = 0; round < 4; round++) {
                assertThat(client.send(ClientRequest.get(upstream.uri("/"))).body()).asString().isEqualTo("c" + round);
                Thread.sleep(400);
            }
            assertThat(upstream.connections()).isEqualTo(4);
            assertThat(upstream.heads).as("no request was lost or sent twice").hasSize(4);
        }
    }

    @Test
    void aResponseTimeoutOnAReusedConnectionIsNotRetriedBehindTheUsersBack() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) ->
                request == 1 ? new ScriptedServer.Hang() : ScriptedServer.ok("fine"));
             HttpClient client = client(ClientOptions.builder().responseTimeout(Duration.ofMillis(200)))) {
            client.send(ClientRequest.get(upstream.uri("/a")));
            assertThatThrownBy(() -> client.send(ClientRequest.get(upstream.uri("/b"))))
                    .isInstanceOf(ClientTimeoutException.class);
            assertThat(upstream.heads).hasSize(2);
        }
    }

    @Test
    void aFailureAfterTheFirstResponseByteIsNotRetried() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) ->
                request == 1 ? new ScriptedServer.Truncate("HTTP/1.1 200 OK\r\nContent-Le") : ScriptedServer.ok("fine"));
             HttpClient client = client(ClientOptions.builder())) {
            client.send(ClientRequest.get(upstream.uri("/a")));
            // A part of the answer arrived: the server did see the request, so sending it again is not safe.
            assertThatThrownBy(() -> client.send(ClientRequest.get(upstream.uri("/b"))))
                    .isInstanceOf(ConnectionFailedException.class).hasMessageContaining("premature close");
            assertThat(upstream.heads).hasSize(2);
        }
    }

    @Test
    void aRequestOnAConnectionClosedAsItArrivesIsRetriedOnceOnANewOne() throws Exception {
        // Connection 0 answers its first request, then closes as the second arrives: the race a pool
        // cannot see coming. The idempotent GET goes again on a new connection; the user sees 200.
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) ->
                connection == 0 && request == 1 ? new ScriptedServer.Close() : ScriptedServer.ok("fine"));
             HttpClient client = client(ClientOptions.builder())) {
            assertThat(client.send(ClientRequest.get(upstream.uri("/a"))).body()).asString().isEqualTo("fine");
            assertThat(client.send(ClientRequest.get(upstream.uri("/b"))).body()).asString().isEqualTo("fine");
            assertThat(upstream.connections()).isEqualTo(2);
            assertThat(upstream.heads).hasSize(3);
        }
    }

    @Test
    void aResetOnAReusedConnectionIsRetriedToo() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) ->
                connection == 0 && request == 1 ? new ScriptedServer.Reset() : ScriptedServer.ok("fine"));
             HttpClient client = client(ClientOptions.builder())) {
            client.send(ClientRequest.get(upstream.uri("/a")));
            assertThat(client.send(ClientRequest.get(upstream.uri("/b"))).body()).asString().isEqualTo("fine");
            assertThat(upstream.connections()).isEqualTo(2);
        }
    }

    @Test
    void aNonIdempotentRequestIsRepeatedOnlyWhenDeclaredIdempotent() throws Exception {
        // Every connection closes as its second request arrives.
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) ->
                request == 1 ? new ScriptedServer.Close() : ScriptedServer.ok("fine"));
             HttpClient client = client(ClientOptions.builder())) {
            client.send(ClientRequest.get(upstream.uri("/a")));
            assertThatThrownBy(() -> client.send(ClientRequest.post(upstream.uri("/order"), "{}")))
                    .isInstanceOf(HttpClientException.class).hasMessageContaining("premature close");
            assertThat(upstream.heads).hasSize(2);

            client.send(ClientRequest.get(upstream.uri("/c")));
            Response repeated = client.send(ClientRequest.post(upstream.uri("/order"), "{}").idempotent(true));
            assertThat(repeated.body()).asString().isEqualTo("fine");
            assertThat(upstream.heads).hasSize(5);
            assertThat(upstream.connections()).isEqualTo(3);
        }
    }

    /** GET /hold answers once {@code release} opens, so its connection stays busy until then. */
    private static Router holdingUntil(CountDownLatch release) {
        Router router = new Router();
        router.with(Execution.VIRTUAL_THREAD).get("/hold", request -> {
            release.await(10, TimeUnit.SECONDS);
            return Response.ok("held");
        });
        return router;
    }

    @Test
    void pendingAcquiresOverTheBoundFailAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (TestServer server = TestServer.start(holdingUntil(release));
             HttpClient client = client(ClientOptions.builder().maxConnections(1).maxPendingAcquires(1))) {
            String uri = server.uri("/hold").toString();
            CompletableFuture<Response> first = client.sendAsync(ClientRequest.get(uri)).toCompletableFuture();
            server.awaitOpenConnections(1);
            CompletableFuture<Response> second = client.sendAsync(ClientRequest.get(uri)).toCompletableFuture();
            CompletableFuture<Response> third = client.sendAsync(ClientRequest.get(uri)).toCompletableFuture();
            assertThatThrownBy(() -> third.get(1, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(PoolFullException.class)
                    .hasMessageContaining("1 connections busy and 1 requests waiting");
            assertThat(first).isNotDone();
            assertThat(second).isNotDone();
            release.countDown();
            assertThat(first.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
            assertThat(second.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
    }

    @Test
    void aRequestWaitingForAConnectionGivesUpAfterTheAcquireTimeout() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (TestServer server = TestServer.start(holdingUntil(release));
             HttpClient client = client(ClientOptions.builder().maxConnections(1).acquireTimeout(Duration.ofMillis(200)))) {
            String uri = server.uri("/hold").toString();
            CompletableFuture<Response> first = client.sendAsync(ClientRequest.get(uri)).toCompletableFuture();
            server.awaitOpenConnections(1);
            assertThatThrownBy(() -> client.send(ClientRequest.get(uri)))
                    .isInstanceOfSatisfying(ClientTimeoutException.class,
                            e -> assertThat(e.kind()).isEqualTo(ClientTimeoutException.Kind.ACQUIRE))
                    .hasMessageContaining("acquire timeout after 200 ms");
            release.countDown();
            assertThat(first.get(5, TimeUnit.SECONDS).status()).isEqualTo(200);
        }
    }

    @Test
    void idleConnectionsAreEvictedInTheBackground() throws Exception {
        try (TestServer server = TestServer.start(new Router().get("/hello", request -> Response.ok("hi")));
             HttpClient client = client(ClientOptions.builder().maxIdleTime(Duration.ofMillis(100))
                     .evictionInterval(Duration.ofMillis(50)))) {
            client.send(ClientRequest.get(server.uri("/hello").toString()));
            assertThat(client.idleConnections()).isEqualTo(1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (client.idleConnections() > 0 && System.nanoTime() < deadline) Thread.sleep(20);
            assertThat(client.idleConnections()).isZero();
            assertThat(client.openConnections()).isZero();
        }
    }

    @Test
    void aConnectionPastItsLifeTimeIsNotReused() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) -> ScriptedServer.ok("c" + connection));
             HttpClient client = client(ClientOptions.builder().maxLifeTime(Duration.ofMillis(200)))) {
            assertThat(client.send(ClientRequest.get(upstream.uri("/"))).body()).asString().isEqualTo("c0");
            assertThat(client.send(ClientRequest.get(upstream.uri("/"))).body()).asString().isEqualTo("c0");
            Thread.sleep(300);
            assertThat(client.send(ClientRequest.get(upstream.uri("/"))).body()).asString().isEqualTo("c1");
        }
    }

    @Test
    void lifoReusesTheMostRecentConnectionAndFifoTheOldest() throws Exception {
        assertThat(secondRoundAnswers(ClientOptions.Order.LIFO)).isEqualTo("c1");
        assertThat(secondRoundAnswers(ClientOptions.Order.FIFO)).isEqualTo("c0");
    }

    /** Opens two connections (c0 then c1, c1 released last) and says which one the next request gets. */
    private static String secondRoundAnswers(ClientOptions.Order order) throws Exception {
        CountDownLatch bothArrived = new CountDownLatch(2);
        try (ScriptedServer upstream = new ScriptedServer((connection, request, head) -> {
            if (request == 0) {
                bothArrived.countDown();
                try {
                    bothArrived.await(5, TimeUnit.SECONDS);
                    Thread.sleep(connection * 100L); // c1 answers (and goes idle) last
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return ScriptedServer.ok("c" + connection);
        });
             HttpClient client = client(ClientOptions.builder().order(order))) {
            var a = client.sendAsync(ClientRequest.get(upstream.uri("/"))).toCompletableFuture();
            var b = client.sendAsync(ClientRequest.get(upstream.uri("/"))).toCompletableFuture();
            CompletableFuture.allOf(a, b).get(5, TimeUnit.SECONDS);
            return new String(client.send(ClientRequest.get(upstream.uri("/"))).body());
        }
    }
}
