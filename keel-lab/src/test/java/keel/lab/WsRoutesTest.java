package keel.lab;

import keel.http.client.WebSocketClient;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.ws.WsListener;
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
    void percentilesAreNearestRank() {
        long[] millis = {1_000_000, 2_000_000, 3_000_000, 4_000_000};
        assertThat(WsCloseBench.percentile(millis, 50)).isEqualTo(2.0);
        assertThat(WsCloseBench.percentile(millis, 99)).isEqualTo(4.0);
        assertThat(WsCloseBench.percentile(new long[0], 50)).isNaN();
    }
}
