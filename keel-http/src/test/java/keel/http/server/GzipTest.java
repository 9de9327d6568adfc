package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.codec.ZipBomb;
import keel.http.router.Router;
import keel.http.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * gzip through real sockets, on every wire: responses compressed for clients that ask (the JDK client,
 * curl, raw bytes), left alone otherwise, streamed item by item; request bodies decoded, a zip bomb
 * answered 413 within a bounded amount of memory, other codings 415.
 */
class GzipTest {
    private static final byte[] TEXT = ZipBomb.text(20_000);
    private static final byte[] RANDOM = new byte[20_000];
    /** 100 MiB of zeros in about 100 KiB, against the default 10 MiB body limit. */
    private static final byte[] BOMB = ZipBomb.zeros(100);
    private static final long MAX_BODY = ServerOptions.defaults().limits().maxBodySize();
    /** A route limit that TEXT gzipped fits under and TEXT decoded does not. */
    private static final int SMALL_LIMIT = 5_000;

    static {
        new Random(1).nextBytes(RANDOM);
    }

    /** Bytes the last decoding handler allocated on its thread (-1 until one ran). */
    private final AtomicLong decodeAllocation = new AtomicLong(-1);
    private final ControlledPublisher stream = new ControlledPublisher();

    private Router router() {
        Router router = new Router()
                .get("/text", req -> Response.bytes(200, "text/plain; charset=utf-8", TEXT))
                .get("/small", req -> Response.ok("short"))
                .get("/png", req -> Response.bytes(200, "image/png", TEXT))
                .get("/random", req -> Response.bytes(200, "text/plain", RANDOM))
                .get("/stream", req -> Response.stream(200, "application/json", stream))
                .post("/echo", req -> Response.bytes(200, "application/octet-stream", req.body())
                        .header("X-Seen-Encoding", String.valueOf(req.header("Content-Encoding"))))
                .post("/echo/text", req -> Response.ok(req.bodyText()));
        router.maxBodySize(SMALL_LIMIT).post("/small/bytes", req -> Response.bytes(200, "text/plain", req.body()))
                .post("/small/text", req -> Response.ok(req.bodyText()));
        router.with(Execution.EVENT_LOOP).get("/text/event-loop", req -> Response.bytes(200, "text/plain", TEXT));
        router.with(Execution.WORKER_POOL).get("/text/worker-pool", req -> Response.bytes(200, "text/plain", TEXT));
        router.with(Execution.VIRTUAL_THREAD).get("/text/virtual-thread", req -> Response.bytes(200, "text/plain", TEXT));
        // A platform thread (a worker, or the blocking transport's), so the allocation counter sees what the decoding allocates.
        router.with(Execution.WORKER_POOL).post("/upload", req -> {
            var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = threads.getCurrentThreadAllocatedBytes();
            try {
                return Response.ok("stored " + req.body().length + " bytes");
            } finally {
                decodeAllocation.set(threads.getCurrentThreadAllocatedBytes() - before);
            }
        });
        return router;
    }

    /** Handlers of the blocking transport run on platform threads: the allocation counter does not see virtual ones. */
    private TestServer start(Wire wire) {
        return TestServer.start(wire, router(), options -> options.threads(Threads.PLATFORM));
    }

