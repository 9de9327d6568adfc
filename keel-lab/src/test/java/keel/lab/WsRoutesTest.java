package keel.lab;

import keel.http.client.WebSocketClient;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.ws.WsListener;
import keel.http.ws.WsOptions;
import keel.http.ws.WsSession;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The lab's WebSocket endpoints, and the bench driver's report on a short run. */
class WsRoutesTest {
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    private final WsListener recording = new WsListener() {
        @Override
        public void onText(WsSession session, String text) {
            received.add(text);
        }
    };

    private String next() throws InterruptedException {
        String message = received.poll(10, TimeUnit.SECONDS);
        if (message == null) throw new AssertionError("no message within 10 s");
        return message;
    }

    private static HttpServer start() throws Exception {
        return HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).loops(2).build(), WsRoutes.register(new Router()));
    }

    @Test
    void echoAndFibonacciAnswerAndABadNumberGetsAnErrorMessage() throws Exception {
        try (HttpServer server = start(); WebSocketClient client = WebSocketClient.create()) {
            String base = "ws://127.0.0.1:" + server.port();
            WsSession echo = client.connect(URI.create(base + "/ws/echo"), recording).get(10, TimeUnit.SECONDS);
            echo.send("hi there");
            assertThat(next()).isEqualTo("hi there");
            WsSession fib = client.connect(URI.create(base + "/ws/fib"), recording).get(10, TimeUnit.SECONDS);
            for (String n : List.of("0", "10", "92", "93", "ten")) fib.send(n);
            assertThat(List.of(next(), next(), next(), next(), next())).containsExactly("0=0", "10=55", "92=7540113804746346429",
                    "error: expected an integer n in 0..92, got '93'", "error: expected an integer n in 0..92, got 'ten'");
            assertThat(fib.isOpen()).isTrue();
            fib.close().toCompletableFuture().get(5, TimeUnit.SECONDS);
            echo.close().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theBenchDriverReportsNoLossOnAShortRunInBothModes() throws Exception {
        try (HttpServer server = start(); WebSocketClient client = WebSocketClient.create()) {
            URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/ws/fib");
            for (boolean sync : new boolean[]{true, false}) {
                List<WsCloseBench.Outcome> outcomes = WsCloseBench.run(client, uri, 40, 8, sync);
                assertThat(outcomes).hasSize(40).allMatch(WsCloseBench.Outcome::answered).allMatch(WsCloseBench.Outcome::cleanClose);
                assertThat(WsCloseBench.report(sync ? "sync" : "async", outcomes, 1_000_000_000))
                        .startsWith("mode=" + (sync ? "sync" : "async") + " clients=40 lost=0 abnormal_closes=0 answer_p50_ms=");
            }
        }
    }

    @Test
    void theCompressBenchDriverCountsFewerBytesOnTheWireWithDeflate() throws Exception {
        try (HttpServer server = start()) {
            URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/ws/echo");
            List<String> documents = WsCompressBench.documents(4096, 16);
            assertThat(documents).allSatisfy(d -> assertThat(d.length()).isBetween(3900, 4200)).doesNotHaveDuplicates();
            // 256 messages: each of the 4 sessions sends every document 4 times.
            WsOptions on = WsOptions.defaults();
            WsCompressBench.Result off = WsCompressBench.run(uri, documents, 10, 256, on.withCompression(false), ProcessHandle.current().pid(), 100);
            WsCompressBench.Result deflate = WsCompressBench.run(uri, documents, 10, 256, on, 0, 100);
            assertThat(off.extensions()).isEmpty();
            assertThat(deflate.extensions()).isEqualTo("permessage-deflate");
            assertThat(off.errors() + deflate.errors()).isZero();
            // Uncompressed, each document in a frame: a 4-byte header from the server, 8 with the mask from the client.
            long documentBytes = 16L * documents.stream().mapToInt(String::length).sum();
            assertThat(off.downstreamBytes()).isEqualTo(documentBytes + 256 * 4);
            assertThat(off.upstreamBytes()).isEqualTo(documentBytes + 256 * 8);
            assertThat(deflate.downstreamBytes()).isLessThan(off.downstreamBytes() / 2);
            assertThat(deflate.upstreamBytes()).isLessThan(off.upstreamBytes() / 2);
            assertThat(WsCompressBench.report(off)).startsWith("mode=off extensions=none doc_bytes=").contains(" messages=256 errors=0 ")
                    .doesNotContain("server_cpu_us_per_msg=-1");
            assertThat(WsCompressBench.report(deflate)).startsWith("mode=deflate extensions=permessage-deflate ")
                    .contains("server_cpu_us_per_msg=-1.0");
        }
    }

    @Test
    void percentilesAreNearestRank() {
        long[] millis = {1_000_000, 2_000_000, 3_000_000, 4_000_000};
        assertThat(WsCloseBench.percentile(millis, 50)).isEqualTo(2.0);
        assertThat(WsCloseBench.percentile(millis, 99)).isEqualTo(4.0);
        assertThat(WsCloseBench.percentile(new long[0], 50)).isNaN();
    }
}
