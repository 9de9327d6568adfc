package keel.http.codec;

import keel.http.Request;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

/** A connection's parser reads a line sent again at its place in the last head as it read it then, and nothing else. */
class LastHeadTest {
    private static final Http1Parser.Limits LIMITS = new Http1Parser.Limits(8192, 100, 1 << 20);

    private final Http1Parser parser = new Http1Parser(LIMITS);

    /** A parser keeps heads from its connection's second on: each test below starts after a first request. */
    @BeforeEach
    void aConnectionThatSentARequest() {
        request("GET /before HTTP/1.1\r\nHost: before.example\r\n\r\n");
    }

    /** Parses every complete request of {@code input} on this test's parser (one connection). */
    private List<ParseResult> parse(String input) {
        return parse(parser, input);
    }

    /** Parses every complete request of {@code input} on {@code on} (one connection). */
    private static List<ParseResult> parse(Http1Parser on, String input) {
        ByteBuffer in = ByteBuffer.wrap(input.getBytes(ISO_8859_1));
        List<ParseResult> results = new ArrayList<>();
        while (true) {
            ParseResult result = on.parse(in);
            if (result instanceof ParseResult.NeedMore) return results;
            results.add(result);
            if (result instanceof ParseResult.Failed) return results;
        }
    }

    private Request request(String input) {
        return request(parser, input);
    }

    private static Request request(Http1Parser on, String input) {
        List<ParseResult> results = parse(on, input);
        assertThat(results).hasSize(1).first().isInstanceOf(ParseResult.Parsed.class);
        return ((ParseResult.Parsed) results.getFirst()).request();
    }

    @Test
    void aHeadSentAgainGivesTheSameStringsAndHeaders() {
        String head = "GET /orders?page=2 HTTP/1.1\r\nHost: shop.example\r\nUser-Agent: curl/8.5\r\nAccept: */*\r\n\r\n";
        Request first = request(head);
        Request second = request(head);

        assertThat(second.method()).isEqualTo("GET");
        assertThat(second.target()).isSameAs(first.target()).isEqualTo("/orders?page=2");
        assertThat(second.path()).isEqualTo("/orders");
        assertThat(second.rawQuery()).isEqualTo("page=2");
        assertThat(second.headers()).isSameAs(first.headers());
        assertThat(second.headers().get("user-agent")).isEqualTo("curl/8.5");
        assertThat(second).isNotSameAs(first);
    }

    @Test
    void aConnectionsFirstHeadIsNotKeptAndItsSecondIs() {
        String head = "GET /orders?page=2 HTTP/1.1\r\nHost: shop.example\r\nAccept: */*\r\n\r\n";
        Http1Parser fresh = new Http1Parser(LIMITS);
        Request first = request(fresh, head);
        Request second = request(fresh, head);
        Request third = request(fresh, head);

        assertReadAnewThenKept(first, second, third);
    }

    @Test
    void aTrimmedParserReadsTheNextHeadInFullAndKeepsItAgain() {
        String head = "GET /orders?page=2 HTTP/1.1\r\nHost: shop.example\r\nAccept: */*\r\n\r\n";
        Request first = request(head);
        parser.trim();
        Request second = request(head);
        Request third = request(head);

        assertReadAnewThenKept(first, second, third);
    }

    /** The same head three times: the second read in full (what the first read as, not the same objects), the third the second's. */
    private static void assertReadAnewThenKept(Request first, Request second, Request third) {
        assertThat(second.headers()).isNotSameAs(first.headers()).hasToString(first.headers().toString());
        assertThat(second.target()).isNotSameAs(first.target()).isEqualTo(first.target());
        assertThat(third.headers()).isSameAs(second.headers());
        assertThat(third.target()).isSameAs(second.target());
    }

    @Test
    void aTrimWhileAHeadArrivesChangesNothing() {
        Request first = request("GET /a HTTP/1.1\r\nHost: h\r\n\r\n");
        ByteBuffer in = ByteBuffer.wrap("GET /a HTTP/1.1\r\nHo".getBytes(ISO_8859_1));
        assertThat(parser.parse(in)).isInstanceOf(ParseResult.NeedMore.class);
        parser.trim(); // a head has begun: the parser is not between requests
        ByteBuffer all = ByteBuffer.wrap("GET /a HTTP/1.1\r\nHost: h\r\n\r\n".getBytes(ISO_8859_1));
        all.position(in.position());

        Request second = ((ParseResult.Parsed) parser.parse(all)).request();
        assertThat(second.headers()).isSameAs(first.headers());
    }

