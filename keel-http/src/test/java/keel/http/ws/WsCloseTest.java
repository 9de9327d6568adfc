package keel.http.ws;

import keel.http.router.Router;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static keel.http.ws.FrameDecoder.CLOSE;
import static keel.http.ws.FrameDecoder.TEXT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The close handshake from either side, its timeout, the idle timeout, and lossless closes. */
class WsCloseTest {
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final AtomicReference<WsSession> session = new AtomicReference<>();
    private final CompletableFuture<WsSession> opened = new CompletableFuture<>();

    /** Answers "burst N" with N numbered messages, "close" by closing, anything else with itself. */
    private final WsListener listener = new WsListener() {
        @Override
        public void onOpen(WsSession s) {
            session.set(s);
            opened.complete(s);
        }

        @Override
        public void onText(WsSession s, String text) {
            if (text.startsWith("burst ")) {
                for (int i = 0; i < Integer.parseInt(text.substring(6)); i++) s.send("message " + i);
            } else if (text.equals("close")) {
                s.close(WsClose.NORMAL, "as you wish").whenComplete((ok, failure) -> events.add("close stage: " + (failure == null ? "done" : failure.getClass().getSimpleName())));
            } else {
                s.send(text);
            }
        }

        @Override
        public void onClose(WsSession s, int code, String reason) {
            events.add("onClose " + code + " " + reason);
            s.send("last words"); // sent before the answering Close when the peer started the close
        }
    };

    /** Listener callbacks run on virtual threads (the default execution): wait for them to have run. */
    private List<String> events(int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (events.size() < count && System.nanoTime() < deadline) Thread.sleep(5);
        return events;
    }

    private WsServer start(java.util.function.Consumer<keel.http.server.ServerOptions.Builder> options) {
        return WsServer.start(new Router().ws("/ws", listener), options);
    }

    private static byte[] close(int code, String reason) {
        return Frames.of().masked(true, CLOSE, Frames.close(code, reason.getBytes())).build();
    }

    @Test
    void aCloseStartedByTheServerCompletesWhenTheClientAnswers() throws Exception {
        try (WsServer server = start(o -> { }); RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            client.send(Frames.of().masked(true, TEXT, "close").build());
            RawWsClient.Frame close = client.readFrame();
            assertThat(close.opcode()).isEqualTo(CLOSE);
            assertThat(close.closeCode()).isEqualTo(WsClose.NORMAL);
            assertThat(close.text().substring(2)).isEqualTo("as you wish");
            assertThat(session.get().isOpen()).isFalse();
            client.send(close(WsClose.NORMAL, "ok"));
            assertThat(client.closedByServer(5_000)).as("FIN after the handshake").isTrue();
            assertThat(server.awaitOpenConnections(0)).isTrue();
            assertThat(events(2)).containsExactly("close stage: done", "onClose 1000 ok");
        }
    }

    @Test
    void aCloseStartedByTheClientIsAnsweredAfterWhatTheListenerSentInOnClose() throws Exception {
        try (WsServer server = start(o -> { }); RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            opened.get(5, TimeUnit.SECONDS);
            client.send(close(WsClose.GOING_AWAY, "leaving"));
            assertThat(client.readFrame().text()).isEqualTo("last words");
            RawWsClient.Frame answer = client.readFrame();
            assertThat(answer.opcode()).isEqualTo(CLOSE);
            assertThat(answer.closeCode()).isEqualTo(WsClose.GOING_AWAY);
            assertThat(client.closedByServer(5_000)).as("FIN after the answer").isTrue();
            assertThat(events(1)).containsExactly("onClose 1001 leaving");
            assertThat(session.get().close().toCompletableFuture().get(5, TimeUnit.SECONDS)).isNull();
        }
    }

    @Test
    void theJdkClientClosesInBothDirections() throws Exception {
        try (WsServer server = start(o -> { })) {
            JdkWsClient first = JdkWsClient.connect(server.uri("/ws"));
            first.socket.sendClose(WsClose.NORMAL, "bye").join();
            assertThat(first.awaitClose()).isEqualTo("close:1000:");
            assertThat(events(1)).containsExactly("onClose 1000 bye");

            events.clear();
            JdkWsClient second = JdkWsClient.connect(server.uri("/ws"));
            second.socket.sendText("close", true).join();
            assertThat(second.awaitClose()).isEqualTo("close:1000:as you wish");
            assertThat(server.awaitOpenConnections(0)).isTrue();
            assertThat(events(2)).containsExactly("close stage: done", "onClose 1000 ");
        }
    }

