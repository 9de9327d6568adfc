package keel.lab;

import keel.http.Execution;
import keel.http.client.WebSocketClient;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.ws.WsEndpoint;
import keel.http.ws.WsListener;
import keel.http.ws.WsSession;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps the WebSocket example of docs/websocket.md true: it runs as printed (with port 0 and a queue for the printing). */
class WsReadmeExampleTest {
    private static final Path PAGE = Path.of("..", "docs", "websocket.md");

    @Test
    void theWebSocketExampleInTheDocsIsTheOneThisTestRuns() throws Exception {
        String page = Files.readString(PAGE);
        String source = Files.readString(Path.of("src/test/java/keel/lab/WsReadmeExampleTest.java"));
        int start = page.indexOf("```java\nWsListener chat");
        assertThat(start).as("the WebSocket example in docs/websocket.md").isPositive();
        String example = page.substring(start + 8, page.indexOf("```", start + 8));
        for (String line : example.lines().toList()) {
            String code = line.strip();
            if (code.isEmpty() || code.equals("}") || code.contains("localhost:8080") || code.startsWith("System.out")) continue;
            assertThat(source).as("docs/websocket.md line missing from the tested example").contains(code);
        }
    }

    @Test
    void theWebSocketExampleRuns() throws Exception {
        BlockingQueue<String> printed = new LinkedBlockingQueue<>();
        Router router = new Router();
        WsListener chat = new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                session.send("echo: " + text);                   // queued in call order, from any thread
            }
        };
        router.with(Execution.VIRTUAL_THREAD)                    // callbacks may block here
                .ws("/ws/chat", WsEndpoint.of(chat)
                        .originCheck(origin -> origin == null || origin.equals("https://example.com"))
                        .subprotocols("chat.v1"));

        try (HttpServer server = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).build(), router)) {
            URI uri = URI.create("ws://127.0.0.1:" + server.port() + "/ws/chat");
            try (WebSocketClient client = WebSocketClient.create()) {
                WsSession session = client.connect(uri, new WsListener() {
                    @Override
                    public void onText(WsSession s, String text) {
                        printed.add(text);
                    }
                }).join();
                session.send("hello").toCompletableFuture().join();  // done when written to the socket
                assertThat(printed.poll(10, TimeUnit.SECONDS)).isEqualTo("echo: hello");
                session.close().toCompletableFuture().join();        // done when the close handshake ends
                assertThat(session.isOpen()).isFalse();
            }
        }
    }
}
