package keel.metrics;

import keel.http.router.Router;
import keel.http.ws.WsListener;
import keel.http.ws.WsSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A server's WebSocket sessions and messages, driven by the JDK's WebSocket client and read from /metrics. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class WebSocketMetricsTest {
    private static final String CLOSED = "keel_websocket_server_sessions_closed_total";

    /** Echoes text; answers binary with its size, in text. */
    private static Router echo() {
        return new Router().ws("/ws/echo", new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                session.send(text);
            }

            @Override
            public void onBinary(WsSession session, byte[] data) {
                session.send(data.length + " bytes");
            }
        });
    }

    /** Collects what the server answers, and the server's Close. */
    private static final class Echoes implements WebSocket.Listener {
        final BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        final CompletableFuture<Integer> closed = new CompletableFuture<>();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            messages.add(data.toString());
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(statusCode);
            return null;
        }

        String next() throws InterruptedException {
            String message = messages.poll(5, TimeUnit.SECONDS);
            if (message == null) throw new AssertionError("no echo within 5 s");
            return message;
        }
    }

    @Test
    void sessionsMessagesAndTheirBytesMoveAndClosesAreCountedByCodeClass() throws Exception {
        try (MetricsServer server = MetricsServer.start(echo()); HttpClient http = HttpClient.newHttpClient()) {
            URI uri = URI.create("ws://127.0.0.1:" + server.server().port() + "/ws/echo");
            PrometheusText before = server.scrape();
            assertThat(before.types()).containsEntry("keel_websocket_server_sessions_open", "gauge")
                    .containsEntry(CLOSED, "counter");
            for (String codeClass : WebSocketMetrics.CODE_CLASSES) assertThat(before.find(CLOSED, "code_class", codeClass)).as(codeClass).hasSize(1);

            Echoes echoes = new Echoes();
            WebSocket client = http.newWebSocketBuilder().buildAsync(uri, echoes).get(5, TimeUnit.SECONDS);
            String text = "héllo wörld ✓"; // 13 characters, 17 UTF-8 bytes
            client.sendText(text, true).get(5, TimeUnit.SECONDS);
            assertThat(echoes.next()).isEqualTo(text);
            client.sendBinary(ByteBuffer.wrap(new byte[100]), true).get(5, TimeUnit.SECONDS);
            assertThat(echoes.next()).isEqualTo("100 bytes");

            PrometheusText open = server.scrape();
            int textBytes = text.getBytes(StandardCharsets.UTF_8).length;
            assertThat(open.value("keel_websocket_server_sessions_open")).isEqualTo(1);
            assertThat(open.value("keel_websocket_server_sessions_opened_total")).isEqualTo(1);
            assertThat(open.value("keel_websocket_server_messages_received_total")).isEqualTo(2);
            assertThat(open.value("keel_websocket_server_bytes_received_total")).isEqualTo(textBytes + 100);
            assertThat(open.value("keel_websocket_server_messages_sent_total")).isEqualTo(2);
            assertThat(open.value("keel_websocket_server_bytes_sent_total")).isEqualTo(textBytes + "100 bytes".length());

            client.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
            assertThat(echoes.closed.get(5, TimeUnit.SECONDS)).isEqualTo(1000);
            WebSocket aborted = http.newWebSocketBuilder().buildAsync(uri, new Echoes()).get(5, TimeUnit.SECONDS);
            aborted.abort(); // no Close frame: 1006 on the server's side

            PrometheusText closed = server.scrapeUntil(t -> t.value("keel_websocket_server_sessions_open") == 0
                    && t.value(CLOSED, "code_class", "abnormal") == 1);
            assertThat(closed.value("keel_websocket_server_sessions_open")).isZero();
            assertThat(closed.value("keel_websocket_server_sessions_opened_total")).isEqualTo(2);
            assertThat(closed.value(CLOSED, "code_class", "normal")).isEqualTo(1);
            assertThat(closed.value(CLOSED, "code_class", "abnormal")).isEqualTo(1);
        }
    }

    @Test
    void closeCodesFallInTheirClasses() {
        assertThat(WebSocketMetrics.CODE_CLASSES.get(WebSocketMetrics.codeClass(1000))).isEqualTo("normal");
        assertThat(WebSocketMetrics.CODE_CLASSES.get(WebSocketMetrics.codeClass(1001))).isEqualTo("going_away");
        assertThat(WebSocketMetrics.CODE_CLASSES.get(WebSocketMetrics.codeClass(1009))).isEqualTo("protocol_error");
        assertThat(WebSocketMetrics.CODE_CLASSES.get(WebSocketMetrics.codeClass(1006))).isEqualTo("abnormal");
        assertThat(WebSocketMetrics.CODE_CLASSES.get(WebSocketMetrics.codeClass(1013))).isEqualTo("server_error");
        assertThat(WebSocketMetrics.CODE_CLASSES.get(WebSocketMetrics.codeClass(4000))).isEqualTo("application");
        assertThat(WebSocketMetrics.CODE_CLASSES.get(WebSocketMetrics.codeClass(2000))).isEqualTo("other");
    }
}