    @Test
    void noMessageIsLostWhenTheClientClosesRightAfterReceiving() throws Exception {
        try (WsServer server = start(o -> { })) {
            for (int round = 0; round < 30; round++) {
                try (RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
                    client.send(Frames.of().masked(true, TEXT, "burst 20").build());
                    assertThat(client.readFrame().text()).isEqualTo("message 0");
                    client.send(close(WsClose.NORMAL, ""));
                    for (int i = 1; i < 20; i++) assertThat(client.readFrame().text()).as("round %d", round).isEqualTo("message " + i);
                    assertThat(client.readFrame().text()).isEqualTo("last words");
                    assertThat(client.readFrame().opcode()).isEqualTo(CLOSE);
                    assertThat(client.closedByServer(5_000)).as("FIN, not a reset, in round %d", round).isTrue();
                }
            }
        }
    }

    @Test
    void noMessageIsLostWhenManyJdkClientsCloseRightAfterReceiving() throws Exception {
        try (WsServer server = start(o -> { })) {
            List<JdkWsClient> clients = new java.util.ArrayList<>();
            for (int i = 0; i < 20; i++) clients.add(JdkWsClient.connect(server.uri("/ws")));
            for (JdkWsClient client : clients) client.socket.sendText("burst 10", true);
            for (JdkWsClient client : clients) {
                assertThat(client.nextText()).isEqualTo("message 0");
                client.socket.sendClose(WsClose.NORMAL, "got it");
            }
            for (JdkWsClient client : clients) {
                for (int i = 1; i < 10; i++) assertThat(client.nextText()).isEqualTo("message " + i);
                assertThat(client.nextText()).isEqualTo("last words");
                assertThat(client.awaitClose()).isEqualTo("close:1000:");
            }
            assertThat(server.awaitOpenConnections(0)).isTrue();
        }
    }

    @Test
    void aCloseHandshakeThatTimesOutFailsTheStageAndStillEndsWithAFin() throws Exception {
        try (WsServer server = start(o -> o.wsCloseTimeout(Duration.ofMillis(300)));
             RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            WsSession s = opened.get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> stage = s.close(WsClose.NORMAL, "bye").toCompletableFuture();
            assertThat(client.readFrame().opcode()).isEqualTo(CLOSE);
            // The client never answers.
            assertThatThrownBy(() -> stage.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .cause().isInstanceOf(WsClosedException.class).hasMessageContaining("did not finish within 300 ms");
            assertThat(client.closedByServer(5_000)).isTrue();
            assertThat(events(1)).containsExactly("onClose 1006 the close handshake did not finish within 300 ms");
            assertThat(s.send("late").toCompletableFuture()).isCompletedExceptionally();
        }
    }

    @Test
    void anIdleSessionIsClosedWith1001() throws Exception {
        try (WsServer server = start(o -> o.wsIdleTimeout(Duration.ofMillis(300)).wsPingInterval(Duration.ZERO));
             RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            RawWsClient.Frame close = client.readFrame();
            assertThat(close.opcode()).isEqualTo(CLOSE);
            assertThat(close.closeCode()).isEqualTo(WsClose.GOING_AWAY);
            assertThat(close.text().substring(2)).isEqualTo("idle timeout");
        }
    }

    @Test
    void keepAlivePingsGoOutAtTheConfiguredInterval() throws Exception {
        try (WsServer server = start(o -> o.wsPingInterval(Duration.ofMillis(100)));
             RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            assertThat(client.readFrame().opcode()).isEqualTo(FrameDecoder.PING);
            assertThat(client.readFrame().opcode()).isEqualTo(FrameDecoder.PING);
        }
    }

    @Test
    void aPingIsAnsweredWithAPongCarryingItsPayload() throws Exception {
        try (WsServer server = start(o -> { }); RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            client.send(Frames.of().masked(true, FrameDecoder.PING, "are you there").build());
            RawWsClient.Frame pong = client.readFrame();
            assertThat(pong.opcode()).isEqualTo(FrameDecoder.PONG);
            assertThat(pong.text()).isEqualTo("are you there");
        }
    }

    @Test
    void aStoppingServerClosesSessionsWith1001() throws Exception {
        WsServer server = start(o -> o.grace(Duration.ofSeconds(5)));
        try (RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            opened.get(5, TimeUnit.SECONDS);
            Thread stopper = Thread.ofPlatform().start(server::close);
            RawWsClient.Frame close = client.readFrame();
            assertThat(close.closeCode()).isEqualTo(WsClose.GOING_AWAY);
            assertThat(close.text().substring(2)).isEqualTo("server stopping");
            client.send(close(WsClose.GOING_AWAY, ""));
            assertThat(client.closedByServer(5_000)).isTrue();
            stopper.join(10_000);
            assertThat(stopper.isAlive()).isFalse();
            assertThat(events(1)).containsExactly("onClose 1001 ");
        }
    }
}
