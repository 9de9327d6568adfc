package keel.http.server;

import keel.core.log.LogFormat;
import keel.http.Execution;
import keel.http.Response;
import keel.http.accesslog.LineSink;
import keel.http.accesslog.RequestIds;
import keel.http.router.Router;
import keel.http.ws.WsEndpoint;
import keel.http.ws.WsListener;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The access log over real sockets on every wire: one line per request with every field, in text and
 * JSON; the request id taken from the client or made, and echoed; a full queue that drops and counts
 * instead of holding a connection.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AccessLogTest {
    private static final Pattern TEXT = Pattern.compile("time=(\\S+) event=access request_id=(\\S+) method=(\\S+) target=(\\S+)"
            + " status=(\\d+) bytes_in=(\\d+) bytes_out=(\\d+) duration_us=(\\d+) execution=(\\S+) loop=(\\S+)");
    private static final Pattern TIME = Pattern.compile("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
    private static final Pattern MADE_ID = Pattern.compile("[0-9a-f]{12}-[0-9a-f]+");
    private static final String ECHO = "POST /echo?q=\"a\\b\" HTTP/1.1\r\nHost: x\r\nX-Request-Id: abc-123\r\nContent-Length: 5\r\n"
            + "Connection: close\r\n\r\nhello";

    /** One line of the text format, by field. */
    private record Line(String time, String id, String method, String target, int status, long bytesIn, long bytesOut,
                        long durationMicros, String execution, String loop) {
        static Line parse(String text) {
            Matcher m = TEXT.matcher(text);
            assertThat(m.matches()).as(text).isTrue();
            return new Line(m.group(1), m.group(2), m.group(3), m.group(4), Integer.parseInt(m.group(5)), Long.parseLong(m.group(6)),
                    Long.parseLong(m.group(7)), Long.parseLong(m.group(8)), m.group(9), m.group(10));
        }
    }

    private static Router routes() {
        Router router = new Router()
                .post("/echo", request -> Response.bytes(200, "text/plain", request.body()))
                .get("/stream", request -> Response.stream(200, "text/plain", subscriber -> {
                    SubmissionPublisher<byte[]> items = new SubmissionPublisher<>();
                    items.subscribe(subscriber);
                    for (String item : List.of("one", "two", "three")) items.submit(item.getBytes());
                    items.close();
                }))
                .ws("/ws", WsEndpoint.of(new WsListener() {
                }));
        router.with(Execution.EVENT_LOOP).get("/loop", request -> Response.ok("loop"));
        router.with(Execution.WORKER_POOL).get("/worker", request -> Response.ok("worker"));
        router.with(Execution.VIRTUAL_THREAD).get("/virtual", request -> Response.ok("virtual"));
        return router;
    }

    private static TestServer start(Wire wire, LineSink sink) {
        return TestServer.startWithAccessLog(wire, routes(), sink, options -> { });
    }

    /** A whole response and the one access line it made. */
    private record Exchanged(String response, Line line) {
    }

    /**
     * Starts a server on {@code wire} and sends {@code request} (one that ends the connection) on a raw
     * connection; returns the whole response and the access line, checking that it is the only one.
     */
    private static Exchanged exchange(Wire wire, String request) throws Exception {
        LineSink sink = LineSink.open();
        Exchanged exchanged;
        try (TestServer server = start(wire, sink); RawClient client = server.raw()) {
            String response = client.send(request).readToEnd();
            exchanged = new Exchanged(response, Line.parse(sink.next()));
        }
        assertThat(sink.waiting()).as("one line per request").isZero();
        return exchanged;
    }

    private static String loopOf(Wire wire) {
        return wire.transport() == Transport.NIO ? "keel-loop-\\d+" : "-";
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aRequestGetsOneTextLineWithEveryField(Wire wire) throws Exception {
        Exchanged exchanged = exchange(wire, ECHO);
        String response = exchanged.response();
        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").contains("\r\nX-Request-Id: abc-123\r\n").endsWith("\r\n\r\nhello");

        Line line = exchanged.line();
        assertThat(line.time()).matches(TIME);
        assertThat(Duration.between(Instant.parse(line.time()), Instant.now()).abs()).isLessThan(Duration.ofMinutes(1));
        assertThat(line.id()).isEqualTo("abc-123");
        assertThat(line.method()).isEqualTo("POST");
        assertThat(line.target()).isEqualTo("/echo?q=\"a\\b\"");
        assertThat(line.status()).isEqualTo(200);
        assertThat(line.bytesIn()).as("the request body").isEqualTo(5);
        assertThat(line.bytesOut()).as("the whole response, head and body").isEqualTo(response.length());
        assertThat(line.durationMicros()).isBetween(0L, 10_000_000L);
        assertThat(line.execution()).isEqualTo(wire.transport() == Transport.NIO ? "virtual-thread" : "blocking");
        assertThat(line.loop()).matches(loopOf(wire));
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aRequestGetsOneJsonLineWithEveryField(Wire wire) throws Exception {
        LineSink sink = LineSink.open();
        try (TestServer server = TestServer.startWithAccessLog(wire, routes(), sink, options -> options.logFormat(LogFormat.JSON));
             RawClient client = server.raw()) {
            String response = client.send(ECHO).readToEnd();
            String loop = wire.transport() == Transport.NIO ? "\"keel-loop-\\d+\"" : "null";
            String execution = wire.transport() == Transport.NIO ? "virtual-thread" : "blocking";
            assertThat(sink.next()).matches("\\{\"time\":\"" + TIME + "\",\"level\":\"INFO\",\"logger\":\"keel.access\",\"event\":\"access\","
                    + Pattern.quote("\"request_id\":\"abc-123\",\"method\":\"POST\",\"target\":\"/echo?q=\\\"a\\\\b\\\"\",\"status\":200,"
                    + "\"bytes_in\":5,\"bytes_out\":" + response.length() + ",")
                    + "\"duration_us\":\\d+," + Pattern.quote("\"execution\":\"" + execution + "\",\"loop\":") + loop + "}");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "BLOCKING"})
    void theLineSaysWhereTheHandlerRan(Wire wire) throws Exception {
        LineSink sink = LineSink.open();
        try (TestServer server = start(wire, sink)) {
            HttpClient client = server.httpClientBuilder().build();
            for (String path : List.of("/loop", "/worker", "/virtual", "/missing")) {
                client.send(HttpRequest.newBuilder(server.uri(path)).build(), HttpResponse.BodyHandlers.discarding());
            }
            Map<String, String> executions = new HashMap<>();
            for (int i = 0; i < 4; i++) {
                Line line = Line.parse(sink.next());
                executions.put(line.target(), line.execution());
            }
            assertThat(executions).isEqualTo(wire.transport() == Transport.NIO
                    ? Map.of("/loop", "event-loop", "/worker", "worker-pool", "/virtual", "virtual-thread",
                            "/missing", "event-loop") // the router answers 404 on the loop
                    : Map.of("/loop", "blocking", "/worker", "blocking", "/virtual", "blocking", "/missing", "blocking"));
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void requestsWithoutAnIdGetAUniqueOneEchoedInTheResponse(Wire wire) throws Exception {
        LineSink sink = LineSink.open();
        try (TestServer server = start(wire, sink)) {
            HttpClient client = server.httpClientBuilder().build();
            Set<String> echoed = new HashSet<>();
            for (int i = 0; i < 50; i++) {
                HttpResponse<Void> response = client.send(HttpRequest.newBuilder(server.uri("/loop")).build(), HttpResponse.BodyHandlers.discarding());
                echoed.add(response.headers().firstValue("X-Request-Id").orElseThrow());
            }
            assertThat(echoed).as("unique").hasSize(50).allMatch(id -> MADE_ID.matcher(id).matches());
            Set<String> logged = new HashSet<>();
            for (int i = 0; i < 50; i++) logged.add(Line.parse(sink.next()).id());
            assertThat(logged).as("each line has its response's id").isEqualTo(echoed);
        }
    }

    /**
     * A burst of pipelined requests fills a loop's block of lines several times over (each full block
     * goes to the writer whole, and the loop goes on in an array the writer gave back): every line
     * arrives once, whole, in the order of its requests.
     */
    @Test
    void aPipelinedBurstLogsEveryRequestOnceAndInOrder() throws Exception {
        int requests = 3_000; // about 600 KB of lines: nine 64 KiB blocks
        StringBuilder burst = new StringBuilder();
        for (int i = 0; i < requests; i++) {
            burst.append("GET /loop?n=").append(i).append(" HTTP/1.1\r\nHost: x\r\nX-Request-Id: burst-").append(i)
                    .append(i == requests - 1 ? "\r\nConnection: close" : "").append("\r\n\r\n");
        }
        LineSink sink = LineSink.open();
        try (TestServer server = start(Wire.NIO, sink); RawClient client = server.raw()) {
            String responses = client.send(burst.toString()).readToEnd();
            assertThat(responses.split("HTTP/1.1 200 OK", -1)).hasSize(requests + 1);
            for (int i = 0; i < requests; i++) {
                Line line = Line.parse(sink.next());
                assertThat(line.id()).isEqualTo("burst-" + i);
                assertThat(line.target()).isEqualTo("/loop?n=" + i);
            }
        }
        assertThat(sink.waiting()).as("one line per request").isZero();
    }

    /** The line's end comes after the handler whether or not an observer read the clock as it answered (then on the loop). */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void theDurationCoversTheHandlerOnTheLoopOrOffIt(boolean observed) throws Exception {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).get("/slow-loop", request -> sleepThenOk(30));
        router.with(Execution.WORKER_POOL).get("/slow-worker", request -> sleepThenOk(30));
        ServerObserver observer = observed ? new ServerObserver() {
        } : ServerObserver.NONE;
        LineSink sink = LineSink.open();
        try (TestServer server = TestServer.startWithAccessLog(Wire.NIO, router, sink, observer, options -> { });
             RawClient client = server.raw()) {
            for (String path : List.of("/slow-loop", "/slow-worker")) {
                Instant before = Instant.now();
                assertThat(client.send(RawClient.get(path)).read().status()).isEqualTo(200);
                Line line = Line.parse(sink.next());
                assertThat(line.target()).isEqualTo(path);
                assertThat(line.durationMicros()).as(path).isBetween(30_000L, 10_000_000L);
                assertThat(Instant.parse(line.time())).as(path).isAfterOrEqualTo(before.plusMillis(29).truncatedTo(ChronoUnit.MILLIS));
            }
        }
    }

    private static Response sleepThenOk(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Response.ok("slept");
    }

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "BLOCKING"})
    void anIdThatIsNoSaneTokenIsReplaced(Wire wire) throws Exception {
        LineSink sink = LineSink.open();
        try (TestServer server = start(wire, sink); RawClient client = server.raw()) {
            for (String given : List.of("x".repeat(RequestIds.MAX_LENGTH + 1), "two words", "caf\u00e9")) {
                RawClient.RawResponse response = client.send("GET /loop HTTP/1.1\r\nHost: x\r\nX-Request-Id: " + given + "\r\n\r\n").read();
                String id = Line.parse(sink.next()).id();
                assertThat(id).matches(MADE_ID);
                assertThat(response.header("X-Request-Id")).isEqualTo(id);
            }
            String longest = "y".repeat(RequestIds.MAX_LENGTH);
            assertThat(client.send("GET /loop HTTP/1.1\r\nHost: x\r\nX-Request-Id: " + longest + "\r\n\r\n").read().header("X-Request-Id"))
                    .isEqualTo(longest);
            assertThat(Line.parse(sink.next()).id()).isEqualTo(longest);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aFullQueueDropsAndCountsLinesAndNeverHoldsAConnection(Wire wire) throws Exception {
        LineSink sink = LineSink.held();
        try (TestServer server = TestServer.startWithAccessLog(wire, routes(), sink, options -> options.accessLogQueue(1));
             RawClient client = server.raw()) {
            assertThat(client.send(RawClient.get("/loop")).read().status()).isEqualTo(200);
            sink.awaitWriting(); // the writer holds line 1 in its write; the queue is empty
            for (int i = 2; i <= 4; i++) {
                // Each answer comes while the writer is stuck: line 2 waits in the queue, lines 3 to 5 are dropped.
                assertThat(client.send(RawClient.get("/loop?n=" + i)).read().status()).isEqualTo(200);
            }
            // The last request closes the connection: the server offers its line before it closes (a blocking
            // thread offers a line once the response is written, so the answer alone may arrive first).
            assertThat(client.send("GET /loop?n=5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").readToEnd()).startsWith("HTTP/1.1 200 ");
            assertThat(server.server().accessLogDropped()).isEqualTo(3);
            sink.release();
            assertThat(Line.parse(sink.next()).target()).isEqualTo("/loop");
            assertThat(Line.parse(sink.next()).target()).isEqualTo("/loop?n=2");
        }
        assertThat(sink.waiting()).isZero();
    }

    @Test
    void linesASinkFailsToTakeAreCountedAsDropped() throws Exception {
        OutputStream failing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException("No space left on device");
            }
        };
        TestServer server = TestServer.startWithAccessLog(Wire.NIO, routes(), failing, options -> { });
        try (server) {
            HttpClient client = HttpClient.newHttpClient();
            for (int i = 0; i < 3; i++) {
                assertThat(client.send(HttpRequest.newBuilder(server.uri("/loop")).build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode()).isEqualTo(200);
            }
        } // the log writes what is queued before the stop returns
        assertThat(server.server().accessLogDropped()).isEqualTo(3);
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void anUnreadableRequestIsLoggedWithoutMethodOrTarget(Wire wire) throws Exception {
        Exchanged exchanged = exchange(wire, "GET / HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n");
        Line line = exchanged.line();
        assertThat(exchanged.response()).startsWith("HTTP/1.1 400 ").contains("\r\nX-Request-Id: " + line.id() + "\r\n");
        assertThat(line.id()).matches(MADE_ID);
        assertThat(List.of(line.method(), line.target(), line.status(), line.bytesIn(), line.bytesOut(), line.durationMicros()))
                .containsExactly("-", "-", 400, 0L, (long) exchanged.response().length(), 0L);
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aStreamedResponseCountsEveryChunk(Wire wire) throws Exception {
        Exchanged exchanged = exchange(wire, "GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assertThat(exchanged.response()).contains("Transfer-Encoding: chunked").endsWith("5\r\nthree\r\n0\r\n\r\n");
        assertThat(exchanged.line().status()).isEqualTo(200);
        assertThat(exchanged.line().bytesOut()).isEqualTo(exchanged.response().length());
    }

    @Test
    void aWebSocketUpgradeIsLoggedWith101() throws Exception {
        LineSink sink = LineSink.open();
        try (TestServer server = start(Wire.NIO, sink)) {
            WebSocket socket = HttpClient.newHttpClient().newWebSocketBuilder()
                    .buildAsync(URI.create("ws://127.0.0.1:" + server.port() + "/ws"), new WebSocket.Listener() {
                    }).get(5, TimeUnit.SECONDS);
            Line line = Line.parse(sink.next());
            assertThat(List.of(line.method(), line.target(), line.status(), line.execution())).containsExactly("GET", "/ws", 101, "event-loop");
            assertThat(line.bytesOut()).isPositive();
            socket.abort();
        }
    }

    @ParameterizedTest(name = "dropBehind={0}")
    @ValueSource(booleans = {false, true})
    void linesAreAppendedToTheAccessLogFile(boolean dropBehind, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("access.log");
        Files.writeString(file, "earlier line\n");
        try (TestServer server = TestServer.start(routes(), options -> options.accessLog(true).accessLogFile(file).accessLogFileDropBehind(dropBehind))) {
            HttpClient client = HttpClient.newHttpClient();
            for (int i = 0; i < 300; i++) client.send(HttpRequest.newBuilder(server.uri("/loop?i=" + i)).build(), HttpResponse.BodyHandlers.discarding());
        } // stopping flushes the log
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(301).first().isEqualTo("earlier line");
        assertThat(lines.subList(1, 301)).extracting(text -> Line.parse(text).target())
                .containsExactlyElementsOf(IntStream.range(0, 300).mapToObj(i -> "/loop?i=" + i).toList());
    }

    @Test
    void aNamedPipeAsTheAccessLogFileGetsEveryLine(@TempDir Path dir) throws Exception {
        Path fifo = dir.resolve("access.fifo");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start().waitFor()).isZero();
        CompletableFuture<List<String>> read = CompletableFuture.supplyAsync(() -> {
            try {
                return Files.readAllLines(fifo); // until the server closes its end
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
        try (TestServer server = TestServer.start(routes(), options -> options.accessLog(true).accessLogFile(fifo))) {
            HttpClient client = HttpClient.newHttpClient();
            for (int i = 0; i < 3; i++) client.send(HttpRequest.newBuilder(server.uri("/loop?i=" + i)).build(), HttpResponse.BodyHandlers.discarding());
        }
        assertThat(read.get(10, TimeUnit.SECONDS)).extracting(text -> Line.parse(text).target()).containsExactly("/loop?i=0", "/loop?i=1", "/loop?i=2");
    }

    @Test
    void anAccessLogFileThatCannotBeOpenedStopsTheStart(@TempDir Path dir) {
        Path file = dir.resolve("missing-dir").resolve("access.log");
        assertThatThrownBy(() -> TestServer.start(routes(), options -> options.accessLog(true).accessLogFile(file)))
                .hasMessageContaining("log.access-file").hasMessageContaining(file.toString());
    }

    @Test
    void theServerStopsItsWriterThread() throws Exception {
        LineSink sink = LineSink.open();
        try (TestServer server = start(Wire.NIO, sink)) {
            assertThat(accessLogThreads()).isEqualTo(1);
        }
        assertThat(accessLogThreads()).isZero();
    }

    private static long accessLogThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("keel-access-log")).count();
    }
}