    @Test
    void onlyTheLinesThatChangedAreReadAnew() {
        Request first = request("GET /a HTTP/1.1\r\nHost: h\r\nCookie: s=1\r\nAccept: */*\r\n\r\n");
        Request second = request("GET /b HTTP/1.1\r\nHost: h\r\nCookie: s=2\r\nAccept: */*\r\n\r\n");

        assertThat(second.target()).isEqualTo("/b");
        assertThat(second.headers()).isNotSameAs(first.headers());
        assertThat(second.headers().get("cookie")).isEqualTo("s=2");
        assertThat(second.headers().value(0)).isSameAs(first.headers().value(0)); // Host: h
        assertThat(second.headers().value(2)).isSameAs(first.headers().value(2)); // Accept: */*
        assertThat(first.headers().get("cookie")).isEqualTo("s=1");

        // The head kept is now the second one: its lines come back, the first's do not.
        Request third = request("GET /a HTTP/1.1\r\nHost: h\r\nCookie: s=2\r\nAccept: */*\r\n\r\n");
        assertThat(third.target()).isEqualTo("/a");
        assertThat(third.headers().value(1)).isSameAs(second.headers().value(1));
    }

    @Test
    void linesAreComparedAtTheirPlaceOnly() {
        request("GET / HTTP/1.1\r\nHost: h\r\nAccept: a\r\nX-Trace: 1\r\n\r\n");
        Request moved = request("GET / HTTP/1.1\r\nAccept: a\r\nHost: h\r\n\r\n");
        assertThat(moved.headers().size()).isEqualTo(2);
        assertThat(moved.headers().name(0)).isEqualTo("Accept");
        assertThat(moved.headers().get("host")).isEqualTo("h");
        assertThat(moved.headers().get("x-trace")).isNull();

        Request longer = request("GET / HTTP/1.1\r\nAccept: a\r\nHost: h\r\nX-Extra: e\r\n\r\n");
        assertThat(longer.headers().size()).isEqualTo(3);
        assertThat(longer.headers().get("x-extra")).isEqualTo("e");
        Request shorter = request("GET / HTTP/1.1\r\nAccept: a\r\nHost: h\r\n\r\n");
        assertThat(shorter.headers().size()).isEqualTo(2);
        assertThat(shorter.headers()).isNotSameAs(longer.headers());
    }

