package keel.http.ws;

import keel.http.HttpStatusException;
import keel.http.router.Router;
import keel.http.server.Transport;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The opening handshake over a raw socket: the 101, and 400/403/426 with a reason for bad upgrades. */
class WsHandshakeTest {
    private static final WsListener NOTHING = new WsListener() {
    };

    private static Router router() {
        return new Router()
                .ws("/ws", NOTHING)
                .ws("/chat", WsEndpoint.of(NOTHING)
                        .originCheck(origin -> origin == null || origin.equals("https://good.example"))
                        .subprotocols("chat.v2", "chat.v1"))
                .ws("/teapot", WsEndpoint.of(NOTHING).originCheck(origin -> {
                    throw new HttpStatusException(418, "no origins here");
                }))
                .ws("/rooms/{room}", new WsListener() {
                    @Override
                    public void onOpen(WsSession session) {
                        session.send("welcome to " + session.request().pathParam("room") + " as "
                                + session.request().queryParam("nick").orElse("?"));
                    }
                });
    }

    /** Sends {@code request} and returns the response head and body. */
    private static String exchange(WsServer server, String request) {
        try (RawWsClient client = RawWsClient.connect(server.port())) {
            client.send(request);
            String head = client.readHead();
            return head.startsWith("HTTP/1.1 101 ") ? head : head + client.readBody();
        }
    }

    @Test
    void answers101WithTheAcceptKeyOfRfc6455() {
        try (WsServer server = WsServer.start(router())) {
            String head = exchange(server, RawWsClient.handshake("/ws", ""));
            assertThat(head).startsWith("HTTP/1.1 101 Switching Protocols\r\n")
                    .contains("Upgrade: websocket\r\n", "Connection: Upgrade\r\n", "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n")
                    .doesNotContain("Sec-WebSocket-Protocol");
        }
    }

    @Test
    void theSessionSeesTheHandshakeRequestWithItsPathParameters() {
        try (WsServer server = WsServer.start(router()); RawWsClient client = RawWsClient.open(server.port(), "/rooms/blue%20lagoon?nick=ada")) {
            assertThat(client.readFrame().text()).isEqualTo("welcome to blue lagoon as ada");
        }
    }

    @Test
    void theSessionsHandshakeRequestCarriesTheConnectionsEnds() throws java.io.IOException {
        Router router = new Router().ws("/whoami", new WsListener() {
            @Override
            public void onOpen(WsSession session) {
                var request = session.request();
                session.send(request.remoteAddress().getPort() + " " + request.localAddress().getPort());
            }
        });
        try (WsServer server = WsServer.start(router); var socket = new java.net.Socket("127.0.0.1", server.port());
             RawWsClient client = RawWsClient.wrap(socket)) {
            client.send(RawWsClient.handshake("/whoami", ""));
            assertThat(client.readHead()).startsWith("HTTP/1.1 101 ");
            assertThat(client.readFrame().text()).isEqualTo(socket.getLocalPort() + " " + server.port());
        }
    }

    @Test
    void framesSentRightBehindTheUpgradeRequestAreNotLost() {
        Router router = new Router().ws("/echo", WsEchoTest.ECHO);
        try (WsServer server = WsServer.start(router); RawWsClient client = RawWsClient.connect(server.port())) {
            byte[] request = RawWsClient.handshake("/echo", "").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
            byte[] frames = Frames.of().masked(true, FrameDecoder.TEXT, "first").masked(true, FrameDecoder.TEXT, "second").build();
            byte[] together = java.util.Arrays.copyOf(request, request.length + frames.length);
            System.arraycopy(frames, 0, together, request.length, frames.length);
            client.send(together); // one write: the server reads the head and the frames at once
            assertThat(client.readHead()).startsWith("HTTP/1.1 101 ");
            assertThat(client.readFrame().text()).isEqualTo("first");
            assertThat(client.readFrame().text()).isEqualTo("second");
        }
    }

