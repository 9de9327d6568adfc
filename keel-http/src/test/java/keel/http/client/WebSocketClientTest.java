package keel.http.client;

import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.ws.WsClose;
import keel.http.ws.WsEndpoint;
import keel.http.ws.WsHandshake;
import keel.http.ws.WsListener;
import keel.http.ws.WsSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Keel's WebSocket client against Keel's server, and its masking against a raw socket. */
class WebSocketClientTest {
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    private final CompletableFuture<String> closed = new CompletableFuture<>();
    private final WsListener recording = new WsListener() {
        @Override
        public void onText(WsSession session, String text) {
            received.add(text);
        }

        @Override
        public void onBinary(WsSession session, byte[] data) {
            received.add("binary " + data.length + " " + java.util.Arrays.hashCode(data));
        }

        @Override
        public void onPong(WsSession session, byte[] data) {
            received.add("pong " + new String(data, StandardCharsets.UTF_8));
        }

        @Override
        public void onClose(WsSession session, int code, String reason) {
            closed.complete(code + " " + reason);
        }
    };
    private HttpServer server;
    private WebSocketClient client;

    @BeforeEach
    void start() throws IOException {
        WsListener echo = new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                if (text.equals("close please")) session.close(WsClose.NORMAL, "closing as asked");
                else session.send(text + " (" + session.subprotocol() + ")");
            }

            @Override
            public void onBinary(WsSession session, byte[] data) {
                session.send(data);
            }
        };
        Router router = new Router().ws("/echo", WsEndpoint.of(echo).subprotocols("v2", "v1"));
        server = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).loops(1).build(), router);
        client = WebSocketClient.create();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private URI uri(String path) {
        return URI.create("ws://127.0.0.1:" + server.port() + path);
    }

    private String next() throws InterruptedException {
        String message = received.poll(10, TimeUnit.SECONDS);
        if (message == null) throw new AssertionError("no message within 10 s");
        return message;
    }

    @Test
    void exchangesTextBinaryAndPingsWithKeelsServer() throws Exception {
        WsSession session = client.connect(uri("/echo"), recording, java.util.List.of("v3", "v1")).get(10, TimeUnit.SECONDS);
        assertThat(session.subprotocol()).isEqualTo("v1");
        session.send("hello").toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(next()).isEqualTo("hello (v1)");
        byte[] large = new byte[200_000];
        new Random(3).nextBytes(large);
        session.send(large);
        assertThat(next()).isEqualTo("binary 200000 " + java.util.Arrays.hashCode(large));
        session.ping("p".getBytes());
        assertThat(next()).isEqualTo("pong p");
        session.close(WsClose.NORMAL, "bye").toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertThat(closed.get(5, TimeUnit.SECONDS)).isEqualTo("1000 ");
    }

    @Test
    void answersACloseStartedByTheServer() throws Exception {
        WsSession session = client.connect(uri("/echo"), recording).get(10, TimeUnit.SECONDS);
        session.send("close please");
        assertThat(closed.get(5, TimeUnit.SECONDS)).isEqualTo("1000 closing as asked");
        assertThat(session.close().toCompletableFuture().get(5, TimeUnit.SECONDS)).isNull();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.openConnections() > 0 && System.nanoTime() < deadline) Thread.sleep(5);
        assertThat(server.openConnections()).isZero();
    }

    @Test
    void aRefusedHandshakeFailsTheConnectWithTheStatus() {
        assertThatThrownBy(() -> client.connect(uri("/nowhere"), recording).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(IOException.class)
                .hasMessageContaining("refused").hasMessageContaining("404");
    }

    @Test
    void masksEveryFrameWithItsOwnKeyAndReadsFramesSentWithThe101() throws Exception {
        try (ServerSocket fake = new ServerSocket(0)) {
            CompletableFuture<WsSession> connecting = client.connect(URI.create("ws://127.0.0.1:" + fake.getLocalPort() + "/raw"), recording);
            try (Socket socket = fake.accept()) {
                DataInputStream in = new DataInputStream(socket.getInputStream());
                String head = readHead(in);
                String key = head.lines().filter(l -> l.startsWith("Sec-WebSocket-Key: ")).findFirst().orElseThrow().substring(19);
                // The 101 and a first frame in one write: the frame must reach the listener.
                socket.getOutputStream().write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Accept: " + WsHandshake.acceptKey(key) + "\r\n\r\n\u0081\u0005hello").getBytes(StandardCharsets.ISO_8859_1));
                WsSession session = connecting.get(5, TimeUnit.SECONDS);
                assertThat(next()).isEqualTo("hello");
                session.send("same");
                session.send("same");
                byte[][] masks = new byte[2][];
                for (int i = 0; i < 2; i++) {
                    assertThat(in.readUnsignedByte()).isEqualTo(0x81);
                    int second = in.readUnsignedByte();
                    assertThat(second & 0x80).as("mask bit").isEqualTo(0x80);
                    assertThat(second & 0x7F).isEqualTo(4);
                    masks[i] = in.readNBytes(4);
                    byte[] payload = in.readNBytes(4);
                    for (int j = 0; j < 4; j++) payload[j] ^= masks[i][j];
                    assertThat(new String(payload, StandardCharsets.UTF_8)).isEqualTo("same");
                }
                assertThat(masks[0]).isNotEqualTo(masks[1]);
            }
        }
    }

    private static String readHead(DataInputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.readUnsignedByte());
        return head.toString();
    }
}
