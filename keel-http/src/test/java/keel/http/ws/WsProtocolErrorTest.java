package keel.http.ws;

import keel.http.router.Router;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static keel.http.ws.FrameDecoder.BINARY;
import static keel.http.ws.FrameDecoder.CONTINUATION;
import static keel.http.ws.FrameDecoder.PING;
import static keel.http.ws.FrameDecoder.TEXT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every protocol error closes with its code (RFC 6455 §7.4.1): the server sends a Close frame with
 * the code, the listener's onClose gets it, and TCP ends with a FIN, not a reset.
 */
class WsProtocolErrorTest {
    private final BlockingQueue<String> closes = new LinkedBlockingQueue<>();
    private WsServer server;

    @BeforeEach
    void start() {
        WsListener recording = new WsListener() {
            @Override
            public void onText(WsSession session, String text) {
                session.send(text);
            }

            @Override
            public void onClose(WsSession session, int code, String reason) {
                closes.add(code + ":" + reason);
            }
        };
        server = WsServer.start(new Router().ws("/ws", recording), options -> options.wsMaxFrameSize(1000).wsMaxMessageSize(1500));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    /** Sends {@code frames} after a good message and returns the Close frame the server answers with. */
    private RawWsClient.Frame closeAfter(byte[] frames) throws Exception {
        try (RawWsClient client = RawWsClient.open(server.port(), "/ws")) {
            client.send(Frames.of().masked(true, TEXT, "before").build());
            assertThat(client.readFrame().text()).isEqualTo("before");
            client.send(frames);
            RawWsClient.Frame close = client.readUntilClose();
            assertThat(client.closedByServer(5_000)).as("FIN after the Close frame").isTrue();
            return close;
        }
    }

    private void assertClosed(byte[] frames, int code, String reason) throws Exception {
        RawWsClient.Frame close = closeAfter(frames);
        assertThat(close.closeCode()).isEqualTo(code);
        assertThat(close.text().substring(2)).isEqualTo(reason);
        assertThat(server.awaitOpenConnections(0)).isTrue();
        // onClose runs on a virtual thread (the server's default execution): it may come a little later.
        assertThat(closes.poll(5, TimeUnit.SECONDS)).isEqualTo(code + ":" + reason);
        assertThat(closes).isEmpty();
    }

    @Test
    void anUnmaskedClientFrameCloses1002() throws Exception {
        assertClosed(Frames.of().unmasked(true, TEXT, "x".getBytes()).build(), WsClose.PROTOCOL_ERROR, "client frame not masked");
    }

    @Test
    void reservedBitsClose1002() throws Exception {
        assertClosed(Frames.of().raw(0x80 | 0x20 | TEXT, true, "x".getBytes()).build(), WsClose.PROTOCOL_ERROR,
                "reserved bits set without a negotiated extension");
    }

    @Test
    void aReservedOpcodeCloses1002() throws Exception {
        assertClosed(Frames.of().raw(0x80 | 0x5, true, new byte[0]).build(), WsClose.PROTOCOL_ERROR, "reserved data opcode 5");
    }

    @Test
    void aFragmentedPingCloses1002() throws Exception {
        assertClosed(Frames.of().masked(false, PING, "p").build(), WsClose.PROTOCOL_ERROR, "fragmented control frame");
    }

    @Test
    void aContinuationWithoutAStartCloses1002() throws Exception {
        assertClosed(Frames.of().masked(true, CONTINUATION, "x").build(), WsClose.PROTOCOL_ERROR,
                "continuation frame without a message to continue");
    }

    @Test
    void invalidUtf8Closes1007() throws Exception {
        assertClosed(Frames.of().masked(true, TEXT, new byte[]{'o', 'k', (byte) 0xC3, 0x28}).build(), WsClose.INVALID_PAYLOAD,
                "text message is not UTF-8");
    }

    @Test
    void invalidUtf8SplitAcrossFragmentsCloses1007() throws Exception {
        byte[] frames = Frames.of().masked(false, TEXT, new byte[]{'a', (byte) 0xE2}).masked(true, CONTINUATION, new byte[]{0x28, (byte) 0xA1}).build();
        assertClosed(frames, WsClose.INVALID_PAYLOAD, "text message is not UTF-8");
    }

    @Test
    void aFrameOverTheLimitCloses1009() throws Exception {
        assertClosed(Frames.of().masked(true, BINARY, new byte[1001]).build(), WsClose.TOO_BIG, "frame of 1001 bytes exceeds 1000");
    }

    @Test
    void aMessageOverTheLimitCloses1009() throws Exception {
        byte[] frames = Frames.of().masked(false, BINARY, new byte[1000]).masked(true, CONTINUATION, new byte[501]).build();
        assertClosed(frames, WsClose.TOO_BIG, "message exceeds 1500 bytes");
    }
}
