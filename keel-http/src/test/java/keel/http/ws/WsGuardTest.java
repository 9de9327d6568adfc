package keel.http.ws;

import keel.http.Execution;
import keel.http.router.Router;
import keel.http.server.RouteInfo;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** WebSocket routes under the loop guard and the route limit, like HTTP routes. */
class WsGuardTest {
    /** Blocks its thread (wrongly, on the loop) and answers where it ran. */
    private static final WsListener BLOCKING = new WsListener() {
        @Override
        public void onText(WsSession session, String text) {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            session.send(Thread.currentThread().isVirtual() ? "virtual" : "platform");
        }
    };

    @Test
    void aListenerBlockingTheLoopIsCaughtAndItsRouteOffloadedForNewSessions() throws Exception {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).ws("/ws", BLOCKING);
        try (WsServer server = WsServer.start(router, options -> options.loops(1).blockedThreshold(Duration.ofMillis(50))
                .lagProbeInterval(Duration.ofMillis(10)).onBlocked(ServerOptions.OnBlocked.OFFLOAD))) {
            JdkWsClient first = JdkWsClient.connect(server.uri("/ws"));
            first.socket.sendText("go", true).join();
            assertThat(first.nextText()).isEqualTo("platform");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!route(server).offloaded() && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(route(server).offloaded()).isTrue();
            assertThat(server.server().blockedLoopEvents()).isGreaterThanOrEqualTo(1);

            JdkWsClient second = JdkWsClient.connect(server.uri("/ws"));
            second.socket.sendText("go", true).join();
            assertThat(second.nextText()).isEqualTo("virtual");
        }
    }

    @Test
    void aRouteLimitBoundsOpenSessions() throws Exception {
        Router router = new Router();
        router.limit(1).ws("/ws", new WsListener() {
        });
        try (WsServer server = WsServer.start(router)) {
            RawWsClient first = RawWsClient.open(server.port(), "/ws");
            try (RawWsClient second = RawWsClient.connect(server.port())) {
                second.send(RawWsClient.handshake("/ws", ""));
                assertThat(second.readHead()).startsWith("HTTP/1.1 503 ").contains("Retry-After: 1");
                assertThat(second.readBody()).isEqualTo("route concurrency limit reached (1)\n");
            }
            first.send(Frames.of().masked(true, FrameDecoder.CLOSE, Frames.close(WsClose.NORMAL, new byte[0])).build());
            assertThat(first.readUntilClose().closeCode()).isEqualTo(WsClose.NORMAL);
            assertThat(first.closedByServer(5_000)).isTrue();
            first.close();
            assertThat(server.awaitOpenConnections(0)).isTrue();
            RawWsClient.open(server.port(), "/ws").close(); // the permit came back with the closed session
        }
    }

    private static RouteInfo route(WsServer server) {
        return server.server().routes().stream().filter(r -> r.path().equals("/ws")).findFirst().orElseThrow();
    }
}