    @Test
    void aPlainGetGets426NamingTheUpgrade() {
        try (WsServer server = WsServer.start(router())) {
            String response = exchange(server, "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(response).startsWith("HTTP/1.1 426 ").contains("Upgrade: websocket\r\n", "Sec-WebSocket-Version: 13\r\n")
                    .endsWith("this resource speaks WebSocket only: send an upgrade request (Upgrade: websocket)\n");
        }
    }

    @Test
    void aWrongVersionGets426WithTheVersionSpoken() {
        try (WsServer server = WsServer.start(router())) {
            String request = RawWsClient.handshake("/ws", "").replace("Sec-WebSocket-Version: 13", "Sec-WebSocket-Version: 8");
            assertThat(exchange(server, request)).startsWith("HTTP/1.1 426 ").contains("Sec-WebSocket-Version: 13\r\n")
                    .endsWith("unsupported Sec-WebSocket-Version '8'; this server speaks 13\n");
        }
    }

    @Test
    void badUpgradeRequestsGet400WithAReason() {
        try (WsServer server = WsServer.start(router())) {
            String good = RawWsClient.handshake("/ws", "");
            assertThat(exchange(server, good.replace("Sec-WebSocket-Key: " + RawWsClient.KEY + "\r\n", "")))
                    .startsWith("HTTP/1.1 400 ").endsWith("Sec-WebSocket-Key must be 16 bytes in base64\n");
            assertThat(exchange(server, good.replace(RawWsClient.KEY, "c2hvcnQ=")))
                    .startsWith("HTTP/1.1 400 ").endsWith("Sec-WebSocket-Key must be 16 bytes in base64\n");
            assertThat(exchange(server, good.replace("Connection: Upgrade", "Connection: keep-alive")))
                    .startsWith("HTTP/1.1 400 ").endsWith("the Connection header must contain 'Upgrade'\n");
            assertThat(exchange(server, good.replace("HTTP/1.1", "HTTP/1.0")))
                    .startsWith("HTTP/1.1 400 ").endsWith("a WebSocket handshake needs HTTP/1.1\n");
            assertThat(exchange(server, good.replace("GET", "POST"))).startsWith("HTTP/1.1 405 ").contains("Allow: GET, HEAD");
        }
    }

    @Test
    void theOriginHookRefusesWith403OrItsOwnStatus() {
        try (WsServer server = WsServer.start(router())) {
            assertThat(exchange(server, RawWsClient.handshake("/chat", "Origin: https://evil.example\r\n")))
                    .startsWith("HTTP/1.1 403 ").endsWith("origin not allowed\n");
            assertThat(exchange(server, RawWsClient.handshake("/chat", "Origin: https://good.example\r\n"))).startsWith("HTTP/1.1 101 ");
            assertThat(exchange(server, RawWsClient.handshake("/teapot", ""))).startsWith("HTTP/1.1 418 ").endsWith("no origins here\n");
        }
    }

    @Test
    void theSubprotocolIsTheFirstOfferedThatTheEndpointSpeaks() {
        try (WsServer server = WsServer.start(router())) {
            assertThat(exchange(server, RawWsClient.handshake("/chat", "Sec-WebSocket-Protocol: chat.v3, chat.v1\r\nSec-WebSocket-Protocol: chat.v2\r\n")))
                    .contains("Sec-WebSocket-Protocol: chat.v1\r\n");
            assertThat(exchange(server, RawWsClient.handshake("/chat", "Sec-WebSocket-Protocol: mqtt\r\n")))
                    .startsWith("HTTP/1.1 101 ").doesNotContain("Sec-WebSocket-Protocol");
        }
    }

    @Test
    void theBlockingTransportAnswers501() {
        try (WsServer server = WsServer.start(router(), options -> options.transport(Transport.BLOCKING))) {
            assertThat(exchange(server, RawWsClient.handshake("/ws", "")))
                    .startsWith("HTTP/1.1 501 ").endsWith("WebSocket routes need the nio transport (server.transport: nio)\n");
        }
    }
}
