package keel.http.server;

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
    private static void assertError(Transport transport, Consumer<ServerOptions.Builder> options, String request,
                                    int status, String reasonPhrase, String reasonInBody) throws IOException {
        try (TestServer server = TestServer.start(router(), b -> {
            b.transport(transport);
            options.accept(b);
        }); RawClient client = server.raw()) {
            client.send(request);
            assertErrorThenEof(client, status, reasonPhrase, reasonInBody);
        }
    }

    private static void assertError(Transport transport, String request, int status, String reasonPhrase,
                                    String reasonInBody) throws IOException {
        assertError(transport, b -> { }, request, status, reasonPhrase, reasonInBody);
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
    @EnumSource(Transport.class)
    void answers400ForMalformedRequestLine(Transport transport) throws IOException {
        assertError(transport, "GARBAGE\r\nHost: x\r\n\r\n", 400, "Bad Request", "malformed request line");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForObsoleteLineFolding(Transport transport) throws IOException {
        assertError(transport, "GET / HTTP/1.1\r\nHost: x\r\nX-Folded: first\r\n  continued\r\n\r\n",
                400, "Bad Request", "obsolete line folding");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForSpaceBeforeColonInHeaderName(Transport transport) throws IOException {
        assertError(transport, "GET / HTTP/1.1\r\nHost : x\r\n\r\n", 400, "Bad Request", "header name");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForBareCarriageReturnInHead(Transport transport) throws IOException {
        assertError(transport, "GET / HTTP/1.1\r\nHost: x\rX-Evil: 1\r\n\r\n", 400, "Bad Request", "bare CR");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForControlCharacterInHeaderValue(Transport transport) throws IOException {
        assertError(transport, "GET / HTTP/1.1\r\nHost: x\r\nX-Nul: a\u0000b\r\n\r\n", 400, "Bad Request",
                "invalid character in header value");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForNonNumericContentLength(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForNegativeContentLength(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForTwoDifferentContentLengths(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForContentLengthListWithDifferentValues(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5, 6\r\n\r\nhello!",
                400, "Bad Request", "Content-Length");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForBothContentLengthAndTransferEncoding(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5\r\nhello\r\n0\r\n\r\n", 400, "Bad Request", "Transfer-Encoding");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400WhenHttp11RequestHasNoHost(Transport transport) throws IOException {
        assertError(transport, "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n", 400, "Bad Request", "Host");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForTwoHostHeaders(Transport transport) throws IOException {
        assertError(transport, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "Bad Request", "Host");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForInvalidChunkSize(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
                400, "Bad Request", "chunk size");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForChunkedListedTwice(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
                400, "Bad Request", "invalid Transfer-Encoding");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForTransferEncodingInHttp10Request(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                400, "Bad Request", "Transfer-Encoding in an HTTP/1.0 request");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400ForChunkSizeThatOverflows(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff1\r\nx\r\n",
                400, "Bad Request", "chunk size too large");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers400WhenChunkDataIsLongerThanDeclared(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
                400, "Bad Request", "chunk data longer than its declared size");
    }

    // ---- 408 ---------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers408ThenEofWhenHeadIsNotCompletedInTime(Transport transport) throws IOException {
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport)
                .headReadTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            client.send("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "); // half a head, then silence
            assertErrorThenEof(client, 408, "Request Timeout", "request head not received within 300 ms");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers408WhenHeadTricklesInSlowerThanTheHeadTimeout(Transport transport) throws Exception {
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport)
                .headReadTimeout(Duration.ofMillis(300)));
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
    @EnumSource(Transport.class)
    void headReadTimeoutRestartsAtFirstByteOfEachPipelinedRequest(Transport transport) throws Exception {
        assertHeadTimeoutRestartsPerRequest(transport, "/");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void headReadTimeoutRestartsAtFirstByteOfEachPipelinedRequestWithEventLoopHandler(Transport transport) throws Exception {
        assertHeadTimeoutRestartsPerRequest(transport, "/loop");
    }

    private static void assertHeadTimeoutRestartsPerRequest(Transport transport, String path) throws Exception {
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport)
                .headReadTimeout(Duration.ofMillis(600)));
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
    @EnumSource(Transport.class)
    void answers408ThenEofWhenBodyStallsForTheIdleTimeout(Transport transport) throws IOException {
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport)
                .idleTimeout(Duration.ofMillis(300)));
             RawClient client = server.raw()) {
            client.timeout(3_000);
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhalf!");
            assertErrorThenEof(client, 408, "Request Timeout", "request body stalled for 300 ms");
        }
    }

    // ---- 413 ---------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers413ForContentLengthOverMaxBodySize(Transport transport) throws IOException {
        assertError(transport, b -> b.maxBodySize(16),
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n01234567890123456",
                413, "Content Too Large", "larger than 16 bytes");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void accepts200ForContentLengthExactlyAtMaxBodySize(Transport transport) {
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport).maxBodySize(16));
             RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n0123456789abcdef");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("0123456789abcdef");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers413ForChunkedBodyOverMaxBodySize(Transport transport) throws IOException {
        assertError(transport, b -> b.maxBodySize(16),
                "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + "a\r\n0123456789\r\n" + "7\r\nabcdefg\r\n" + "0\r\n\r\n",
                413, "Content Too Large", "larger than 16 bytes");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers413WithFullResponseAndEofWhileClientIsStillUploadingTheBody(Transport transport) throws Exception {
        int length = 512 * 1024;
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport).maxBodySize(1_000));
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
    @EnumSource(Transport.class)
    void accepts200ForChunkedBodyExactlyAtMaxBodySize(Transport transport) {
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport).maxBodySize(16));
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
    @EnumSource(Transport.class)
    void answers414WhenRequestLineExceedsHeadLimit(Transport transport) throws IOException {
        String request = "GET /" + "a".repeat(9_000) + " HTTP/1.1\r\nHost: x\r\n\r\n";
        assertError(transport, request, 414, "URI Too Long", "request line longer than 8192 bytes");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers414WhenRequestLineExceedsHeadLimitAndNeverEnds(Transport transport) throws IOException {
        assertError(transport, "GET /" + "a".repeat(9_000), 414, "URI Too Long", "request line longer than");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers431WhenHeadExceedsLimit(Transport transport) throws IOException {
        String request = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(9_000) + "\r\n\r\n";
        assertError(transport, request, 431, "Request Header Fields Too Large", "request head larger than 8192 bytes");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers431WhenHeadExceedsConfiguredSmallLimit(Transport transport) throws IOException {
        String request = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(300) + "\r\n\r\n";
        assertError(transport, b -> b.maxHeadSize(256), request, 431, "Request Header Fields Too Large",
                "request head larger than 256 bytes");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers431WhenHeaderCountExceedsLimit(Transport transport) throws IOException {
        StringBuilder request = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 10; i++) request.append("X-H").append(i).append(": v\r\n");
        request.append("\r\n");
        assertError(transport, b -> b.maxHeaderCount(5), request.toString(), 431, "Request Header Fields Too Large",
                "more than 5 header fields");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void acceptsHeadOfExactlyMaxHeadSizeAndAnswers431OneByteOver(Transport transport) throws IOException {
        String prefix = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: ";
        String suffix = "\r\n\r\n";
        String exact = prefix + "p".repeat(256 - prefix.length() - suffix.length()) + suffix;
        assertThat(exact).hasSize(256);
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport).maxHeadSize(256));
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
    @EnumSource(Transport.class)
    void acceptsExactlyMaxHeaderCountFields(Transport transport) {
        StringBuilder request = new StringBuilder("GET / HTTP/1.1\r\nHost: x\r\n");
        for (int i = 0; i < 4; i++) request.append("X-H").append(i).append(": v\r\n");
        request.append("\r\n");
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport).maxHeaderCount(5));
             RawClient client = server.raw()) {
            client.send(request.toString());
            assertThat(client.read().status()).isEqualTo(200);
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers431WhenChunkedTrailerSectionExceedsHeadLimit(Transport transport) throws IOException {
        String request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n"
                + "X-Trailer: " + "t".repeat(9_000) + "\r\n\r\n";
        assertError(transport, request, 431, "Request Header Fields Too Large", "trailer section too large");
    }

    // ---- 417, 501, 505 -----------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers417ForExpectationOtherThan100Continue(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\nhi",
                417, "Expectation Failed", "unsupported expectation: teapot");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers501ForTransferEncodingGzipThenChunked(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                501, "Not Implemented", "unsupported transfer coding: gzip");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers501ForTransferEncodingOtherThanChunked(Transport transport) throws IOException {
        assertError(transport, "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n",
                501, "Not Implemented", "unsupported transfer coding: identity");
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers505ForHttp2RequestLine(Transport transport) throws IOException {
        assertError(transport, "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505, "HTTP Version Not Supported",
                "HTTP version not supported");
    }

    // ---- 503 ---------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answers503ThenEofPastTheConnectionLimit(Transport transport) throws IOException {
        try (TestServer server = TestServer.start(router(), b -> b.transport(transport).maxConnections(1));
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
    @EnumSource(Transport.class)
    void sendsFullErrorResponseAndEofEvenWithPipelinedGarbageAfterIt(Transport transport) throws IOException {
        StringBuilder garbage = new StringBuilder();
        for (int i = 0; garbage.length() < 200_000; i++) {
            garbage.append("GET /after-error-").append(i).append(" HTTP/1.1\r\nHost: x\r\n\r\n").append("\u0001\u00ff junk \r\n");
        }
        try (TestServer server = TestServer.start(transport, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n" + garbage);
            assertErrorThenEof(client, 400, "Bad Request", "invalid Content-Length");
        }
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void answersEarlierPipelinedRequestsBeforeTheErrorAndNothingAfterIt(Transport transport) throws IOException {
        try (TestServer server = TestServer.start(transport, router()); RawClient client = server.raw()) {
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
    @EnumSource(Transport.class)
    void sendsFullErrorResponseAndEofWhenClientKeepsSendingAfterTheError(Transport transport) throws Exception {
        try (TestServer server = TestServer.start(transport, router()); RawClient client = server.raw()) {
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
