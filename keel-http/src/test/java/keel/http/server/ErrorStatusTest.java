package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every error status the server produces by itself, over a raw socket: exact status, a text/plain body
 * naming the reason, {@code Connection: close}, and a clean EOF (never a reset) afterwards.
 */
class ErrorStatusTest {

    private static Router router() {
        Router router = new Router()
                .get("/", req -> Response.ok("root"))
                .post("/echo", req -> Response.bytes(200, "application/octet-stream", req.body()));
        router.with(Execution.EVENT_LOOP).get("/loop", req -> Response.ok("loop"));
        return router;
    }

    /** Sends {@code request} on a fresh connection and checks the error response and the clean close. */
    private static void assertError(Wire wire, Consumer<ServerOptions.Builder> options, String request,
                                    int status, String reasonPhrase, String reasonInBody) throws IOException {
        try (TestServer server = TestServer.start(wire, router(), options); RawClient client = server.raw()) {
            client.send(request);
            assertErrorThenEof(client, status, reasonPhrase, reasonInBody);
        }
    }

    private static void assertError(Wire wire, String request, int status, String reasonPhrase,
                                    String reasonInBody) throws IOException {
        assertError(wire, b -> { }, request, status, reasonPhrase, reasonInBody);
    }

    static void assertErrorThenEof(RawClient client, int status, String reasonPhrase, String reasonInBody)
            throws IOException {
        RawClient.RawResponse response = client.read();
        assertThat(response.statusLine()).isEqualTo("HTTP/1.1 " + status + " " + reasonPhrase);
        assertThat(response.status()).isEqualTo(status);
        assertThat(response.header("Connection")).isEqualTo("close");
        assertThat(response.header("Content-Type")).startsWith("text/plain");
        assertThat(response.header("Content-Length")).isEqualTo(Integer.toString(response.body().length()));
        assertThat(response.header("Date")).isNotBlank();
        assertThat(response.body()).contains(reasonInBody).endsWith("\n");
        assertThat(client.closedByServer()).as("clean EOF after the error response").isTrue();
    }

