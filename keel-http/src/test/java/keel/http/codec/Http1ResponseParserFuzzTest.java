package keel.http.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.FuzzInput;
import keel.http.Headers;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the client's response parser with small limits: whatever the bytes, it reports heads, body
 * bytes and ends, or fails, never keeping more than its limits buffered, and the same whether the
 * bytes arrive whole or split. The mode byte says which of the responses answer HEAD requests.
 */
public class Http1ResponseParserFuzzTest {
    private static final Http1ResponseParser.Limits LIMITS = new Http1ResponseParser.Limits(128, 6);

    @FuzzTest
    public void parsesTheSameHoweverTheBytesArrive(byte[] data) {
        FuzzInput input = FuzzInput.of(data);
        input.sameForEveryDelivery(reads -> parse(input, reads));
    }

    private static List<String> parse(FuzzInput input, List<byte[]> reads) {
        Http1ResponseParser parser = new Http1ResponseParser(LIMITS);
        ByteBuffer buffer = ByteBuffer.allocate(input.bytes().length + 16);
        Transcript transcript = new Transcript();
        int responses = 0;
        parser.expect(input.flag(0));
        for (byte[] read : reads) {
            buffer.put(read).flip();
            while (true) {
                int before = buffer.remaining();
                ResponseEvent event = parser.parse(buffer);
                assertThat(buffer.remaining()).isBetween(0, before);
                if (event instanceof ResponseEvent.NeedMore) {
                    if (parser.isUpgraded()) return transcript.add("upgraded");
                    assertThat(buffer.remaining()).as("unconsumed bytes").isLessThanOrEqualTo(Math.max(LIMITS.maxHeadSize(), ChunkedDecoder.MAX_CHUNK_LINE));
                    break;
                }
                if (event instanceof ResponseEvent.Body body) {
                    assertThat(body.bytes().length).isLessThanOrEqualTo(before - buffer.remaining());
                    transcript.body.writeBytes(body.bytes());
                    continue;
                }
                transcript.add(describe(event));
                if (event instanceof ResponseEvent.Failed) return transcript.lines;
                if (event instanceof ResponseEvent.End) parser.expect(input.flag(++responses % 8));
            }
            buffer.compact();
        }
        return transcript.add("closed: " + describe(parser.endOfInput()));
    }

    private static String describe(ResponseEvent event) {
        return switch (event) {
            case ResponseEvent.Head head -> {
                Headers headers = head.headers();
                assertThat(headers.size()).isLessThanOrEqualTo(LIMITS.maxHeaderCount());
                StringBuilder text = new StringBuilder("head ").append(head.status()).append(' ').append(head.reason())
                        .append(" length ").append(head.bodyLength()).append(head.keepAlive() ? " keep-alive" : " close");
                for (int i = 0; i < headers.size(); i++) text.append('\n').append(headers.name(i)).append(": ").append(headers.value(i));
                yield text.toString();
            }
            case ResponseEvent.End end -> "end";
            case ResponseEvent.Failed failed -> "failed";
            case ResponseEvent.NeedMore needMore -> "need more";
            case ResponseEvent.Body body -> throw new AssertionError("body bytes are gathered, not described");
        };
    }

    /** The events in order; body bytes that arrived in pieces are gathered into one line. */
    private static final class Transcript {
        final List<String> lines = new ArrayList<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();

        List<String> add(String line) {
            if (body.size() > 0) {
                lines.add("body " + HexFormat.of().formatHex(body.toByteArray()));
                body.reset();
            }
            lines.add(line);
            return lines;
        }
    }
}