    @Test
    void aLineThatDiffersOnlyInItsLineEndIsReadAnew() {
        Request crlf = request("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
        Request bareLf = request("GET / HTTP/1.1\nHost: h \n\n");
        assertThat(bareLf.headers().get("host")).isEqualTo("h");
        assertThat(bareLf.headers()).isNotSameAs(crlf.headers());
    }

    @Test
    void framingAndValidityStillFollowEachRequest() {
        request("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nab");
        List<ParseResult> results = parse("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\ncd"
                + "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz");
        assertThat(results).hasSize(2);
        assertThat(((ParseResult.Parsed) results.get(0)).request().body()).isEqualTo("cd".getBytes(ISO_8859_1));
        assertThat(((ParseResult.Parsed) results.get(1)).request().body()).isEqualTo("xyz".getBytes(ISO_8859_1));

        // A Host found valid before does not let an invalid one through.
        List<ParseResult> bad = parse("GET / HTTP/1.1\r\nHost: h/x\r\n\r\n");
        assertThat(bad).hasSize(1).first().isInstanceOf(ParseResult.Failed.class);
        assertThat(((ParseResult.Failed) bad.getFirst()).status()).isEqualTo(400);
    }

    @Test
    void aHeadTooLargeToKeepIsReadInFullEveryTime() {
        String big = "GET / HTTP/1.1\r\nHost: h\r\nCookie: " + "c".repeat(LastHead.MAX_BYTES) + "\r\n\r\n";
        Request first = request(big);
        Request second = request(big);
        assertThat(second.headers().get("cookie")).hasSize(LastHead.MAX_BYTES).isNotSameAs(first.headers().get("cookie"));

        StringBuilder many = new StringBuilder("GET / HTTP/1.1\r\nHost: h\r\n");
        for (int i = 0; i < LastHead.MAX_LINES + 5; i++) many.append("X-F").append(i).append(": ").append(i).append("\r\n");
        String manyFields = many.append("\r\n").toString();
        Request one = request(manyFields);
        Request two = request(manyFields);
        assertThat(two.headers().size()).isEqualTo(LastHead.MAX_LINES + 6);
        assertThat(two.headers().get("x-f36")).isEqualTo("36");
        assertThat(two.headers()).isNotSameAs(one.headers());

        // And a small head after them is kept again.
        Request small = request("GET /s HTTP/1.1\r\nHost: h\r\n\r\n");
        assertThat(request("GET /s HTTP/1.1\r\nHost: h\r\n\r\n").headers()).isSameAs(small.headers());
    }

    /**
     * One parser for a whole connection reads every request exactly as a fresh parser reads it alone:
     * heads made at random from a few lines each (some repeated, some moved, some invalid, with
     * either line end), 3 000 connections of up to 12 requests.
     */
    @Test
    void aConnectionReadsEveryRequestAsAFreshParserWould() {
        String[] requestLines = {"GET / HTTP/1.1", "GET /a?b=c HTTP/1.1", "POST /p HTTP/1.1", "OPTIONS * HTTP/1.1",
                "GET http://h/x HTTP/1.1", "GET / HTTP/1.0", "BREW / HTTP/1.1"};
        String[] fields = {"Accept: */*", "Accept:  */* ", "Cookie: a=1", "Cookie: a=12", "Cookie: a=2",
                "Connection: close", "Connection: keep-alive", "Content-Length: 3", "X-Empty:", "User-Agent: k/1"};
        String[] invalid = {"GET /bad path HTTP/1.1", "Host: bad/host", " folded", "Bad Name: x", "Expect: nothing",
                "Content-Length: x", "Host: h\rx"};
        Random random = new Random(20261128);
        int readAfterAnother = 0;
        for (int connection = 0; connection < 3_000; connection++) {
            Http1Parser kept = new Http1Parser(LIMITS);
            int requests = 1 + random.nextInt(12);
            for (int r = 0; r < requests; r++) {
                String lineEnd = random.nextInt(8) == 0 ? "\n" : "\r\n";
                StringBuilder head = new StringBuilder(requestLines[random.nextInt(requestLines.length)]).append(lineEnd);
                if (random.nextInt(10) != 0) head.append(random.nextInt(3) == 0 ? "Host: h2:80" : "Host: h").append(lineEnd);
                int count = random.nextInt(random.nextInt(4) == 0 ? 14 : 4); // past the 8 lines LastHead holds at first
                for (int f = 0; f < count; f++) head.append(fields[random.nextInt(fields.length)]).append(lineEnd);
                if (random.nextInt(20) == 0) head.append(invalid[random.nextInt(invalid.length)]).append(lineEnd);
                String input = head.append(lineEnd).append("xyz").toString();

                ParseResult alone = new Http1Parser(LIMITS).parse(ByteBuffer.wrap(input.getBytes(ISO_8859_1)));
                ParseResult onConnection = kept.parse(ByteBuffer.wrap(input.getBytes(ISO_8859_1)));
                assertThat(describe(onConnection)).as("connection %d, request %d: %s", connection, r, input)
                        .isEqualTo(describe(alone));
                if (!(onConnection instanceof ParseResult.Parsed)) break; // a failed parser stays failed
                if (r > 0) readAfterAnother++;
            }
        }
        assertThat(readAfterAnother).as("requests read after another on their connection").isGreaterThan(6_000);
    }

    private static String describe(ParseResult result) {
        return switch (result) {
            case ParseResult.Parsed parsed -> {
                Request request = parsed.request();
                yield request.method() + " " + request.target() + " " + request.isHttp11() + " " + request.keepAlive() + " "
                        + request.headers() + " " + new String(request.body(), ISO_8859_1);
            }
            case ParseResult.Failed failed -> failed.status() + " " + failed.reason();
            default -> result.toString();
        };
    }
}
