package keel.http.codec;

import keel.http.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class Http1ParserTest {
    private static final Http1Parser.Limits LIMITS = new Http1Parser.Limits(8192, 100, 1 << 20);

    /** Feeds {@code input} in two parts split at {@code split}, as a socket might deliver it. */
    private static List<ParseResult> parseSplit(String input, int split, Http1Parser.Limits limits) {
        byte[] bytes = input.getBytes(StandardCharsets.ISO_8859_1);
        Http1Parser parser = new Http1Parser(limits);
        ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 16);
        List<ParseResult> results = new ArrayList<>();
        for (int[] part : new int[][]{{0, split}, {split, bytes.length}}) {
            buffer.put(bytes, part[0], part[1] - part[0]).flip();
            while (true) {
                ParseResult result = parser.parse(buffer);
                if (result instanceof ParseResult.NeedMore) break;
                results.add(result);
                if (result instanceof ParseResult.Failed) return results;
            }
            buffer.compact();
        }
        return results;
    }

    private static List<Request> parseAtEveryOffset(String input) {
        List<Request> first = null;
        for (int split = 0; split <= input.length(); split++) {
            List<Request> requests = parseSplit(input, split, LIMITS).stream()
                    .filter(r -> r instanceof ParseResult.Parsed).map(r -> ((ParseResult.Parsed) r).request()).toList();
            if (first == null) first = requests;
            assertThat(requests).as("split at %d", split).hasSameSizeAs(first);
            for (int i = 0; i < requests.size(); i++) {
                assertThat(requests.get(i).target()).isEqualTo(first.get(i).target());
                assertThat(requests.get(i).body()).isEqualTo(first.get(i).body());
            }
        }
        return first;
    }

    private static ParseResult.Failed failure(String input) {
        return failure(input, LIMITS);
    }

    private static ParseResult.Failed failure(String input, Http1Parser.Limits limits) {
        List<ParseResult> results = parseSplit(input, input.length(), limits);
        assertThat(results).isNotEmpty();
        assertThat(results.getLast()).isInstanceOf(ParseResult.Failed.class);
        return (ParseResult.Failed) results.getLast();
    }

    @Test
    void parsesGetWithHeadersAtEveryByteOffset() {
        List<Request> requests = parseAtEveryOffset("GET /users/7?tab=orders&x=a%20b HTTP/1.1\r\nHost: example\r\nX-Trace:  abc \r\n\r\n");
        assertThat(requests).hasSize(1);
        Request request = requests.getFirst();
        assertThat(request.method()).isEqualTo("GET");
        assertThat(request.path()).isEqualTo("/users/7");
        assertThat(request.rawQuery()).isEqualTo("tab=orders&x=a%20b");
        assertThat(request.queryParam("x")).contains("a b");
        assertThat(request.header("x-trace")).isEqualTo("abc");
        assertThat(request.isHttp11()).isTrue();
        assertThat(request.keepAlive()).isTrue();
        assertThat(request.body()).isEmpty();
    }

    @Test
    void parsesContentLengthBodyAtEveryByteOffset() {
        Request request = parseAtEveryOffset("POST /orders HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world").getFirst();
        assertThat(request.bodyText()).isEqualTo("hello world");
    }

    @Test
    void parsesChunkedBodyWithExtensionsAndTrailersAtEveryByteOffset() {
        String input = "POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-Checksum: 1\r\n\r\n";
        assertThat(parseAtEveryOffset(input).getFirst().bodyText()).isEqualTo("hello world");
    }

    @Test
    void parsesPipelinedRequestsInOrderAtEveryByteOffset() {
        String one = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";
        String two = "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz";
        String three = "GET /c HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n";
        List<Request> requests = parseAtEveryOffset(one + two + three);
        assertThat(requests).extracting(Request::target).containsExactly("/a", "/b", "/c");
        assertThat(requests.get(1).bodyText()).isEqualTo("xyz");
        assertThat(requests.get(2).keepAlive()).isFalse();
    }

    @Test
    void framingFieldsOfOneRequestDoNotCarryOverToTheNext() {
        String chunked = "POST /a HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        String sized = "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi";
        String plain = "GET /c HTTP/1.1\r\nHost: h\r\n\r\n";
        List<Request> requests = parseAtEveryOffset(chunked + sized + plain);
        assertThat(requests).extracting(Request::target).containsExactly("/a", "/b", "/c");
        assertThat(requests).extracting(Request::bodyText).containsExactly("abc", "hi", "");
        assertThat(requests).extracting(Request::keepAlive).containsExactly(true, false, true);
    }

    @Test
    void acceptsBareLineFeedsAndLeadingEmptyLines() {
        Request request = parseAtEveryOffset("\r\n\nGET / HTTP/1.1\nHost: h\n\n").getFirst();
        assertThat(request.target()).isEqualTo("/");
    }

    @Test
    void http10DefaultsToCloseAndHonoursKeepAlive() {
        assertThat(parseAtEveryOffset("GET / HTTP/1.0\r\n\r\n").getFirst().keepAlive()).isFalse();
        assertThat(parseAtEveryOffset("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").getFirst().keepAlive()).isTrue();
    }

    @Test
    void absoluteFormTargetIsRoutedOnItsPath() {
        assertThat(parseAtEveryOffset("GET http://example.com/a/b?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n").getFirst().target())
                .isEqualTo("/a/b?q=1");
    }

    @Test
    void signalsContinueOnlyWhenTheBodyHasNotArrived() {
        Http1Parser parser = new Http1Parser(LIMITS);
        ByteBuffer buffer = ByteBuffer.wrap("PUT /f HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1));
        assertThat(parser.parse(buffer)).isInstanceOf(ParseResult.ContinueExpected.class);
        assertThat(parser.parse(buffer)).isInstanceOf(ParseResult.NeedMore.class);
        assertThat(parser.parse(ByteBuffer.wrap(new byte[]{'o', 'k'}))).isInstanceOf(ParseResult.Parsed.class);
    }

    @ParameterizedTest(name = "{0} ⇒ {1}")
    @CsvSource(delimiter = '|', value = {
            "GET / HTTP/1.1\\r\\n\\r\\n | 400 | missing Host",
            "GET / HTTP/1.1\\r\\nHost: a\\r\\nHost: b\\r\\n\\r\\n | 400 | more than one Host",
            "GET  / HTTP/1.1\\r\\nHost: h\\r\\n\\r\\n | 400 | request line",
            "GET / HTTP/1.1 x\\r\\nHost: h\\r\\n\\r\\n | 400 | request line",
            "G(T / HTTP/1.1\\r\\nHost: h\\r\\n\\r\\n | 400 | method",
            "GET / HTTP/2.0\\r\\nHost: h\\r\\n\\r\\n | 505 | version",
            "GET / HTTX/1.1\\r\\nHost: h\\r\\n\\r\\n | 400 | version",
            "GET nopath HTTP/1.1\\r\\nHost: h\\r\\n\\r\\n | 400 | target",
            "GET / HTTP/1.1\\r\\nHost : h\\r\\n\\r\\n | 400 | header name",
            "GET / HTTP/1.1\\r\\nHost: h\\r\\n folded\\r\\n\\r\\n | 400 | folding",
            "GET / HTTP/1.1\\r\\nHost: h\\rX: y\\r\\n\\r\\n | 400 | bare CR",
            "GET / HTTP/1.1\\r\\nHost: h\\r\\nX: a\\u0001b\\r\\n\\r\\n | 400 | header value",
            "GET / HTTP/1.1\\r\\nHost: h\\r\\nNoColon\\r\\n\\r\\n | 400 | malformed header",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nContent-Length: 1x\\r\\n\\r\\n | 400 | Content-Length",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nContent-Length: -1\\r\\n\\r\\n | 400 | Content-Length",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\n | 400 | Content-Length",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nContent-Length: 3\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | 400 | smuggling",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: gzip, chunked\\r\\n\\r\\n | 501 | gzip",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: chunked, chunked\\r\\n\\r\\n | 400 | Transfer-Encoding",
            "POST / HTTP/1.0\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n | 400 | HTTP/1.0",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\nzz\\r\\n | 400 | chunk size",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2\\r\\nabc\\r\\n | 400 | chunk data",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n11111111111111111\\r\\n | 400 | chunk size",
            "GET / HTTP/1.1\\r\\nHost: h\\r\\nExpect: magic\\r\\n\\r\\n | 417 | expectation",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n3\\nabc\\r\\n0\\r\\n\\r\\n | 400 | CRLF",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n3\\r\\nabc\\n0\\r\\n\\r\\n | 400 | chunk data",
            "POST / HTTP/1.1\\r\\nHost: h\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\n | 400 | CRLF",
    })
    void refusesInvalidInput(String input, int status, String reasonPart) {
        ParseResult.Failed failed = failure(input.replace("\\r", "\r").replace("\\n", "\n").replace("\\u0001", "\u0001"));
        assertThat(failed.status()).isEqualTo(status);
        assertThat(failed.reason()).containsIgnoringCase(reasonPart);
    }

    @Test
    void refusesHeadsOverTheLimitWith431AndLongRequestLinesWith414() {
        Http1Parser.Limits small = new Http1Parser.Limits(256, 5, 100);
        assertThat(failure("GET / HTTP/1.1\r\nHost: h\r\nX-Big: " + "a".repeat(300) + "\r\n\r\n", small).status()).isEqualTo(431);
        assertThat(failure("GET /" + "a".repeat(300) + " HTTP/1.1\r\nHost: h\r\n\r\n", small).status()).isEqualTo(414);
        assertThat(failure("GET / HTTP/1.1\r\nHost: h\r\n" + "X: 1\r\n".repeat(5) + "\r\n", small).status()).isEqualTo(431);
    }

    @Test
    void refusesBodiesOverTheLimitWith413() {
        Http1Parser.Limits small = new Http1Parser.Limits(256, 5, 10);
        assertThat(failure("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", small).status()).isEqualTo(413);
        assertThat(failure("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\n", small).status())
                .isEqualTo(413);
    }

    @Test
    void reservesBodyMemoryAsBytesArriveNotAsAnnounced() {
        Http1Parser parser = new Http1Parser(new Http1Parser.Limits(8192, 100, 10 << 20));
        String head = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: " + (10 << 20) + "\r\n\r\n";
        assertThat(parser.parse(ByteBuffer.wrap((head + "0123456789").getBytes(StandardCharsets.ISO_8859_1))))
                .isInstanceOf(ParseResult.NeedMore.class);
        assertThat(parser.bodyCapacity()).isLessThanOrEqualTo(64 * 1024);
        byte[] rest = new byte[(10 << 20) - 10];
        assertThat(parser.parse(ByteBuffer.wrap(rest))).isInstanceOf(ParseResult.Parsed.class);
    }

    @Test
    void refusesAFirstByteThatCannotStartAMethodAtOnce() {
        // 0x16: the first byte of a TLS record (a ClientHello sent to a plain port).
        for (byte first : new byte[]{0x16, 0x00, (byte) 0x80, ' ', '('}) {
            ParseResult result = new Http1Parser(LIMITS).parse(ByteBuffer.wrap(new byte[]{first}));
            assertThat(result).as("first byte 0x%02x", first).isInstanceOf(ParseResult.Failed.class);
            assertThat(((ParseResult.Failed) result).status()).isEqualTo(400);
            assertThat(((ParseResult.Failed) result).reason()).contains("method");
        }
        ParseResult afterEmptyLines = new Http1Parser(LIMITS).parse(ByteBuffer.wrap(new byte[]{'\r', '\n', 0x16}));
        assertThat(afterEmptyLines).isInstanceOf(ParseResult.Failed.class);
        assertThat(new Http1Parser(LIMITS).parse(ByteBuffer.wrap(new byte[]{'G'}))).isInstanceOf(ParseResult.NeedMore.class);
    }

    @Test
    void staysFailedAfterAFailure() {
        Http1Parser parser = new Http1Parser(LIMITS);
        ParseResult first = parser.parse(ByteBuffer.wrap("BAD\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)));
        assertThat(first).isInstanceOf(ParseResult.Failed.class);
        assertThat(parser.parse(ByteBuffer.wrap("GET / HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1))))
                .isEqualTo(first);
    }
}
