package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Persistent connections (RFC 9112 §9.3): HTTP/1.1 stays open unless a side says {@code close};
 * HTTP/1.0 closes unless the client asked for {@code keep-alive}; an idle connection is closed cleanly.
 */
class KeepAliveTest {

    private static Router router() {
        Router router = new Router()
                .get("/echo", req -> Response.ok("i=" + req.queryParam("i").orElse("?")))
                .post("/echo", req -> Response.ok("body=" + req.bodyText()))
                .get("/bye", req -> Response.ok("bye").closeConnection())
                .get("/slow", req -> {
                    Thread.sleep(600);
                    return Response.ok("slow");
                })
                .get("/huge", req -> Response.bytes(200, "application/octet-stream", new byte[32 * 1024 * 1024]));
        router.with(Execution.EVENT_LOOP).get("/loop", req -> Response.ok("loop i=" + req.queryParam("i").orElse("?")));
        return router;
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void servesSeveralSequentialRequestsOnOneConnection(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            for (int i = 0; i < 10; i++) {
                client.send(i % 2 == 0 ? RawClient.get("/echo?i=" + i)
                        : "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n" + String.format("%02d", i));
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).isEqualTo(200);
                assertThat(response.body()).isEqualTo(i % 2 == 0 ? "i=" + i : "body=" + String.format("%02d", i));
                assertThat(response.header("Connection")).isNull();
            }
            client.timeout(200);
            assertThat(client.closedByServer()).isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesHttp10ConnectionWithoutKeepAliveAfterTheResponse(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /echo?i=1 HTTP/1.0\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.statusLine()).startsWith("HTTP/1.1 200");
            assertThat(response.body()).isEqualTo("i=1");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(response.header("Content-Length")).isEqualTo("3");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesHttp10ConnectionCleanlyEvenWithAPipelinedRequestAfterIt(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /echo?i=1 HTTP/1.0\r\n\r\n" + RawClient.get("/echo?i=2") + RawClient.get("/echo?i=3"));
            RawClient.RawResponse response = client.read();
            assertThat(response.body()).isEqualTo("i=1");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(client.closedByServer()).as("nothing after the HTTP/1.0 response, then EOF").isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void keepsHttp10ConnectionOpenWhenClientAsksForKeepAlive(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            for (int i = 0; i < 3; i++) {
                client.send("GET /echo?i=" + i + " HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).isEqualTo(200);
                assertThat(response.body()).isEqualTo("i=" + i);
                assertThat(response.header("Connection")).isEqualTo("keep-alive");
                assertThat(response.header("Content-Length")).isEqualTo("3");
            }
            client.send("POST /echo HTTP/1.0\r\nConnection: Keep-Alive\r\nContent-Length: 4\r\n\r\nabcd");
            RawClient.RawResponse post = client.read();
            assertThat(post.body()).isEqualTo("body=abcd");
            assertThat(post.header("Connection")).isEqualTo("keep-alive");
            // An HTTP/1.0 request without the token ends the connection.
            client.send("GET /echo?i=last HTTP/1.0\r\n\r\n");
            RawClient.RawResponse last = client.read();
            assertThat(last.body()).isEqualTo("i=last");
            assertThat(last.header("Connection")).isEqualTo("close");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesAfterResponseWhenHttp11ClientSendsConnectionClose(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/echo?i=1"));
            assertThat(client.read().body()).isEqualTo("i=1");
            client.send("GET /echo?i=2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("i=2");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesWhenCloseIsOneTokenOfTheConnectionHeader(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /echo?i=1 HTTP/1.1\r\nHost: x\r\nConnection: TE, Close\r\nTE: trailers\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.body()).isEqualTo("i=1");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesAfterResponseWhenHandlerAsksToCloseTheConnection(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/bye") + RawClient.get("/echo?i=never"));
            RawClient.RawResponse response = client.read();
            assertThat(response.body()).isEqualTo("bye");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersEveryRequestSentBeforeClientHalfClosesThenEof(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            // The end arrives with the requests (over TLS, close_notify in the same read): it waits until they are answered.
            client.sendAndShutdownOutput(RawClient.get("/echo?i=1") + RawClient.get("/loop?i=2")
                    + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nend");
            assertThat(client.read().body()).isEqualTo("i=1");
            assertThat(client.read().body()).isEqualTo("loop i=2");
            assertThat(client.read().body()).isEqualTo("body=end");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void keepsHttp11ConnectionOpenWithExplicitKeepAliveAndAnswersWithoutConnectionHeader(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /echo?i=1 HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.body()).isEqualTo("i=1");
            assertThat(response.header("Connection")).isNull();
            client.timeout(200);
            assertThat(client.closedByServer()).isFalse();
        }
    }

    /** RFC 9112 §2.2: a server should ignore at least one empty line (CRLF) received before a request line. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void ignoresEmptyLineBetweenKeepAliveRequests(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab\r\n");
            assertThat(client.read().body()).isEqualTo("body=ab");
            client.send("\r\n" + RawClient.get("/echo?i=2"));
            RawClient.RawResponse second = client.read();
            assertThat(second.status()).isEqualTo(200);
            assertThat(second.body()).isEqualTo("i=2");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void ignoresEmptyLineBetweenKeepAliveRequestsWhenItsCrAndLfArriveSeparately(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            // The CR rides with the first request; reading its response proves the server has consumed that read.
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nab\r");
            assertThat(client.read().body()).isEqualTo("body=ab");
            client.send("\n" + RawClient.get("/echo?i=2"));
            RawClient.RawResponse second = client.read();
            assertThat(second.status()).as("second response: %s", second.body()).isEqualTo(200);
            assertThat(second.body()).isEqualTo("i=2");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesIdleKeepAliveConnectionCleanlyAfterIdleTimeout(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.idleTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.send(RawClient.get("/echo?i=1"));
            RawClient.RawResponse response = client.read();
            assertThat(response.body()).isEqualTo("i=1");
            assertThat(response.header("Connection")).isNull();
            client.timeout(3_000);
            long start = System.nanoTime();
            assertThat(client.closedByServer()).as("EOF (not RST, not a response) after the idle timeout").isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void doesNotTimeOutWhileAHandlerIsSlowerThanTheIdleAndHeadTimeouts(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.idleTimeout(Duration.ofMillis(200)).headReadTimeout(Duration.ofMillis(200)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            client.send(RawClient.get("/slow") + RawClient.get("/echo?i=2"));
            RawClient.RawResponse slow = client.read();
            assertThat(slow.status()).isEqualTo(200);
            assertThat(slow.body()).isEqualTo("slow");
            assertThat(slow.header("Connection")).isNull();
            assertThat(client.read().body()).isEqualTo("i=2");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesConnectionThatNeverSendsARequestAfterIdleTimeout(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.idleTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            assertThat(client.closedByServer()).isTrue();
        }
    }

    /** A client that stops reading a response stalls the write; past the write-stall timeout the server gives up. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesConnectionWhoseClientStopsReadingTheResponseAfterWriteStallTimeout(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.writeStallTimeout(Duration.ofMillis(300))
                .lingerDrain(Duration.ofMillis(100)));
             RawClient client = server.raw()) {
            client.send(RawClient.get("/huge")); // 32 MiB that the client never reads: far more than the socket buffers hold
            long accepted = System.nanoTime() + 1_000_000_000L;
            while (server.server().openConnections() == 0 && System.nanoTime() - accepted < 0) Thread.sleep(1);
            assertThat(server.server().openConnections()).as("connection accepted").isEqualTo(1);
            long deadline = System.nanoTime() + 1_500_000_000L;
            while (server.server().openConnections() > 0 && System.nanoTime() - deadline < 0) Thread.sleep(10);
            assertThat(server.server().openConnections()).as("stalled connection closed").isZero();
        }
    }

    /** Empty lines are not a request: a connection that only trickles CRLFs is idle and must still be closed. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesConnectionThatOnlyTricklesEmptyLinesAfterIdleTimeout(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.idleTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.send(RawClient.get("/echo?i=1"));
            assertThat(client.read().body()).isEqualTo("i=1");
            client.timeout(50);
            boolean closed = false;
            for (int i = 0; i < 20 && !closed; i++) { // up to 1 s of "\r\n" every 50 ms: over three idle timeouts
                client.send("\r\n");
                closed = client.closedByServer(); // waits up to 50 ms for the EOF
            }
            assertThat(closed).as("closed as idle despite the empty lines").isTrue();
        }
    }

    /** The idle timeout counts from the end of the last exchange, not from when the connection opened. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void idleTimeoutRestartsAfterEveryRequestWithDefaultExecution(Wire wire) throws Exception {
        assertBusyConnectionIsNotClosedAsIdle(wire, "/echo", "i=");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void idleTimeoutRestartsAfterEveryRequestWithEventLoopExecution(Wire wire) throws Exception {
        assertBusyConnectionIsNotClosedAsIdle(wire, "/loop", "loop i=");
    }

    private static void assertBusyConnectionIsNotClosedAsIdle(Wire wire, String path, String prefix) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.idleTimeout(Duration.ofMillis(500)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            // One request every ~100 ms for ~1.2 s: never idle for anywhere near 500 ms.
            for (int i = 0; i < 12; i++) {
                client.send(RawClient.get(path + "?i=" + i));
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).as("request %d", i).isEqualTo(200);
                assertThat(response.body()).isEqualTo(prefix + i);
                Thread.sleep(100);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void jdkHttpClientReusesOneConnectionFor50SequentialRequests(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router());
             HttpClient client = server.httpClientBuilder().version(HttpClient.Version.HTTP_1_1)
                     .connectTimeout(Duration.ofSeconds(5)).build()) {
            for (int i = 0; i < 50; i++) {
                HttpRequest request = i % 5 == 4
                        ? HttpRequest.newBuilder(server.uri("/echo")).POST(HttpRequest.BodyPublishers.ofString("p" + i)).build()
                        : HttpRequest.newBuilder(server.uri("/echo?i=" + i)).GET().build();
                HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
                assertThat(response.body()).isEqualTo(i % 5 == 4 ? "body=p" + i : "i=" + i);
                assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
            }
            assertThat(server.server().openConnections()).as("one pooled keep-alive connection").isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void jdkHttpClientWithDefaultVersionGetsHttp11Answers(Wire wire) throws Exception {
        // The default client offers h2: as an h2c upgrade on plain http, by ALPN over TLS. The server must
        // ignore either offer and answer HTTP/1.1.
        try (TestServer server = TestServer.start(wire, router()); HttpClient client = server.httpClientBuilder().build()) {
            for (int i = 0; i < 5; i++) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(server.uri("/echo?i=" + i)).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
                assertThat(response.body()).isEqualTo("i=" + i);
            }
        }
    }
}
