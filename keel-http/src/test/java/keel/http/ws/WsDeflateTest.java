package keel.http.ws;

import keel.http.Execution;
import keel.http.client.WebSocketClient;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static keel.http.ws.FrameDecoder.BINARY;
import static keel.http.ws.FrameDecoder.CLOSE;
import static keel.http.ws.FrameDecoder.CONTINUATION;
import static keel.http.ws.FrameDecoder.TEXT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * permessage-deflate through real sockets: exact frames from a raw client, Keel's client against
 * Keel's server at every fragment size, every execution, the inflation bound, and clients that do
 * not offer the extension.
 */
class WsDeflateTest {
    static final String OFFER = "Sec-WebSocket-Extensions: permessage-deflate\r\n";

    /** A JSON document of about {@code size} bytes, with some non-ASCII text. */
    static String json(int size) {
        StringBuilder json = new StringBuilder("[");
        for (int i = 0; json.length() < size; i++) {
            json.append(i == 0 ? "" : ",").append("{\"id\":").append(i).append(",\"name\":\"capteur-").append(i % 7)
                    .append("\",\"unit\":\"°C\",\"value\":").append(20 + i % 5).append(".5,\"ok\":true}");
        }
        return json.append(']').toString();
    }

    private static Router echo(Execution execution) {
        Router router = new Router();
        router.with(execution).ws("/echo", WsEchoTest.ECHO);
        return router;
    }

    @ParameterizedTest
    @EnumSource(Execution.class)
    void aRawClientGetsCompressedFramesSmallerThanTheMessages(Execution execution) {
        try (WsServer server = WsServer.start(echo(execution));
             RawWsClient client = RawWsClient.connect(server.port())) {
            String head = client.send(RawWsClient.handshake("/echo", OFFER)).readHead();
            assertThat(head).startsWith("HTTP/1.1 101 ").contains("\r\nSec-WebSocket-Extensions: permessage-deflate\r\n");
            byte[] document = json(4000).getBytes(StandardCharsets.UTF_8);
            // A compressed message in: the echo comes back compressed, a fraction of its size on the wire.
            client.send(Frames.of().raw(0x80 | 0x40 | TEXT, true, Frames.deflate(document)).build());
            RawWsClient.Frame frame = client.readFrame();
            assertThat(frame.rsv1()).isTrue();
            assertThat(frame.opcode()).isEqualTo(TEXT);
            assertThat(frame.payload().length).isLessThan(document.length / 4);
            assertThat(Frames.inflate(frame.payload())).isEqualTo(document);
            // The peer may send a message uncompressed; a short one comes back uncompressed too.
            client.send(Frames.of().masked(true, BINARY, document).masked(true, TEXT, "short").build());
            RawWsClient.Frame second = client.readFrame();
            assertThat(second.rsv1()).isTrue();
            assertThat(second.payload().length).as("context takeover: the second copy costs less").isLessThan(frame.payload().length / 4);
            RawWsClient.Frame shortEcho = client.readFrame();
            assertThat(shortEcho.rsv1()).isFalse();
            assertThat(shortEcho.text()).isEqualTo("short");
            client.send(Frames.of().masked(true, CLOSE, Frames.close(WsClose.NORMAL, new byte[0])).build());
            assertThat(client.readUntilClose().closeCode()).isEqualTo(WsClose.NORMAL);
        }
    }

    /**
     * Keel's client sends a message in fragments of every size from 1 byte to the whole message, and
     * the server echoes it in fragments of the same size, with and without context takeover.
     */
    @ParameterizedTest
    @CsvSource({"true, true, permessage-deflate",
            "false, true, permessage-deflate; server_no_context_takeover; client_no_context_takeover",
            "true, false, permessage-deflate; server_no_context_takeover; client_no_context_takeover"})
    void keelsClientAndServerAgreeAtEveryFragmentSizeInBothDirections(boolean clientTakeover, boolean serverTakeover, String agreed)
            throws Exception {
        AtomicInteger fragmentSize = new AtomicInteger();
        WsListener fragmentingEcho = new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                int size = fragmentSize.get();
                for (int at = 0; at < text.length(); at += size) session.send(text.substring(at, Math.min(text.length(), at + size)), at + size >= text.length());
            }

