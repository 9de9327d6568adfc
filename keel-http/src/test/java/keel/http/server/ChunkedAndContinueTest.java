package keel.http.server;

import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Chunked request bodies, {@code Expect: 100-continue}, HEAD, and streamed (chunked or close-delimited)
 * response bodies, over a raw socket.
 */
class ChunkedAndContinueTest {
    private static final int ITEMS = 100;

    private static String expectedStreamBody() {
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < ITEMS; i++) body.append(item(i));
        return body.toString();
    }

    private static String item(int i) {
        return String.format("item-%03d\n", i);
    }

    /**
     * A publisher fed by its own thread: it waits for the server to subscribe (a SubmissionPublisher
     * drops items submitted before that), publishes the items, then completes (or fails).
     */
    private static SubmissionPublisher<byte[]> feed(boolean withEmptyItems, boolean failHalfway) {
        SubmissionPublisher<byte[]> publisher = new SubmissionPublisher<>();
        Thread.ofPlatform().daemon(true).name("test-feeder").start(() -> {
            long giveUp = System.nanoTime() + 5_000_000_000L;
            try {
                while (publisher.getNumberOfSubscribers() == 0) {
                    if (System.nanoTime() - giveUp > 0) {
                        publisher.close();
                        return;
                    }
                    Thread.sleep(1);
                }
                for (int i = 0; i < ITEMS; i++) {
                    if (failHalfway && i == ITEMS / 2) {
                        publisher.closeExceptionally(new IllegalStateException("feed broke"));
                        return;
                    }
                    publisher.submit(item(i).getBytes(StandardCharsets.US_ASCII));
                    if (withEmptyItems && i % 10 == 0) publisher.submit(new byte[0]);
                }
                publisher.close();
            } catch (InterruptedException e) {
                publisher.closeExceptionally(e);
            }
        });
        return publisher;
    }

    private static Router router() {
        return new Router()
                .get("/hello", req -> Response.ok("hello, head").header("X-Route", "hello"))
                .get("/nothing", req -> Response.status(204).header("X-Route", "nothing"))
                .post("/echo", req -> Response.bytes(200, "application/octet-stream", req.body())
                        .header("X-Body-Length", Integer.toString(req.body().length)))
                .get("/stream", req -> Response.stream(200, "text/plain", feed(false, false)))
                .get("/stream-with-empty-items", req -> Response.stream(200, "text/plain", feed(true, false)))
                .get("/stream-failing", req -> Response.stream(200, "text/plain", feed(false, true)))
                .get("/stream-nothing", req -> Response.stream(204, "text/plain", feed(false, false)))
                .get("/stream-large", req -> Response.stream(200, "application/octet-stream", largeFeed()))
                .get("/stream-endless", req -> Response.stream(200, "application/octet-stream", ENDLESS.get()));
    }

    private static final int LARGE_ITEMS = 2_000;
    private static final int LARGE_ITEM_SIZE = 4_096;

    private static byte[] largeItem(int i) {
        byte[] item = new byte[LARGE_ITEM_SIZE];
        Arrays.fill(item, (byte) ('a' + i % 26));
        byte[] label = String.format("%06d", i).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(label, 0, item, 0, label.length);
        return item;
    }

    /** ~8 MB: far past the write high water mark, so the server must pull items only as the client reads. */
    private static Flow.Publisher<byte[]> largeFeed() {
        SubmissionPublisher<byte[]> publisher = new SubmissionPublisher<>();
        Thread.ofPlatform().daemon(true).name("test-large-feeder").start(() -> {
            try {
                while (publisher.getNumberOfSubscribers() == 0) Thread.sleep(1);
                for (int i = 0; i < LARGE_ITEMS; i++) publisher.submit(largeItem(i));
                publisher.close();
            } catch (InterruptedException e) {
                publisher.closeExceptionally(e);
            }
        });
        return publisher;
    }

    /** A publisher of 1 KiB items that never completes and records its subscription's cancel(). */
    static final class EndlessPublisher implements Flow.Publisher<byte[]> {
        final CountDownLatch subscribed = new CountDownLatch(1);
        final CountDownLatch cancelled = new CountDownLatch(1);

        @Override
        public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
            Semaphore demand = new Semaphore(0);
            AtomicBoolean done = new AtomicBoolean();
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {
                    demand.release((int) Math.min(n, 1_000_000));
                }

                @Override
                public void cancel() {
                    done.set(true);
                    cancelled.countDown();
                    demand.release();
                }
            });
            subscribed.countDown();
            byte[] item = "e".repeat(1_024).getBytes(StandardCharsets.US_ASCII);
            Thread.ofVirtual().name("test-endless").start(() -> {
                try {
                    while (true) {
                        if (!demand.tryAcquire(30, TimeUnit.SECONDS) || done.get()) return;
                        subscriber.onNext(item);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
    }

    private static final AtomicReference<EndlessPublisher> ENDLESS =
            new AtomicReference<>();

    // ---- chunked request bodies --------------------------------------------------------------

    private static final String CHUNKED_REQUEST = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n"
            + "1;ext\r\n,\r\n"
            + "7;name=value;quoted=\"a b\"\r\n world!\r\n"
            + "A\r\n0123456789\r\n"
            + "1a\r\nabcdefghijklmnopqrstuvwxyz\r\n"
            + "0;last=yes\r\n"
            + "X-Checksum: abc\r\nX-Other: trailer\r\n\r\n";
    private static final String CHUNKED_BODY = "hello, world!0123456789abcdefghijklmnopqrstuvwxyz";

    @ParameterizedTest
    @EnumSource(Wire.class)
    void echoesChunkedBodyWithSeveralChunksExtensionsAndTrailers(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(CHUNKED_REQUEST);
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(CHUNKED_BODY);
            assertThat(response.header("X-Body-Length")).isEqualTo(Integer.toString(CHUNKED_BODY.length()));
            assertThat(response.header("Content-Length")).isEqualTo(Integer.toString(CHUNKED_BODY.length()));
            assertThat(response.header("X-Checksum")).as("trailers are not echoed as headers").isNull();
            client.send(RawClient.get("/hello"));
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void echoesChunkedBodySplitAcrossManySmallWrites(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            String twice = CHUNKED_REQUEST + CHUNKED_REQUEST;
            int position = 0;
            for (int i = 0; position < twice.length(); i++) {
                int end = Math.min(twice.length(), position + 1 + i % 7); // pieces of 1..7 bytes
                client.send(twice.substring(position, end));
                position = end;
                if (i % 4 == 0) Thread.sleep(1);
            }
            for (int i = 0; i < 2; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).isEqualTo(200);
                assertThat(response.body()).isEqualTo(CHUNKED_BODY);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void echoesLargeChunkedBodyOfManyChunks(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            StringBuilder request = new StringBuilder("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
            StringBuilder body = new StringBuilder();
            for (int i = 0; i < 300; i++) {
                String chunk = Integer.toString(i).repeat(1 + i % 500);
                body.append(chunk);
                request.append(Integer.toHexString(chunk.length()).toUpperCase()).append("\r\n").append(chunk).append("\r\n");
            }
            request.append("0\r\n\r\n");
            client.send(request.toString());
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).hasSize(body.length()).isEqualTo(body.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void echoesEmptyChunkedBody(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + RawClient.get("/hello"));
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("Content-Length")).isEqualTo("0");
            assertThat(response.body()).isEmpty();
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    // ---- Expect: 100-continue -----------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void sends100ContinueBeforeTheBodyThenTheFinalResponse(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 11\r\n\r\n");
            RawClient.RawResponse interim = client.read();
            assertThat(interim.statusLine()).isEqualTo("HTTP/1.1 100 Continue");
            assertThat(interim.headers()).isEmpty();
            client.send("hello world");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("hello world");
            client.send(RawClient.get("/hello"));
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void sends100ContinueForChunkedBody(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-Continue\r\nTransfer-Encoding: chunked\r\n\r\n");
            assertThat(client.read().statusLine()).isEqualTo("HTTP/1.1 100 Continue");
            client.send("3\r\nabc\r\n");
            client.send("0\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("abc");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void sends100ContinueForPipelinedRequestAfterTheResponseBeforeIt(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/hello") + "POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
            assertThat(client.read().body()).isEqualTo("hello, head");
            assertThat(client.read().statusLine()).isEqualTo("HTTP/1.1 100 Continue");
            client.send("xyz");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("xyz");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers413Without100ContinueWhenExpectedBodyIsTooLarge(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router(), b -> b.maxBodySize(100));
             RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 101\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.statusLine()).isEqualTo("HTTP/1.1 413 Content Too Large");
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(response.body()).contains("larger than 100 bytes");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersDirectlyWhenExpectContinueRequestHasNoBody(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /hello HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersFinalResponseWhenBodyArrivesWithTheExpectContinueHead(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody" + RawClient.get("/hello"));
            RawClient.RawResponse response = client.read();
            if (response.status() == 100) response = client.read(); // a 100 is allowed but not needed here
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("body");
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void ignoresExpectContinueFromHttp10Client(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("POST /echo HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n");
            Thread.sleep(150); // a (wrong) 100 Continue would be read first below
            client.send("abcd");
            RawClient.RawResponse response = client.read();
            assertThat(response.statusLine()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(response.body()).isEqualTo("abcd");
            assertThat(client.closedByServer()).isTrue();
        }
    }

    // ---- HEAD ----------------------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersHeadOnGetRouteWithContentLengthButNoBodyAndKeepsConnectionUsable(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n" + RawClient.get("/hello") + "HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n");
            RawClient.RawResponse head = client.read(true);
            assertThat(head.status()).isEqualTo(200);
            assertThat(head.header("Content-Length")).isEqualTo(Integer.toString("hello, head".length()));
            assertThat(head.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
            assertThat(head.header("X-Route")).isEqualTo("hello");
            assertThat(head.body()).isEmpty();
            RawClient.RawResponse get = client.read();
            assertThat(get.statusLine()).isEqualTo("HTTP/1.1 200 OK");
            assertThat(get.body()).isEqualTo("hello, head");
            RawClient.RawResponse secondHead = client.read(true);
            assertThat(secondHead.status()).isEqualTo(200);
            client.timeout(300);
            assertThat(client.closedByServer()).as("no body bytes after a HEAD response; connection open").isFalse();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersHeadOnStreamedRouteWithoutClaimingAnEmptyBody(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("HEAD /stream HTTP/1.1\r\nHost: x\r\n\r\n" + RawClient.get("/hello"));
            RawClient.RawResponse head = client.read(true);
            assertThat(head.status()).isEqualTo(200);
            // RFC 9110 §8.6: Content-Length in a HEAD response must equal what GET would send; the streamed
            // GET body has 900 bytes, so "Content-Length: 0" is wrong (omit it, or say chunked).
            assertThat(head.header("Content-Length")).isIn(null, Integer.toString(expectedStreamBody().length()));
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    /** RFC 9110 §8.6: a server MUST NOT send Content-Length in a 204 response. */
    @ParameterizedTest
    @EnumSource(Wire.class)
    void answers204WithoutContentLengthOrBodyAndKeepsConnectionUsable(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/nothing") + RawClient.get("/hello"));
            RawClient.RawResponse noContent = client.read();
            assertThat(noContent.statusLine()).isEqualTo("HTTP/1.1 204 No Content");
            assertThat(noContent.header("X-Route")).isEqualTo("nothing");
            assertThat(noContent.header("Transfer-Encoding")).isNull();
            assertThat(noContent.header("Content-Length")).isNull();
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersStreamed204WithoutFramingOrBodyAndKeepsConnectionUsable(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/stream-nothing") + RawClient.get("/hello"));
            RawClient.RawResponse noContent = client.read();
            assertThat(noContent.statusLine()).isEqualTo("HTTP/1.1 204 No Content");
            assertThat(noContent.header("Transfer-Encoding")).isNull();
            assertThat(noContent.header("Content-Length")).isNull();
            assertThat(noContent.header("Connection")).isNull();
            assertThat(client.read().body()).as("no chunk bytes were sent after the 204 head").isEqualTo("hello, head");
        }
    }

    // ---- fixed-length bodies larger than the read buffer ----------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void echoesFixedLengthBodyMuchLargerThanTheReadBuffer(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            StringBuilder body = new StringBuilder();
            for (int i = 0; body.length() < 1_000_000; i++) body.append(i).append(',');
            client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length() + "\r\n\r\n" + body + RawClient.get("/hello"));
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("X-Body-Length")).isEqualTo(Integer.toString(body.length()));
            assertThat(response.body()).isEqualTo(body.toString());
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    // ---- streamed responses ----------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Wire.class)
    void streamsPublishedItemsChunkedAndCompleteThenKeepsConnection(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/stream"));
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("Transfer-Encoding")).isEqualTo("chunked");
            assertThat(response.header("Content-Length")).isNull();
            assertThat(response.header("Content-Type")).isEqualTo("text/plain");
            assertThat(response.header("Connection")).isNull();
            assertThat(response.body()).isEqualTo(expectedStreamBody());
            client.send(RawClient.get("/stream"));
            assertThat(client.read().body()).isEqualTo(expectedStreamBody());
            client.send(RawClient.get("/hello"));
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void streamsEachItemAsOneChunkOnTheWire(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            String received = client.readToEnd();
            int bodyStart = received.indexOf("\r\n\r\n") + 4;
            assertThat(received.substring(0, bodyStart)).contains("Transfer-Encoding: chunked\r\n", "Connection: close\r\n");
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < ITEMS; i++) expected.append("9\r\n").append(item(i)).append("\r\n");
            expected.append("0\r\n\r\n");
            assertThat(received.substring(bodyStart)).isEqualTo(expected.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void skipsEmptyItemsInsteadOfEndingTheChunkedBodyEarly(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/stream-with-empty-items") + RawClient.get("/hello"));
            RawClient.RawResponse response = client.read();
            assertThat(response.body()).isEqualTo(expectedStreamBody());
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void answersRequestPipelinedBehindAStreamedResponse(Wire wire) {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/stream") + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nafter" + RawClient.get("/stream"));
            assertThat(client.read().body()).isEqualTo(expectedStreamBody());
            assertThat(client.read().body()).isEqualTo("after");
            assertThat(client.read().body()).isEqualTo(expectedStreamBody());
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void closesAfterCloseDelimitedStreamEvenWithARequestPipelinedBehindIt(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" + RawClient.get("/hello"));
            String received = client.readToEnd(); // fails on a reset
            assertThat(received).startsWith("HTTP/1.1 200 OK\r\n").contains("Connection: close\r\n")
                    .endsWith("\r\n\r\n" + expectedStreamBody());
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void streamsLargeBodyCompletelyToAClientThatStartsReadingLate(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/stream-large") + RawClient.get("/hello"));
            Thread.sleep(200); // let the server fill the socket buffers and its high water mark first
            RawClient.RawResponse response = client.read();
            assertThat(response.header("Transfer-Encoding")).isEqualTo("chunked");
            String body = response.body();
            assertThat(body).hasSize(LARGE_ITEMS * LARGE_ITEM_SIZE);
            for (int i = 0; i < LARGE_ITEMS; i++) {
                String expected = new String(largeItem(i), StandardCharsets.US_ASCII);
                assertThat(body.regionMatches(i * LARGE_ITEM_SIZE, expected, 0, LARGE_ITEM_SIZE)).as("item %d", i).isTrue();
            }
            assertThat(client.read().body()).isEqualTo("hello, head");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void cancelsStreamPublisherWhenClientDisconnectsMidStream(Wire wire) throws Exception {
        EndlessPublisher publisher = new EndlessPublisher();
        ENDLESS.set(publisher);
        try (TestServer server = TestServer.start(wire, router())) {
            RawClient client = server.raw();
            client.send(RawClient.get("/stream-endless"));
            assertThat(publisher.subscribed.await(2, TimeUnit.SECONDS)).isTrue();
            client.close(); // gone mid-body, with unread bytes: the next writes fail
            assertThat(publisher.cancelled.await(3, TimeUnit.SECONDS))
                    .as("the server cancels the subscription once the client is gone").isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void streamsCloseDelimitedBodyToHttp10Client(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /stream HTTP/1.0\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("Transfer-Encoding")).isNull();
            assertThat(response.header("Content-Length")).isNull();
            assertThat(response.header("Connection")).isEqualTo("close");
            assertThat(response.body()).isEqualTo(expectedStreamBody());
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void streamsCloseDelimitedBodyToHttp10ClientEvenWithKeepAlive(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
            RawClient.RawResponse response = client.read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.header("Transfer-Encoding")).isNull();
            assertThat(response.header("Content-Length")).isNull();
            assertThat(response.header("Connection")).as("a close-delimited body cannot keep the connection").isEqualTo("close");
            assertThat(response.body()).isEqualTo(expectedStreamBody());
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void abortsChunkedStreamWithoutLastChunkWhenPublisherFails(Wire wire) throws IOException {
        try (TestServer server = TestServer.start(wire, router()); RawClient client = server.raw()) {
            client.send(RawClient.get("/stream-failing"));
            String received;
            try {
                received = client.readToEnd();
            } catch (java.net.SocketException reset) {
                return; // an abort by reset is also a truncation
            } catch (javax.net.ssl.SSLProtocolException noCloseNotify) {
                return; // so is, over TLS, an end without close_notify
            }
            assertThat(received).startsWith("HTTP/1.1 200 OK\r\n").contains("Transfer-Encoding: chunked");
            // Items already queued in the publisher may be discarded by closeExceptionally; what matters is that
            // the body never ends with the last chunk, so the client cannot take it as complete.
            assertThat(received).doesNotContain(item(ITEMS / 2)).doesNotContain("\r\n0\r\n\r\n").doesNotEndWith("0\r\n\r\n");
        }
    }
}