    // ---- 400 ---------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForMalformedRequestLine(Wire wire) throws IOException {
        assertError(wire, "GARBAGE\r\nHost: x\r\n\r\n", 400, "Bad Request", "malformed request line");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForObsoleteLineFolding(Wire wire) throws IOException {
        assertError(wire, "GET / HTTP/1.1\r\nHost: x\r\nX-Folded: first\r\n  continued\r\n\r\n",
                400, "Bad Request", "obsolete line folding");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForSpaceBeforeColonInHeaderName(Wire wire) throws IOException {
        assertError(wire, "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, "Bad Request", "header name");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForBareCarriageReturnInHead(Wire wire) throws IOException {
        assertError(wire, "GET / HTTP/1.1\r\nHost: x\rX-Evil: 1\r\n\r\n", 400, "Bad Request", "bare CR");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForControlCharacterInHeaderValue(Wire wire) throws IOException {
        assertError(wire, "GET / HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n", 400, "Bad Request",
                "invalid character in header value");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForNonNumericContentLength(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForNegativeContentLength(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForTwoDifferentContentLengths(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForContentLengthListWithDifferentValues(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello!",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForBothContentLengthAndTransferEncoding(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n", 400, "Bad Request", "Transfer-Encoding");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400WhenHttp11RequestHasNoHost(Wire wire) throws IOException {
        assertError(wire, "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400, "Bad Request", "Host");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForTwoHostHeaders(Wire wire) throws IOException {
        assertError(wire, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "Bad Request", "Host");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForInvalidChunkSize(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
                400, "Bad Request", "chunk size");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForChunkedListedTwice(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
                400, "Bad Request", "invalid Transfer-Encoding");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForTransferEncodingInHttp10Request(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                400, "Bad Request", "Transfer-Encoding in an HTTP/1.0 request");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400ForChunkSizeThatOverflows(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\nx\r\n",
                400, "Bad Request", "chunk size too large");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers400WhenChunkDataIsLongerThanDeclared(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
                400, "Bad Request", "chunk data longer than its declared size");
    }

    // ---- 408 ---------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers408ThenEofWhenHeadIsNotCompletedInTime(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router(), b -> b.headReadTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "); // half a head, then silence
            assertErrorThenEof(client, 408, "Request Timeout", "request head not received within 300 ms");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers408WhenHeadTricklesInSlowerThanTheHeadTimeout(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.headReadTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            // Each byte arrives well within the timeout, but the head as a whole does not: one deadline per head.
            String head = "GET / HTTP/1.1\r\nHost: x\r\n";
            long start = System.nanoTime();
            for (int i = 0; i < head.length() && System.nanoTime() - start < 1_000_000_000L; i++) {
                client.send(head.substring(i, i + 1));
                Thread.sleep(25);
            }
            assertErrorThenEof(client, 408, "Request Timeout", "request head not received");
        }
    }

    /** Each pipelined request gets the full head-read timeout from its own first byte. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void headReadTimeoutRestartsAtFirstByteOfEachPipelinedRequest(Wire wire) throws Exception {
        assertHeadTimeoutRestartsPerRequest(wire, "/");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void headReadTimeoutRestartsAtFirstByteOfEachPipelinedRequestWithEventLoopHandler(Wire wire) throws Exception {
        assertHeadTimeoutRestartsPerRequest(wire, "/loop");
    }

    private static void assertHeadTimeoutRestartsPerRequest(Wire wire, String path) throws Exception {
        try (TestServer server = TestServer.start(wire, router(), b -> b.headReadTimeout(Duration.ofMillis(600)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            client.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n");        // t=0: first head starts
            Thread.sleep(450);
            client.send("\r\nGET " + path + " HTTP/1.1\r\n");                 // t=450: first head ends, second starts
            RawClient.RawResponse first = client.read();
            assertThat(first.status()).isEqualTo(200);
            Thread.sleep(400);
            client.send("Host: x\r\n\r\n");                                  // t=850: second head ends, 400 ms after it began
            RawClient.RawResponse second = client.read();
            assertThat(second.status()).as("second head took 400 ms of its 600 ms: %s", second.body()).isEqualTo(200);
            assertThat(second.header("Connection")).isNull();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers408ThenEofWhenBodyStallsForTheIdleTimeout(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router(), b -> b.idleTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf!");
            assertErrorThenEof(client, 408, "Request Timeout", "request body stalled for 300 ms");
        }
    }

    // ---- 413 ---------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers413ForContentLengthOverMaxBodySize(Wire wire) throws IOException {
        assertError(wire, b -> b.maxBodySize(16),
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n01234567890123456",
                413, "Content Too Large", "larger than 16 bytes");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void accepts200ForContentLengthExactlyAtMaxBodySize(Wire wire) {
        try (TestServer server = TestServer.start(wire, router(), b -> b.maxBodySize(16));
             RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n0123456789abcdef");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("0123456789abcdef");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers413ForChunkedBodyOverMaxBodySize(Wire wire) throws IOException {
        assertError(wire, b -> b.maxBodySize(16),
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "a\r\n0123456789\r\n" + "7\r\nabcdefg\r\n" + "0\r\n\r\n",
                413, "Content Too Large", "larger than 16 bytes");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers413WithFullResponseAndEofWhileClientIsStillUploadingTheBody(Wire wire) throws Exception {
        int length = 512 * 1024;
        try (TestServer server = TestServer.start(wire, router(), b -> b.maxBodySize(1_000));
             RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + length + "\r\n\r\n");
            CompletableFuture<Void> upload = CompletableFuture.runAsync(() -> {
                byte[] piece = new byte[16 * 1024];
                Arrays.fill(piece, (byte) 'u');
                for (int sent = 0; sent < length; sent += piece.length) client.send(piece);
            });
            assertErrorThenEof(client, 413, "Content Too Large", "request body larger than 1000 bytes");
            upload.get(5, TimeUnit.SECONDS); // the server drained it all while lingering
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void accepts200ForChunkedBodyExactlyAtMaxBodySize(Wire wire) {
        try (TestServer server = TestServer.start(wire, router(), b -> b.maxBodySize(16));
             RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "a\r\n0123456789\r\n6\r\nabcdef\r\n0\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("0123456789abcdef");
        }
    }

    // ---- 414 and 431 -------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers414WhenRequestLineExceedsHeadLimit(Wire wire) throws IOException {
        String request = "GET /" + "a".repeat(9_000) + " HTTP/1.1\r\nHost: x\r\n\r\n";
        assertError(wire, request, 414, "URI Too Long", "request line longer than 8192 bytes");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers414WhenRequestLineExceedsHeadLimitAndNeverEnds(Wire wire) throws IOException {
        assertError(wire, "GET /" + "a".repeat(9_000), 414, "URI Too Long", "request line longer than");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers431WhenHeadExceedsLimit(Wire wire) throws IOException {
        String request = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(9_000) + "\r\n\r\n";
        assertError(wire, request, 431, "Request Header Fields Too Large", "request head larger than 8192 bytes");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers431WhenHeadExceedsConfiguredSmallLimit(Wire wire) throws IOException {
        String request = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(300) + "\r\n\r\n";
        assertError(wire, b -> b.maxHeadSize(256), request, 431, "Request Header Fields Too Large",
                "request head larger than 256 bytes");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers431WhenHeaderCountExceedsLimit(Wire wire) throws IOException {
        StringBuilder request = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 10; i++) request.append("X-H").append(i).append(": v\r\n");
        request.append("\r\n");
        assertError(wire, b -> b.maxHeaderCount(5), request.toString(), 431, "Request Header Fields Too Large",
                "more than 5 header fields");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void acceptsHeadOfExactlyMaxHeadSizeAndAnswers431OneByteOver(Wire wire) throws IOException {
        String prefix = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ";
        String suffix = "\r\n\r\n";
        String exact = prefix + "p".repeat(256 - prefix.length() - suffix.length()) + suffix;
        assertThat(exact).hasSize(256);
        try (TestServer server = TestServer.start(wire, router(), b -> b.maxHeadSize(256));
             RawClient client = server.raw()) {
            client.send(exact);
            RawClient.RawResponse ok = client.read();
            assertThat(ok.status()).isEqualTo(200);
            assertThat(ok.body()).isEqualTo("root");
            client.send(prefix + "p".repeat(257 - prefix.length() - suffix.length()) + suffix);
            assertErrorThenEof(client, 431, "Request Header Fields Too Large", "request head larger than 256 bytes");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void acceptsExactlyMaxHeaderCountFields(Wire wire) {
        StringBuilder request = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 4; i++) request.append("X-H").append(i).append(": v\r\n");
        request.append("\r\n");
        try (TestServer server = TestServer.start(wire, router(), b -> b.maxHeaderCount(5));
             RawClient client = server.raw()) {
            client.send(request.toString());
            assertThat(client.read().status()).isEqualTo(200);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers431WhenChunkedTrailerSectionExceedsHeadLimit(Wire wire) throws IOException {
        String request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n"
                + "X-Trailer: " + "t".repeat(9_000) + "\r\n\r\n";
        assertError(wire, request, 431, "Request Header Fields Too Large", "trailer section too large");
    }

    // ---- 417, 501, 505 -----------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers417ForExpectationOtherThan100Continue(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\nhi",
                417, "Expectation Failed", "unsupported expectation: teapot");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers501ForTransferEncodingGzipThenChunked(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                501, "Not Implemented", "unsupported transfer coding: gzip");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers501ForTransferEncodingOtherThanChunked(Wire wire) throws IOException {
        assertError(wire, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n",
                501, "Not Implemented", "unsupported transfer coding: identity");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers505ForHttp2RequestLine(Wire wire) throws IOException {
        assertError(wire, "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505, "HTTP Version Not Supported",
                "HTTP version not supported");
    }

    // ---- 503 ---------------------------------------------------------------------------------

    // Clear text only: over TLS a connection past the limit is closed before any handshake, so there
    // is no 503 to read; ServerTlsTest checks that close on both transports.
    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "BLOCKING"})
    void answers503ThenEofPastTheConnectionLimit(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router(), b -> b.maxConnections(1));
             RawClient first = server.raw()) {
            first.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(first.read().status()).isEqualTo(200);
            try (RawClient second = server.raw()) {
                second.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
                RawClient.RawResponse refused = second.read();
                assertThat(refused.header("Retry-After")).isEqualTo("1");
                assertThat(refused.statusLine()).isEqualTo("HTTP/1.1 503 Service Unavailable");
                assertThat(refused.body()).contains("connection limit reached (1)");
                assertThat(refused.header("Connection")).isEqualTo("close");
                assertThat(second.closedByServer()).isTrue();
            }
            first.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            assertThat(first.read().body()).as("the admitted connection is unaffected").isEqualTo("root");
        }
    }

    // ---- errors inside a pipelined burst ------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void sendsFullErrorResponseAndEofEvenWithPipelinedGarbageAfterIt(Wire wire) throws IOException {
        StringBuilder garbage = new StringBuilder();
        for (int i = 0; garbage.length() < 200_000; i++) {
            garbage.append("GET /after-error-").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n").append("\u0001\u00ff junk \r\n");
        }
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n" + garbage);
            assertErrorThenEof(client, 400, "Bad Request", "invalid Content-Length");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersEarlierPipelinedRequestsBeforeTheErrorAndNothingAfterIt(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "GET / HTTP/2.0\r\nHost: x\r\n\r\n"
                    + "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
            for (int i = 0; i < 2; i++) {
                RawClient.RawResponse ok = client.read();
                assertThat(ok.status()).isEqualTo(200);
                assertThat(ok.body()).isEqualTo("root");
                assertThat(ok.header("Connection")).isNull();
            }
            assertErrorThenEof(client, 505, "HTTP Version Not Supported", "HTTP version not supported");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void sendsFullErrorResponseAndEofWhenClientKeepsSendingAfterTheError(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET / HTTP/1.1\r\nHost : x\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.header("Connection")).isEqualTo("close");
            // The server is lingering: more bytes are read and dropped, and the close stays clean.
            client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n".repeat(50));
            assertThat(client.closedByServer()).isTrue();
        }
    }
}
