package keel.http.codec;

import com.code_intelligence.jazzer.junit.FuzzTest;
import keel.http.FuzzInput;
import keel.http.Headers;
import keel.http.Request;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Fuzzes the request parser with small limits, so that every limit is reached: whatever the bytes,
 * it answers requests or one of the statuses a server sends for bad input, never more than the
 * limits allow, and the same whether the bytes arrive whole or split.
 */
public class Http1ParserFuzzTest {
    private static final Http1Parser.Limits LIMITS = new Http1Parser.Limits(128, 6, 300);
    private static final Set<Integer> STATUSES = Set.of(400, 413, 414, 417, 431, 501, 505);

    @FuzzTest
    public void parsesTheSameHoweverTheBytesArrive(byte[] data) {
        FuzzInput input = FuzzInput.of(data);
        input.sameForEveryDelivery(reads -> parse(reads, input.bytes().length));
    }

    /** What the parser reported for bytes delivered in {@code reads}, as a channel would hand them over. */
    static List<String> parse(List<byte[]> reads, int total) {
        Http1Parser parser = new Http1Parser(LIMITS);
        ByteBuffer buffer = ByteBuffer.allocate(total + 16);
        List<String> transcript = new ArrayList<>();
        for (byte[] read : reads) {
            buffer.put(read).flip();
            while (true) {
                int before = buffer.remaining();
                ParseResult result = parser.parse(buffer);
                assertThat(buffer.remaining()).isBetween(0, before);
                assertThat(parser.bodyCapacity()).as("body buffer").isLessThanOrEqualTo((int) LIMITS.maxBodySize());
                if (result instanceof ParseResult.NeedMore) {
                    // What the channel must keep buffered stays under the limits: a head, or a chunk-size line.
                    int kept = parser.isReadingHead() ? LIMITS.maxHeadSize() : Math.max(LIMITS.maxHeadSize(), ChunkedDecoder.MAX_CHUNK_LINE);
                    assertThat(buffer.remaining()).as("unconsumed bytes").isLessThanOrEqualTo(kept);
                    break;
                }
                if (result instanceof ParseResult.ContinueExpected) continue; // depends on whether the body came along
                transcript.add(describe(result));
                if (result instanceof ParseResult.Failed) return transcript;
            }
            buffer.compact();
        }
        transcript.add(parser.isBetweenRequests() ? "idle" : "incomplete");
        return transcript;
    }

    private static String describe(ParseResult result) {
        return switch (result) {
            case ParseResult.Failed failed -> {
                assertThat(STATUSES).as("status of %s", failed).contains(failed.status());
                yield "failed " + failed.status();
            }
            case ParseResult.Parsed parsed -> describe(parsed.request());
            default -> throw new AssertionError("not a result to record: " + result);
        };
    }

    private static String describe(Request request) {
        Headers headers = request.headers();
        assertThat(headers.size()).isLessThanOrEqualTo(LIMITS.maxHeaderCount());
        assertThat(request.body().length).isLessThanOrEqualTo((int) LIMITS.maxBodySize());
        StringBuilder text = new StringBuilder(request.method()).append(' ').append(request.target())
                .append(request.isHttp11() ? " 1.1" : " 1.0").append(request.keepAlive() ? " keep-alive" : " close");
        for (int i = 0; i < headers.size(); i++) text.append('\n').append(headers.name(i)).append(": ").append(headers.value(i));
        return text.append("\n\n").append(HexFormat.of().formatHex(request.body())).toString();
    }
}