            @Override
            public void onBinary(WsSession session, byte[] data) {
                int size = fragmentSize.get();
                for (int at = 0; at < data.length; at += size) session.send(Arrays.copyOfRange(data, at, Math.min(data.length, at + size)), at + size >= data.length);
            }
        };
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        try (WsServer server = WsServer.start(new Router().ws("/fragments", fragmentingEcho), options -> options.wsContextTakeover(serverTakeover));
             WebSocketClient client = WebSocketClient.create(WsOptions.defaults().withContextTakeover(clientTakeover), 1)) {
            WsSession session = client.connect(server.uri("/fragments"), collecting(received)).get(10, TimeUnit.SECONDS);
            assertThat(session.extensions()).isEqualTo(agreed);
            String text = json(300);
            byte[] data = text.getBytes(StandardCharsets.UTF_8);
            for (int size = 1; size <= data.length; size++) {
                fragmentSize.set(size);
                for (int at = 0; at < text.length(); at += size) session.send(text.substring(at, Math.min(text.length(), at + size)), at + size >= text.length());
                assertThat(received.poll(10, TimeUnit.SECONDS)).as("text in fragments of %d", size).isEqualTo(text);
                for (int at = 0; at < data.length; at += size) session.send(Arrays.copyOfRange(data, at, Math.min(data.length, at + size)), at + size >= data.length);
                assertThat(received.poll(10, TimeUnit.SECONDS)).as("binary in fragments of %d", size).isEqualTo(data);
            }
            session.close().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    @ParameterizedTest
    @EnumSource(Execution.class)
    void keelsClientAndServerCompressUnderEveryExecution(Execution execution) throws Exception {
        BlockingQueue<Object> received = new LinkedBlockingQueue<>();
        try (WsServer server = WsServer.start(echo(execution));
             WebSocketClient client = WebSocketClient.create()) {
            WsSession session = client.connect(server.uri("/echo"), collecting(received)).get(10, TimeUnit.SECONDS);
            assertThat(session.extensions()).isEqualTo("permessage-deflate");
            for (int size : new int[]{0, 10, 63, 64, 65, 1000, 10_000, 200_000}) {
                String text = json(size).substring(0, size);
                session.send(text);
                session.send(text.getBytes(StandardCharsets.UTF_8));
                assertThat(received.poll(10, TimeUnit.SECONDS)).as("text of %d", size).isEqualTo(text);
                assertThat(received.poll(10, TimeUnit.SECONDS)).as("binary of %d", size).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
            }
            session.close().toCompletableFuture().get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void theServerCompressesAtItsLevel() {
        byte[] document = json(4000).getBytes(StandardCharsets.UTF_8);
        int[] sizes = new int[2];
        int[] levels = {1, 9};
        for (int i = 0; i < 2; i++) {
            int level = levels[i];
            try (WsServer server = WsServer.start(echo(Execution.EVENT_LOOP), options -> options.wsCompressionLevel(level));
                 RawWsClient client = RawWsClient.connect(server.port())) {
                client.send(RawWsClient.handshake("/echo", OFFER)).readHead();
                client.send(Frames.of().masked(true, TEXT, document).build());
                byte[] payload = client.readFrame().payload();
                assertThat(Frames.inflate(payload)).isEqualTo(document);
                sizes[i] = payload.length;
            }
        }
        assertThat(sizes[0]).as("level 1 against level 9").isGreaterThan(sizes[1]);
    }

    @Test
    void aMessageInflatingPastTheLimitCloses1009AndTheServerGoesOn() throws Exception {
        BlockingQueue<String> closes = new LinkedBlockingQueue<>();
        WsListener recording = new WsListener() {
            @Override
            public void onBinary(WsSession session, byte[] data) {
                session.send(data);
            }

            @Override
            public void onClose(WsSession session, int code, String reason) {
                closes.add(code + ":" + reason);
            }
        };
        try (WsServer server = WsServer.start(new Router().ws("/ws", recording), options -> options.wsMaxMessageSize(64 * 1024))) {
            try (RawWsClient client = RawWsClient.connect(server.port())) {
                assertThat(client.send(RawWsClient.handshake("/ws", OFFER)).readHead()).contains("permessage-deflate");
                byte[] bomb = Frames.deflate(new byte[8 << 20]); // 8 MiB of zeros in about 36 KiB: under the limit as sent
                client.send(Frames.of().raw(0x80 | 0x40 | BINARY, true, bomb).build());
                RawWsClient.Frame close = client.readUntilClose();
                assertThat(close.closeCode()).isEqualTo(WsClose.TOO_BIG);
                assertThat(close.text().substring(2)).isEqualTo("message exceeds 65536 bytes when inflated");
                assertThat(client.closedByServer(5_000)).as("FIN after the Close frame").isTrue();
            }
            assertThat(closes.poll(5, TimeUnit.SECONDS)).isEqualTo("1009:message exceeds 65536 bytes when inflated");
            try (RawWsClient client = RawWsClient.connect(server.port())) {
                client.send(RawWsClient.handshake("/ws", OFFER)).readHead();
                client.send(Frames.of().raw(0x80 | 0x40 | BINARY, true, Frames.deflate(new byte[64 * 1024])).build());
                assertThat(Frames.inflate(client.readFrame().payload())).as("a message at the limit").hasSize(64 * 1024);
            }
        }
    }

    @Test
    void rsv1WithoutTheExtensionStillCloses1002() {
        byte[] compressed = Frames.of().raw(0x80 | 0x40 | TEXT, true, Frames.deflate(json(200).getBytes(StandardCharsets.UTF_8))).build();
        try (WsServer on = WsServer.start(echo(Execution.EVENT_LOOP));
             WsServer off = WsServer.start(echo(Execution.EVENT_LOOP), options -> options.wsCompression(false))) {
            for (String[] attempt : new String[][]{{"" + on.port(), ""}, {"" + off.port(), OFFER}}) {
                try (RawWsClient client = RawWsClient.connect(Integer.parseInt(attempt[0]))) {
                    String head = client.send(RawWsClient.handshake("/echo", attempt[1])).readHead();
                    assertThat(head).startsWith("HTTP/1.1 101 ").doesNotContainIgnoringCase("Sec-WebSocket-Extensions");
                    client.send(compressed);
                    RawWsClient.Frame close = client.readUntilClose();
                    assertThat(close.closeCode()).isEqualTo(WsClose.PROTOCOL_ERROR);
                    assertThat(close.text().substring(2)).isEqualTo("reserved bits set without a negotiated extension");
                }
            }
        }
    }

    @Test
    void theJdkClientOffersNothingAndGetsPlainFrames() throws Exception {
        try (WsServer server = WsServer.start(echo(Execution.VIRTUAL_THREAD))) {
            JdkWsClient client = JdkWsClient.connect(server.uri("/echo"));
            String document = json(100_000);
            client.socket.sendText(document, true).join();
            assertThat(client.nextText()).isEqualTo(document);
            client.socket.sendClose(WsClose.NORMAL, "done").join();
            assertThat(client.awaitClose()).isEqualTo("close:1000:");
        }
    }

    private static WsListener collecting(BlockingQueue<Object> received) {
        return new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                received.add(text);
            }

            @Override
            public void onBinary(WsSession session, byte[] data) {
                received.add(data);
            }
        };
    }
}