    // ---- responses --------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void theJdkClientGetsGzipFromEveryExecutionAndDecodesIt(Wire wire) throws Exception {
        try (TestServer server = start(wire); var client = server.httpClientBuilder().build()) {
            for (String path : List.of("/text", "/text/event-loop", "/text/worker-pool", "/text/virtual-thread")) {
                HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(server.uri(path))
                        .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofByteArray());

                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("Content-Encoding")).as(path).hasValue("gzip");
                assertThat(response.headers().firstValue("Vary")).hasValue("Accept-Encoding");
                assertThat(response.headers().firstValueAsLong("Content-Length")).hasValue(response.body().length);
                assertThat(response.body().length).isLessThan(TEXT.length / 5);
                assertThat(ZipBomb.gunzip(response.body())).as(path).isEqualTo(TEXT);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void curlCompressedRoundTrip(Wire wire, @TempDir Path dir) throws Exception {
        try (TestServer server = start(wire)) {
            Path body = dir.resolve("body");
            Path head = dir.resolve("head");
            List<String> arguments = new ArrayList<>(List.of("--compressed", "-o", body.toString(), "-D", head.toString()));
            if (wire.isTls()) arguments.addAll(List.of("--cacert", TestCertificates.caPem().toString()));
            arguments.add(server.uri("/text").toString());
            Curl.Result curl = Curl.run(arguments);
            assertThat(curl.exitCode()).as(curl.output()).isZero();
            assertThat(Files.readString(head, ISO_8859_1).toLowerCase(java.util.Locale.ROOT)).contains("content-encoding: gzip\r\n");
            assertThat(Files.readAllBytes(body)).isEqualTo(TEXT);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void smallAndIncompressibleBodiesGoAsTheyAre(Wire wire) {
        try (TestServer server = start(wire); RawClient client = server.raw()) {
            RawClient.RawResponse small = client.send(getAcceptingGzip("/small")).read();
            RawClient.RawResponse png = client.send(getAcceptingGzip("/png")).read();
            RawClient.RawResponse random = client.send(getAcceptingGzip("/random")).read();

            assertThat(small.body()).isEqualTo("short");
            assertThat(small.headers()).doesNotContainKeys("content-encoding", "vary");
            assertThat(png.body().getBytes(ISO_8859_1)).isEqualTo(TEXT);
            assertThat(png.headers()).doesNotContainKeys("content-encoding", "vary");
            assertThat(random.body().getBytes(ISO_8859_1)).as("gzip would not be smaller").isEqualTo(RANDOM);
            assertThat(random.header("content-encoding")).isNull();
            assertThat(random.header("vary")).isEqualTo("Accept-Encoding");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aRefusedOrMissingGzipGetsTheBodyAsItIsWithVary(Wire wire) {
        try (TestServer server = start(wire); RawClient client = server.raw()) {
            for (String acceptEncoding : new String[]{"gzip;q=0", "br, *;q=0", "identity", null}) {
                String request = "GET /text HTTP/1.1\r\nHost: x\r\n" + (acceptEncoding == null ? "" : "Accept-Encoding: " + acceptEncoding + "\r\n") + "\r\n";
                RawClient.RawResponse response = client.send(request).read();

                assertThat(response.header("content-encoding")).as(acceptEncoding).isNull();
                assertThat(response.header("vary")).as(acceptEncoding).isEqualTo("Accept-Encoding");
                assertThat(response.body().getBytes(ISO_8859_1)).isEqualTo(TEXT);
            }
            RawClient.RawResponse weighted = client.send("GET /text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: br;q=1, gzip;q=0.5\r\n\r\n").read();
            assertThat(weighted.header("content-encoding")).isEqualTo("gzip");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void headAnnouncesWhatGetSends(Wire wire) {
        try (TestServer server = start(wire); RawClient client = server.raw()) {
            RawClient.RawResponse get = client.send(getAcceptingGzip("/text")).read();
            RawClient.RawResponse head = client.send("HEAD /text HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n").read(true);
            RawClient.RawResponse streamedHead = client.send("HEAD /stream HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n").read(true);
            RawClient.RawResponse next = client.send(getAcceptingGzip("/small")).read();

            assertThat(head.header("content-encoding")).isEqualTo("gzip");
            assertThat(head.header("vary")).isEqualTo("Accept-Encoding");
            assertThat(head.header("content-length")).isEqualTo(get.header("content-length"))
                    .isEqualTo(Integer.toString(get.body().length()));
            assertThat(streamedHead.header("content-encoding")).isEqualTo("gzip");
            assertThat(streamedHead.header("transfer-encoding")).isEqualTo("chunked");
            assertThat(next.body()).as("no body followed the HEAD answers").isEqualTo("short");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aStreamedBodyIsCompressedItemByItem(Wire wire) throws Exception {
        byte[] first = "{\"item\":1}\n".getBytes(StandardCharsets.US_ASCII);
        byte[] second = ZipBomb.text(5000);
        try (TestServer server = start(wire); var client = server.httpClientBuilder().build()) {
            HttpResponse<InputStream> response = client.send(HttpRequest.newBuilder(server.uri("/stream"))
                    .header("Accept-Encoding", "gzip").build(), HttpResponse.BodyHandlers.ofInputStream());
            assertThat(response.headers().firstValue("Content-Encoding")).hasValue("gzip");
            assertThat(stream.subscribed.await(5, TimeUnit.SECONDS)).isTrue();
            stream.publish(first);
            try (InputStream gzip = new GZIPInputStream(response.body())) {
                assertThat(gzip.readNBytes(first.length)).as("the first item, before the second exists").isEqualTo(first);
                stream.publish(second);
                stream.complete();
                assertThat(gzip.readAllBytes()).isEqualTo(second);
            }
        }
    }

    // ---- requests ---------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aGzipRequestBodyIsDecodedForTheHandler(Wire wire) throws Exception {
        try (TestServer server = start(wire); var client = server.httpClientBuilder().build()) {
            HttpResponse<byte[]> response = client.send(HttpRequest.newBuilder(server.uri("/echo"))
                    .header("Content-Encoding", "gzip").POST(HttpRequest.BodyPublishers.ofByteArray(ZipBomb.gzip(TEXT))).build(),
                    HttpResponse.BodyHandlers.ofByteArray());

            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(TEXT);
            assertThat(response.headers().firstValue("X-Seen-Encoding")).as("the handler sees the decoded body").hasValue("null");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void bodyAndBodyTextReadTheSameDecodedBodyUnderTheSameLimit(Wire wire) throws Exception {
        try (TestServer server = start(wire); var client = server.httpClientBuilder().build()) {
            byte[] gzipped = ZipBomb.gzip(TEXT);
            assertThat(gzipped.length).isLessThan(SMALL_LIMIT);
            for (String path : List.of("/echo", "/echo/text", "/small/bytes", "/small/text")) {
                HttpResponse<String> response = client.send(HttpRequest.newBuilder(server.uri(path)).header("Content-Encoding", "gzip")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(gzipped)).build(), HttpResponse.BodyHandlers.ofString());

                if (path.startsWith("/small")) {
                    assertThat(response.statusCode()).as(path).isEqualTo(413);
                    assertThat(response.body()).as(path).contains("once decoded");
                } else {
                    assertThat(response.statusCode()).as(path).isEqualTo(200);
                    assertThat(response.body()).as(path).isEqualTo(new String(TEXT, StandardCharsets.UTF_8));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aZipBombGets413FastWithinABoundedAmountOfMemory(Wire wire) throws Exception {
        try (TestServer server = start(wire); var client = server.httpClientBuilder().build()) {
            HttpRequest upload = HttpRequest.newBuilder(server.uri("/upload")).header("Content-Encoding", "gzip")
                    .POST(HttpRequest.BodyPublishers.ofByteArray(BOMB)).timeout(Duration.ofSeconds(10)).build();
            client.send(upload, HttpResponse.BodyHandlers.ofString()); // a first one for the classes and the connection
            long heapBefore = usedHeapAfterGc();
            long start = System.nanoTime();

            HttpResponse<String> response = client.send(upload, HttpResponse.BodyHandlers.ofString());

            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(response.statusCode()).isEqualTo(413);
            assertThat(response.body()).contains("once decoded");
            assertThat(millis).as("answered as soon as the limit was reached").isLessThan(2_000);
            assertThat(decodeAllocation.get()).as("bytes the handler's thread allocated decoding 100 MiB against 10 MiB")
                    .isPositive().isLessThan(2 * MAX_BODY);
            assertThat(usedHeapAfterGc() - heapBefore).as("heap kept after the request").isLessThan(4L << 20);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void anotherContentCodingGets415WithAcceptEncoding(Wire wire) {
        try (TestServer server = start(wire); RawClient client = server.raw()) {
            RawClient.RawResponse refused = client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Encoding: br\r\nContent-Length: 4\r\n\r\nabcd").read();
            RawClient.RawResponse stacked = client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip, zstd\r\nContent-Length: 4\r\n\r\nabcd").read();
            RawClient.RawResponse identity = client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Encoding: identity\r\nContent-Length: 4\r\n\r\nabcd").read();

            assertThat(refused.status()).isEqualTo(415);
            assertThat(refused.header("accept-encoding")).isEqualTo("gzip");
            assertThat(refused.body()).contains("br");
            assertThat(refused.header("connection")).as("the body was read: the connection goes on").isNull();
            assertThat(stacked.status()).isEqualTo(415);
            assertThat(stacked.body()).contains("zstd");
            assertThat(identity.status()).isEqualTo(200);
            assertThat(identity.body()).isEqualTo("abcd");
        }
    }

    @Test
    void invalidGzipGets400() {
        try (TestServer server = start(Wire.NIO); RawClient client = server.raw()) {
            RawClient.RawResponse response = client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nabcd").read();

            assertThat(response.status()).isEqualTo(400);
            assertThat(response.body()).contains("invalid gzip");
        }
    }

    // ---- knobs ------------------------------------------------------------------------------------

    @Test
    void theKnobsApply() {
        try (TestServer off = TestServer.start(Wire.NIO, router(), o -> o.compressionEnabled(false));
             TestServer tuned = TestServer.start(Wire.NIO, router(), o -> o.compressionMinSize(0).compressionLevel(1)
                     .compressionTypes(List.of("image/*")));
             RawClient offClient = off.raw(); RawClient tunedClient = tuned.raw()) {
            RawClient.RawResponse plain = offClient.send(getAcceptingGzip("/text")).read();
            RawClient.RawResponse text = tunedClient.send(getAcceptingGzip("/text")).read();
            RawClient.RawResponse png = tunedClient.send(getAcceptingGzip("/png")).read();

            assertThat(plain.headers()).doesNotContainKeys("content-encoding", "vary");
            assertThat(text.headers()).as("text/* is no longer listed").doesNotContainKeys("content-encoding", "vary");
            assertThat(png.header("content-encoding")).isEqualTo("gzip");
            assertThat(ZipBomb.gunzip(png.body().getBytes(ISO_8859_1))).isEqualTo(TEXT);
        }
    }

    private static String getAcceptingGzip(String target) {
        return "GET " + target + " HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n";
    }

    private static long usedHeapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** A publisher the test drives: one subscriber, items sent by {@link #publish} as demand allows. */
    private static final class ControlledPublisher implements Flow.Publisher<byte[]> {
        final CountDownLatch subscribed = new CountDownLatch(1);
        private final Semaphore demand = new Semaphore(0);
        private volatile Flow.Subscriber<? super byte[]> subscriber;

        @Override
        public void subscribe(Flow.Subscriber<? super byte[]> candidate) {
            subscriber = candidate;
            candidate.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                    demand.release((int) Math.min(n, 1_000));
                }

                @Override
                public void cancel() {
                }
            });
            subscribed.countDown();
        }

        void publish(byte[] item) throws InterruptedException {
            assertThat(demand.tryAcquire(5, TimeUnit.SECONDS)).as("demand for the item").isTrue();
            subscriber.onNext(item);
        }

        void complete() {
            subscriber.onComplete();
        }
    }
}
