package keel.http.codec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.stream.IntStream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class Http1ResponseParserTest {
    private static final Http1ResponseParser.Limits LIMITS = new Http1ResponseParser.Limits(8192, 100);
    private static final boolean CLOSE = true;
    private static final boolean OPEN = false;

    /** What the parser reported: events as text (consecutive bodies joined), and the bytes it left unread unless it failed. */
    private record Run(List<String> events, String leftover) {
    }

    /**
     * Feeds {@code input} in parts cut at {@code cuts}, as a socket might deliver it, expecting one
     * response per entry of {@code headRequests}; {@code close} ends the input with endOfInput().
     */
    private static Run feed(String input, int[] cuts, Http1ResponseParser.Limits limits, boolean close, boolean... headRequests) {
        byte[] bytes = input.getBytes(ISO_8859_1);
        Http1ResponseParser parser = new Http1ResponseParser(limits);
        Deque<Boolean> expected = new ArrayDeque<>();
        for (boolean headRequest : headRequests) expected.add(headRequest);
        parser.expect(expected.remove());
        ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 16);
        List<String> events = new ArrayList<>();
        boolean failed = false;
        int from = 0;
        for (int i = 0; i <= cuts.length && !failed; i++) {
            int to = i < cuts.length ? cuts[i] : bytes.length;
            buffer.put(bytes, from, to - from).flip();
            from = to;
            while (true) {
                ResponseEvent event = parser.parse(buffer);
                if (event instanceof ResponseEvent.NeedMore) break;
                failed = record(event, events);
                if (failed) break;
                if (event instanceof ResponseEvent.End && !expected.isEmpty()) parser.expect(expected.remove());
            }
            buffer.compact();
        }
        if (close && !failed) record(parser.endOfInput(), events);
        buffer.flip();
        return new Run(events, failed ? "" : ISO_8859_1.decode(buffer).toString());
    }

    /** Adds {@code event} to {@code events}; true when it is a failure. */
    private static boolean record(ResponseEvent event, List<String> events) {
        switch (event) {
            case ResponseEvent.Head head -> events.add("HEAD " + head.status() + " " + head.reason() + " length=" + head.bodyLength()
                    + " keepAlive=" + head.keepAlive() + " " + head.headers());
            case ResponseEvent.Body body -> {
                assertThat(body.bytes()).as("a Body event carries bytes").isNotEmpty();
                String text = new String(body.bytes(), ISO_8859_1);
                if (!events.isEmpty() && events.getLast().startsWith("BODY ")) events.add(events.removeLast() + text);
                else events.add("BODY " + text);
            }
            case ResponseEvent.End end -> events.add("END");
            case ResponseEvent.Failed failure -> events.add("FAILED " + failure.reason());
            case ResponseEvent.NeedMore needMore -> throw new AssertionError("NeedMore is not an event to record");
        }
        return event instanceof ResponseEvent.Failed;
    }

    /** Feeds {@code input} whole, split in two at every offset, and one byte at a time: the runs must agree. */
    private static Run parseAtEveryOffset(String input, Http1ResponseParser.Limits limits, boolean close, boolean... headRequests) {
        Run whole = feed(input, new int[0], limits, close, headRequests);
        for (int split = 0; split <= input.length(); split++) {
            assertThat(feed(input, new int[]{split}, limits, close, headRequests)).as("split at %d", split).isEqualTo(whole);
        }
        int[] everyByte = IntStream.range(1, input.length()).toArray();
        assertThat(feed(input, everyByte, limits, close, headRequests)).as("one byte at a time").isEqualTo(whole);
        return whole;
    }

    private static List<String> events(String input, boolean close, boolean... headRequests) {
        return parseAtEveryOffset(input, LIMITS, close, headRequests).events();
    }

    private static List<String> events(String input) {
        return events(input, OPEN, false);
    }

    @Test
    void parsesAContentLengthBody() {
        assertThat(events("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world")).containsExactly(
                "HEAD 200 OK length=11 keepAlive=true [Content-Type: text/plain, Content-Length: 11]", "BODY hello world", "END");
    }

    @Test
    void parsesAChunkedBodyWithExtensionsAndTrailers() {
        String input = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n1\r\n \r\nA\r\nworld, all\r\n0\r\nX-Checksum: 1\r\nX-More: 2\r\n\r\n";
        assertThat(events(input)).containsExactly(
                "HEAD 200 OK length=-1 keepAlive=true [Transfer-Encoding: chunked]", "BODY hello world, all", "END");
    }

    @Test
    void emitsChunkDataAsItArrivesWithoutWaitingForTheWholeChunk() {
        Http1ResponseParser parser = new Http1ResponseParser(LIMITS);
        parser.expect(false);
        ByteBuffer buffer = ByteBuffer.wrap("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\nhello".getBytes(ISO_8859_1));
        assertThat(parser.parse(buffer)).isInstanceOf(ResponseEvent.Head.class);
        assertThat(parser.parse(buffer)).isInstanceOfSatisfying(ResponseEvent.Body.class,
                body -> assertThat(new String(body.bytes(), ISO_8859_1)).isEqualTo("hello"));
        assertThat(parser.parse(buffer)).isInstanceOf(ResponseEvent.NeedMore.class);
        assertThat(parser.endOfInput()).isEqualTo(new ResponseEvent.Failed("premature close: chunked body ended before its last chunk"));
    }

    @Test
    void readsABodyWithoutLengthUntilTheConnectionCloses() {
        assertThat(events("HTTP/1.1 200 OK\r\nServer: old\r\n\r\nall of this until close", CLOSE, false)).containsExactly(
                "HEAD 200 OK length=-1 keepAlive=false [Server: old]", "BODY all of this until close", "END");
    }

    @Test
    void passesAFinalCodingOtherThanChunkedThroughUntilClose() {
        assertThat(events("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n\u001f\u008b raw", CLOSE, false)).containsExactly(
                "HEAD 200 OK length=-1 keepAlive=false [Transfer-Encoding: gzip]", "BODY \u001f\u008b raw", "END");
    }

    @Test
    void aHeadResponseHasNoBodyWhateverItsContentLength() {
        String head = "HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n";
        String next = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        assertThat(events(head + next, OPEN, true, false)).containsExactly(
                "HEAD 200 OK length=0 keepAlive=true [Content-Length: 11]", "END",
                "HEAD 200 OK length=2 keepAlive=true [Content-Length: 2]", "BODY ok", "END");
    }

    @ParameterizedTest
    @CsvSource({"204, No Content", "304, Not Modified"})
    void noContentAndNotModifiedHaveNoBody(int status, String reason) {
        String input = "HTTP/1.1 " + status + " " + reason + "\r\nContent-Length: 5\r\n\r\n" + "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx";
        assertThat(events(input, OPEN, false, false)).containsExactly(
                "HEAD " + status + " " + reason + " length=0 keepAlive=true [Content-Length: 5]", "END",
                "HEAD 200 OK length=1 keepAlive=true [Content-Length: 1]", "BODY x", "END");
    }

    @Test
    void skipsInterimResponsesBeforeTheFinalOne() {
        String input = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
        assertThat(events(input)).containsExactly("HEAD 200 OK length=2 keepAlive=true [Content-Length: 2]", "BODY ok", "END");
    }

    @Test
    void acceptsSixteenInterimResponsesInARowButNotSeventeen() {
        String interim = "HTTP/1.1 102 Processing\r\n\r\n";
        String last = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
        assertThat(events(interim.repeat(16) + last)).containsExactly("HEAD 200 OK length=0 keepAlive=true [Content-Length: 0]", "END");
        assertThat(events(interim.repeat(17) + last)).containsExactly("FAILED more than 16 interim (1xx) responses");
    }

    @Test
    void switchingProtocolsLeavesTheRestOfTheBufferUnread() {
        String head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n";
        Run run = parseAtEveryOffset(head + "\u0081\u0005hello", LIMITS, OPEN, false);
        assertThat(run.events()).containsExactly(
                "HEAD 101 Switching Protocols length=0 keepAlive=false [Upgrade: websocket, Connection: Upgrade]");
        assertThat(run.leftover()).isEqualTo("\u0081\u0005hello");

        Http1ResponseParser parser = new Http1ResponseParser(LIMITS);
        parser.expect(false);
        ByteBuffer buffer = ByteBuffer.wrap((head + "frames").getBytes(ISO_8859_1));
        assertThat(parser.parse(buffer)).isInstanceOf(ResponseEvent.Head.class);
        assertThat(parser.isUpgraded()).isTrue();
        assertThat(parser.parse(buffer)).isInstanceOf(ResponseEvent.NeedMore.class);
        assertThat(buffer.remaining()).isEqualTo("frames".length());
        assertThatThrownBy(() -> parser.expect(false)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void parsesPipelinedResponsesInOrder() {
        String one = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc";
        String two = "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nde\r\n0\r\n\r\n";
        String three = "HTTP/1.1 404 Not Found\r\nContent-Length: 1\r\nConnection: close\r\n\r\nf";
        assertThat(events(one + two + three, OPEN, false, false, false)).containsExactly(
                "HEAD 200 OK length=3 keepAlive=true [Content-Length: 3]", "BODY abc", "END",
                "HEAD 201 Created length=-1 keepAlive=true [Transfer-Encoding: chunked]", "BODY de", "END",
                "HEAD 404 Not Found length=1 keepAlive=false [Content-Length: 1, Connection: close]", "BODY f", "END");
    }

    @ParameterizedTest(name = "{0} {1} ⇒ keepAlive={2}")
    @CsvSource(delimiter = '|', value = {
            "HTTP/1.1 | Content-Length: 0 | true",
            "HTTP/1.1 | Content-Length: 0\\r\\nConnection: close | false",
            "HTTP/1.1 | Content-Length: 0\\r\\nConnection: Keep-Alive, Close | false",
            "HTTP/1.0 | Content-Length: 0 | false",
            "HTTP/1.0 | Content-Length: 0\\r\\nConnection: keep-alive | true",
            "HTTP/1.0 | Content-Length: 0\\r\\nConnection: keep-alive, close | false",
            "HTTP/1.0 | Transfer-Encoding: chunked\\r\\nConnection: keep-alive | false",
    })
    void keepAliveFollowsTheVersionAndConnectionHeader(String version, String fields, boolean keepAlive) {
        String input = version + " 200 OK\r\n" + fields.replace("\\r\\n", "\r\n") + "\r\n\r\n" + (fields.contains("chunked") ? "0\r\n\r\n" : "");
        assertThat(events(input).getFirst()).contains(" keepAlive=" + keepAlive + " ");
    }

    @Test
    void toleratesAStatusLineWithoutReasonPhrase() {
        assertThat(events("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n")).containsExactly("HEAD 200  length=0 keepAlive=true [Content-Length: 0]", "END");
        assertThat(events("HTTP/1.1 500 \nContent-Length: 0\n\n")).containsExactly("HEAD 500  length=0 keepAlive=true [Content-Length: 0]", "END");
    }

    @Test
    void acceptsEqualRepeatedContentLengths() {
        assertThat(events("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2, 2\r\n\r\nok")).containsExactly(
                "HEAD 200 OK length=2 keepAlive=true [Content-Length: 2, Content-Length: 2, 2]", "BODY ok", "END");
    }

    @ParameterizedTest(name = "{0} ⇒ {1}")
    @CsvSource(delimiter = '|', value = {
            "HTTP/2.0 200 OK\\r\\n\\r\\n | HTTP version not supported",
            "HTTX/1.1 200 OK\\r\\n\\r\\n | malformed HTTP version",
            "HTTP/1.1 200OK\\r\\n\\r\\n | malformed status line",
            "HTTP/1.1 20 OK\\r\\n\\r\\n | malformed status line",
            "\\r\\nHTTP/1.1 200 OK\\r\\n\\r\\n | malformed status line",
            "HTTP/1.1 2x0 OK\\r\\n\\r\\n | malformed status code",
            "HTTP/1.1 600 Custom\\r\\n\\r\\n | invalid status code 600",
            "HTTP/1.1 099 Low\\r\\n\\r\\n | invalid status code 99",
            "HTTP/1.1 200 O\\u0001K\\r\\n\\r\\n | invalid character in reason phrase",
            "HTTP/1.1 200 OK\\r\\nServer : x\\r\\n\\r\\n | invalid character in header name",
            "HTTP/1.1 200 OK\\r\\nServer: x\\r\\n folded\\r\\n\\r\\n | obsolete line folding in header field",
            "HTTP/1.1 200 OK\\r\\nServer: x\\rX: y\\r\\n\\r\\n | bare CR in message head",
            "HTTP/1.1 200 OK\\r\\nX: a\\u0000b\\r\\n\\r\\n | invalid character in header value",
            "HTTP/1.1 200 OK\\r\\nNoColon\\r\\n\\r\\n | malformed header field",
            "HTTP/1.1 200 OK\\r\\nContent-Length: 1x\\r\\n\\r\\n | invalid Content-Length",
            "HTTP/1.1 200 OK\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\n | invalid Content-Length",
            "HTTP/1.1 200 OK\\r\\nContent-Length: 3\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | both Content-Length and Transfer-Encoding",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: gzip, chunked\\r\\n\\r\\n | unsupported transfer coding: gzip",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | invalid Transfer-Encoding",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\n | invalid chunk size",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n11111111111111111\\r\\n | chunk size too large",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n3\\nabc\\r\\n0\\r\\n\\r\\n | chunked framing line not ended by CRLF",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2\\r\\nabc\\r\\n | chunk data longer than its declared size",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2\\r\\nab\\rc | chunk data not followed by CRLF",
            "HTTP/1.1 200 OK\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\n | chunked framing line not ended by CRLF",
    })
    void failsOnInvalidResponses(String input, String reason) {
        String text = input.replace("\\r", "\r").replace("\\n", "\n").replace("\\u0001", "\u0001").replace("\\u0000", "\u0000");
        assertThat(events(text).getLast()).isEqualTo("FAILED " + reason);
    }

    @Test
    void failsWhenTheHeadOrItsFieldsExceedTheLimits() {
        Http1ResponseParser.Limits small = new Http1ResponseParser.Limits(64, 3);
        String big = "HTTP/1.1 200 OK\r\nServer: " + "a".repeat(60) + "\r\n\r\n";
        assertThat(parseAtEveryOffset(big, small, OPEN, false).events()).containsExactly("FAILED response head larger than 64 bytes");
        String endless = "HTTP/1.1 200 OK\r\nServer: " + "a".repeat(60);
        assertThat(parseAtEveryOffset(endless, small, OPEN, false).events()).containsExactly("FAILED response head larger than 64 bytes");
        String many = "HTTP/1.1 200 OK\r\n" + "X: 1\r\n".repeat(4) + "\r\n";
        assertThat(parseAtEveryOffset(many, small, OPEN, false).events()).containsExactly("FAILED more than 3 header fields");
        String trailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nX-T: " + "t".repeat(70) + "\r\n\r\n";
        assertThat(parseAtEveryOffset(trailers, small, OPEN, false).events()).last().isEqualTo("FAILED trailer section too large");
        String longChunkLine = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + "e".repeat(1100) + "\r\n";
        assertThat(feed(longChunkLine, new int[0], LIMITS, OPEN, false).events()).last().isEqualTo("FAILED chunk size line too long");
    }

    @Test
    void reportsWhatWasMissingWhenTheConnectionClosesEarly() {
        assertThat(events("", CLOSE, false)).containsExactly("FAILED premature close: connection closed before any response byte");
        assertThat(events("HTTP/1.1 200 OK\r\nContent-", CLOSE, false))
                .containsExactly("FAILED premature close: connection closed in the response head");
        assertThat(events("HTTP/1.1 100 Continue\r\n\r\n", CLOSE, false))
                .containsExactly("FAILED premature close: connection closed in the response head");
        assertThat(events("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nhello", CLOSE, false)).containsExactly(
                "HEAD 200 OK length=11 keepAlive=true [Content-Length: 11]", "BODY hello", "FAILED premature close: 6 of 11 body bytes missing");
        assertThat(events("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n", CLOSE, false)).containsExactly(
                "HEAD 200 OK length=-1 keepAlive=true [Transfer-Encoding: chunked]", "BODY ab",
                "FAILED premature close: chunked body ended before its last chunk");
    }

    @Test
    void knowsWhetherAnyByteOfTheResponseArrivedBeforeAFailure() {
        Http1ResponseParser idle = new Http1ResponseParser(LIMITS);
        idle.expect(false);
        assertThat(idle.parse(ByteBuffer.allocate(0))).isInstanceOf(ResponseEvent.NeedMore.class);
        assertThat(idle.endOfInput()).isInstanceOf(ResponseEvent.Failed.class);
        assertThat(idle.isBeforeResponse()).isTrue();

        Http1ResponseParser started = new Http1ResponseParser(LIMITS);
        started.expect(false);
        assertThat(started.parse(ByteBuffer.wrap(new byte[]{'H'}))).isInstanceOf(ResponseEvent.NeedMore.class);
        assertThat(started.isBeforeResponse()).isFalse();
        assertThat(started.endOfInput()).isInstanceOf(ResponseEvent.Failed.class);
        assertThat(started.isBeforeResponse()).isFalse();
    }

    @Test
    void failsOnBytesNobodyAskedFor() {
        Http1ResponseParser parser = new Http1ResponseParser(LIMITS);
        assertThat(parser.parse(ByteBuffer.allocate(0))).isInstanceOf(ResponseEvent.NeedMore.class);
        assertThat(parser.parse(ByteBuffer.wrap("HTTP/1.1 408 Request Timeout\r\n\r\n".getBytes(ISO_8859_1))))
                .isEqualTo(new ResponseEvent.Failed("unexpected bytes with no response expected"));

        String answered = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
        assertThat(events(answered + "junk")).containsExactly("HEAD 200 OK length=0 keepAlive=true [Content-Length: 0]", "END",
                "FAILED unexpected bytes with no response expected");
    }

    @Test
    void refusesExpectWhileAResponseIsInProgressAndStaysFailed() {
        Http1ResponseParser parser = new Http1ResponseParser(LIMITS);
        parser.expect(false);
        assertThat(parser.parse(ByteBuffer.wrap("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab".getBytes(ISO_8859_1))))
                .isInstanceOf(ResponseEvent.Head.class);
        assertThatThrownBy(() -> parser.expect(false)).isInstanceOf(IllegalStateException.class);

        Http1ResponseParser failed = new Http1ResponseParser(LIMITS);
        failed.expect(false);
        ResponseEvent first = failed.parse(ByteBuffer.wrap("HTTP/9.9 200 OK\r\n\r\n".getBytes(ISO_8859_1)));
        assertThat(first).isEqualTo(new ResponseEvent.Failed("HTTP version not supported"));
        failed.expect(false);
        assertThat(failed.parse(ByteBuffer.wrap("HTTP/1.1 200 OK\r\n\r\n".getBytes(ISO_8859_1)))).isSameAs(first);
        assertThat(failed.endOfInput()).isSameAs(first);
    }

    @Test
    void refusesLimitsTooSmallToHoldAHead() {
        assertThatThrownBy(() -> new Http1ResponseParser.Limits(63, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Http1ResponseParser.Limits(64, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
