package keel.http.ws;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.FuzzInput;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the WebSocket frame decoder with small frame and message bounds: whatever the bytes, it
 * yields messages and control frames within the bounds, or fails with 1002, 1007 or 1009; it leaves
 * nothing unread when it asks for more; and it reports the same whether the bytes arrive whole or
 * split. Mode bit 0: server side (frames must be masked); bit 1: permessage-deflate agreed; bit 2:
 * the peer resets its compressor after each message.
 */
public class FrameDecoderFuzzTest {
    private static final int MAX_FRAME = 100;
    private static final int MAX_MESSAGE = 300;

    @FuzzTest
    public void decodesTheSameHoweverTheBytesArrive(byte[] data) {
        FuzzInput input = FuzzInput.of(data);
        input.sameForEveryDelivery(reads -> decode(input, reads));
    }

    private static List<String> decode(FuzzInput input, List<byte[]> reads) {
        MessageInflater inflater = input.flag(1) ? new MessageInflater(MAX_MESSAGE, input.flag(2)) : null;
        FrameDecoder decoder = new FrameDecoder(input.flag(0), MAX_FRAME, MAX_MESSAGE, inflater);
        List<String> transcript = new ArrayList<>();
        try {
            for (byte[] read : reads) {
                ByteBuffer buffer = ByteBuffer.wrap(read);
                while (true) {
                    Decoded decoded = decoder.decode(buffer);
                    assertThat(decoder.messageCapacity()).as("message buffer").isLessThanOrEqualTo(MAX_MESSAGE);
                    if (decoded instanceof Decoded.NeedMore) {
                        assertThat(buffer.hasRemaining()).as("NeedMore leaves nothing unread").isFalse();
                        break;
                    }
                    transcript.add(describe(decoded));
                    if (decoded instanceof Decoded.Failed) return transcript;
                }
            }
        } finally {
            decoder.release();
        }
        transcript.add(decoder.isIdle() ? "idle" : "incomplete");
        return transcript;
    }

    private static String describe(Decoded decoded) {
        return switch (decoded) {
            case Decoded.Text text -> {
                assertThat(text.text().getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(MAX_MESSAGE);
                yield "text " + HexFormat.of().formatHex(text.text().getBytes(StandardCharsets.UTF_8));
            }
            case Decoded.Binary binary -> {
                assertThat(binary.data().length).isLessThanOrEqualTo(MAX_MESSAGE);
                yield "binary " + HexFormat.of().formatHex(binary.data());
            }
            case Decoded.Ping ping -> "ping " + control(ping.data());
            case Decoded.Pong pong -> "pong " + control(pong.data());
            case Decoded.Close close -> {
                assertThat(close.code() == WsClose.NO_STATUS || WsClose.isValidOnWire(close.code())).as("close code %d", close.code()).isTrue();
                yield "close " + close.code() + " " + close.reason();
            }
            case Decoded.Failed failed -> {
                assertThat(failed.code()).as(failed.reason()).isIn(WsClose.PROTOCOL_ERROR, WsClose.INVALID_PAYLOAD, WsClose.TOO_BIG);
                yield "failed " + failed.code();
            }
            case Decoded.NeedMore needMore -> throw new AssertionError("not a result to record");
        };
    }

    private static String control(byte[] data) {
        assertThat(data.length).isLessThanOrEqualTo(Math.min(125, MAX_FRAME));
        return HexFormat.of().formatHex(data);
    }
}
