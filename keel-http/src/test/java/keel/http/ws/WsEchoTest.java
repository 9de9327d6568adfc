package keel.http.ws;

import keel.http.Execution;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Echo through the JDK client under every execution: text, binary, large and fragmented messages. */
class WsEchoTest {
    static final WsListener ECHO = new WsListener() {
        @Override
        public void onText(WsSession session, String text) {
            session.send(text);
        }

        @Override
        public void onBinary(WsSession session, byte[] data) {
            session.send(data);
        }
    };

    private static WsServer echoServer(Execution execution) {
        Router router = new Router();
        router.with(execution).ws("/echo", ECHO);
        return WsServer.start(router);
    }

    @ParameterizedTest
    @EnumSource(Execution.class)
    void echoesTextAndBinary(Execution execution) throws Exception {
        try (WsServer server = echoServer(execution)) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/echo"));
            client.socket.sendText("hello ✓", true).join();
            assertThat(client.nextText()).isEqualTo("hello ✓");
            client.socket.sendBinary(ByteBuffer.wrap(new byte[]{0, 1, 2, (byte) 255}), true).join();
            assertThat((byte[]) client.next()).containsExactly(0, 1, 2, 255);
            client.socket.sendText("", true).join();
            assertThat(client.nextText()).isEmpty();
            client.socket.sendClose(WsClose.NORMAL, "done").join();
            assertThat(client.awaitClose()).isEqualTo("close:1000:");
        }
    }

    @ParameterizedTest
    @EnumSource(Execution.class)
    void echoesMessagesOf64KiBAndMore(Execution execution) throws Exception {
        try (WsServer server = echoServer(execution)) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/echo"));
            String text = "0123456789abcdé".repeat(10_000); // 160 000 bytes of UTF-8
            client.socket.sendText(text, true).join();
            assertThat(client.nextText()).isEqualTo(text);
            byte[] data = new byte[300_000];
            new Random(7).nextBytes(data);
            client.socket.sendBinary(ByteBuffer.wrap(data), true).join();
            assertThat((byte[]) client.next()).isEqualTo(data);
        }
    }

    @ParameterizedTest
    @EnumSource(Execution.class)
    void reassemblesFragmentsWithPingsBetweenThem(Execution execution) throws Exception {
        try (WsServer server = echoServer(execution)) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/echo"));
            client.socket.sendText("frag", false).join();
            client.socket.sendPing(ByteBuffer.wrap("p1".getBytes())).join();
            client.socket.sendText("men", false).join();
            client.socket.sendPing(ByteBuffer.wrap("p2".getBytes())).join();
            client.socket.sendText("ted", true).join();
            assertThat(client.next()).isEqualTo("pong:p1");
            assertThat(client.next()).isEqualTo("pong:p2");
            assertThat(client.next()).isEqualTo("fragmented");
        }
    }
}
