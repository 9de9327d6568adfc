package keel.http.server;

import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A streamed response whose publisher goes quiet: past {@code timeouts.stream-stall} without the item
 * asked for, the body is cut short (no last chunk, so no client takes it as whole), the publisher's
 * subscription is cancelled and the drop is counted; a publisher that is slow but never that slow
 * streams to the end, however long the whole body takes. On every wire.
 */
class StreamStallTest {
    private static final Duration STALL = Duration.ofMillis(300);

    /** Gives one item, then nothing however much is asked; counts its cancellation. */
    private static final class QuietPublisher implements Flow.Publisher<byte[]> {
        final CountDownLatch cancelled = new CountDownLatch(1);

        @Override
        public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
            subscriber.onSubscribe(new Flow.Subscription() {
                private boolean given;

                @Override
                public synchronized void request(long n) {
                    if (given) return;
                    given = true;
                    subscriber.onNext("first".getBytes(StandardCharsets.US_ASCII));
                }

                @Override
                public void cancel() {
                    cancelled.countDown();
                }
            });
        }
    }

    /** Five items, one every 120 ms: each within the stall timeout, all of them past it. */
    private static Flow.Publisher<byte[]> slowButSteady() {
        SubmissionPublisher<byte[]> publisher = new SubmissionPublisher<>();
        Thread.ofPlatform().daemon(true).name("test-slow-feeder").start(() -> {
            try {
                while (publisher.getNumberOfSubscribers() == 0) Thread.sleep(1);
                for (int i = 0; i < 5; i++) {
                    Thread.sleep(120);
                    publisher.submit(("item" + i + ";").getBytes(StandardCharsets.US_ASCII));
                }
                publisher.close();
            } catch (InterruptedException e) {
                publisher.closeExceptionally(e);
            }
        });
        return publisher;
    }

    private static TestServer start(Wire wire, Router router, ReasonCounter reasons) {
        return TestServer.start(wire, router, reasons, b -> b.streamStallTimeout(STALL));
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void cutsShortAndCountsABodyWhosePublisherGoesQuiet(Wire wire) throws Exception {
        QuietPublisher quiet = new QuietPublisher();
        ReasonCounter reasons = new ReasonCounter();
        Router router = new Router().get("/quiet", request -> Response.stream(200, "text/plain", quiet));
        try (TestServer server = start(wire, router, reasons); RawClient client = server.raw()) {
            long sent = System.nanoTime();
            client.send(RawClient.get("/quiet"));
            String received = readUntilClosed(client);
            Duration took = Duration.ofNanos(System.nanoTime() - sent);

            if (received != null) { // null: ended by a reset, or over TLS without close_notify, which is a truncation too
                assertThat(received).startsWith("HTTP/1.1 200 OK\r\n").contains("Transfer-Encoding: chunked").contains("first");
                assertThat(received).as("no last chunk: the body is not taken as whole").doesNotEndWith("0\r\n\r\n");
            }
            assertThat(took).as("not before the stall timeout").isGreaterThanOrEqualTo(STALL);
            assertThat(took).as("soon after it").isLessThan(Duration.ofSeconds(5));
            assertThat(quiet.cancelled.await(5, TimeUnit.SECONDS)).as("the subscription is cancelled").isTrue();
            assertThat(reasons.await(ServerObserver.Drop.STREAM_STALLED, 1)).isEqualTo(1);
            assertThat(reasons.count(ServerObserver.Drop.STREAM_FAILED)).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void streamsToTheEndABodyWhoseItemsEachComeWithinTheStallTimeout(Wire wire) throws Exception {
        ReasonCounter reasons = new ReasonCounter();
        Router router = new Router().get("/slow", request -> Response.stream(200, "text/plain", slowButSteady()));
        try (TestServer server = start(wire, router, reasons); RawClient client = server.raw()) {
            long sent = System.nanoTime();
            RawClient.RawResponse response = client.send(RawClient.get("/slow")).read();
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("item0;item1;item2;item3;item4;");
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).as("the whole body took longer than one stall").isGreaterThan(STALL);
            assertThat(reasons.count(ServerObserver.Drop.STREAM_STALLED)).isZero();
            assertThat(client.send(RawClient.get("/slow")).read().status()).as("the connection goes on").isEqualTo(200);
        }
    }

    /** What arrives until the server closes cleanly; null if it ends with a reset or, over TLS, without close_notify. */
    private static String readUntilClosed(RawClient client) throws IOException {
        client.timeout(10_000);
        try {
            return client.readToEnd();
        } catch (java.net.SocketException | javax.net.ssl.SSLProtocolException truncated) {
            return null;
        }
    }
}
