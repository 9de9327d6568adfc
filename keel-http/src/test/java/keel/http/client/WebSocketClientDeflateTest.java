package keel.http.client;

import keel.http.ws.WsHandshake;
import keel.http.ws.WsListener;
import keel.http.ws.WsOptions;
import keel.http.ws.WsSession;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.Inflater;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Keel's client negotiating permessage-deflate with a scripted server on a raw socket (RFC 7692 §7.1). */
class WebSocketClientDeflateTest {
    private final BlockingQueue<String> received = new LinkedBlockingQueue<>();
    private final WsListener recording = new WsListener() {
        @Override
        public void onText(WsSession session, String text) {
            received.add(text);
        }
    };

    /** A connect whose server reads the upgrade request and answers 101 with {@code extensionFields}, then {@code frames}. */
    private record Exchange(String request, CompletableFuture<WsSession> opened, Socket socket, DataInputStream in) {
    }

    private Exchange connect(WebSocketClient client, ServerSocket fake, String extensionFields, byte[] frames) throws IOException {
        CompletableFuture<WsSession> opened = client.connect(URI.create("ws://127.0.0.1:" + fake.getLocalPort() + "/raw"), recording);
        Socket socket = fake.accept();
        socket.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) head.append((char) in.readUnsignedByte());
        String key = head.toString().lines().filter(l -> l.startsWith("Sec-WebSocket-Key: ")).findFirst().orElseThrow().substring(19);
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        answer.writeBytes(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "
                + WsHandshake.acceptKey(key) + "\r\n" + extensionFields + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        answer.writeBytes(frames);
        socket.getOutputStream().write(answer.toByteArray());
        return new Exchange(head.toString(), opened, socket, in);
    }

    @Test
    void offersDeflateReadsCompressedFramesAndCompressesWhatItSends() throws Exception {
        try (WebSocketClient client = WebSocketClient.create(); ServerSocket fake = new ServerSocket(0)) {
            // RFC 7692 §7.2.3.1 and §7.2.3.2: "Hello", then "Hello" again referring back to the first.
            byte[] frames = HexFormat.of().parseHex("c107f248cdc9c90700c105f200110000");
            Exchange exchange = connect(client, fake, "Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=10\r\n", frames);
            assertThat(exchange.request()).contains("\r\nSec-WebSocket-Extensions: permessage-deflate\r\n");
            try (Socket socket = exchange.socket()) {
                WsSession session = exchange.opened().get(5, TimeUnit.SECONDS);
                assertThat(session.extensions()).isEqualTo("permessage-deflate; server_max_window_bits=10");
                assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("Hello");
                assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("Hello");
                String text = "all work and no play makes jack a dull boy; ".repeat(20);
                session.send(text);
                DataInputStream in = exchange.in();
                assertThat(in.readUnsignedByte()).as("FIN, RSV1, text").isEqualTo(0xC1);
                int length = in.readUnsignedByte() & 0x7F;
                assertThat(length).as("compressed: under 126 bytes").isLessThan(126);
                byte[] mask = in.readNBytes(4);
                byte[] payload = in.readNBytes(length);
                for (int i = 0; i < length; i++) payload[i] ^= mask[i & 3];
                assertThat(new String(inflate(payload), StandardCharsets.UTF_8)).isEqualTo(text);
            }
        }
    }

    @Test
    void withCompressionOffOffersNothing() throws Exception {
        try (WebSocketClient client = WebSocketClient.create(WsOptions.defaults().withCompression(false), 1); ServerSocket fake = new ServerSocket(0)) {
            Exchange exchange = connect(client, fake, "", new byte[0]);
            try (Socket socket = exchange.socket()) {
                assertThat(exchange.request()).doesNotContainIgnoringCase("Sec-WebSocket-Extensions");
                assertThat(exchange.opened().get(5, TimeUnit.SECONDS).extensions()).isEmpty();
            }
        }
        try (WebSocketClient client = WebSocketClient.create(WsOptions.defaults().withContextTakeover(false), 1); ServerSocket fake = new ServerSocket(0)) {
            Exchange exchange = connect(client, fake, "", new byte[0]);
            try (Socket socket = exchange.socket()) {
                assertThat(exchange.request()).contains("Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover\r\n");
                assertThat(exchange.opened().get(5, TimeUnit.SECONDS).extensions()).as("the server agreed to nothing").isEmpty();
            }
        }
    }

    @Test
    void failsOnAnAnswerThatIsMalformedOrWasNotOffered() throws Exception {
        String[][] cases = {
                {"permessage-deflate; client_max_window_bits=10", "client_max_window_bits was not offered"},
                {"permessage-deflate; server_max_window_bits=20", "invalid permessage-deflate parameter server_max_window_bits=20"},
                {"permessage-deflate; server_no_context_takeover; server_no_context_takeover", "repeated"},
                {"permessage-deflate; mystery", "unknown permessage-deflate parameter 'mystery'"},
                {"x-webkit-deflate-frame", "not offered"},
                {"permessage-deflate; =", "a parameter name expected"}};
        try (WebSocketClient client = WebSocketClient.create(); ServerSocket fake = new ServerSocket(0)) {
            for (String[] c : cases) {
                Exchange exchange = connect(client, fake, "Sec-WebSocket-Extensions: " + c[0] + "\r\n", new byte[0]);
                try (Socket socket = exchange.socket()) {
                    assertThatThrownBy(() -> exchange.opened().get(5, TimeUnit.SECONDS)).as(c[0])
                            .isInstanceOf(ExecutionException.class).cause().isInstanceOf(IOException.class)
                            .hasMessageContaining("unacceptable Sec-WebSocket-Extensions").hasMessageContaining(c[1]);
                }
            }
        }
        try (WebSocketClient client = WebSocketClient.create(WsOptions.defaults().withCompression(false), 1); ServerSocket fake = new ServerSocket(0)) {
            Exchange exchange = connect(client, fake, "Sec-WebSocket-Extensions: permessage-deflate\r\n", new byte[0]);
            try (Socket socket = exchange.socket()) {
                assertThatThrownBy(() -> exchange.opened().get(5, TimeUnit.SECONDS)).cause().hasMessageContaining("not offered");
            }
        }
    }

    private static byte[] inflate(byte[] payload) throws Exception {
        Inflater inflater = new Inflater(true);
        inflater.setInput(payload);
        byte[] out = new byte[4096];
        int n = inflater.inflate(out);
        inflater.setInput(new byte[]{0, 0, (byte) 0xFF, (byte) 0xFF});
        n += inflater.inflate(out, n, out.length - n);
        inflater.end();
        return java.util.Arrays.copyOf(out, n);
    }
}
