package keel.http.client;

import keel.http.Headers;
import keel.http.Response;
import keel.http.codec.ZipBomb;
import keel.http.router.Router;
import keel.http.server.TestServer;
import keel.http.server.Wire;
import keel.http.tls.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Keel's client and gzip: it asks for gzip unless the request says otherwise, decodes whole and
 * streamed bodies, holds the decoded size to {@code max-response-body-size}, and leaves every other
 * coding (and a gzip body it did not ask for itself) as it came.
 */
class HttpClientGzipTest {
    private static final byte[] TEXT = ZipBomb.text(200_000);
    private static final int ITEMS = 40;
    private static final int ITEM_SIZE = 5_000;

    private TestServer server;
    private HttpClient client;

    @AfterEach
    void close() {
        if (client != null) client.close();
        if (server != null) server.close();
    }

    /** A server on {@code wire} and a client that reaches it. */
    private void start(Wire wire, long maxResponseBodySize) {
        server = TestServer.start(wire, routes());
        ClientOptions.Builder options = ClientOptions.builder().loops(1).maxResponseBodySize(maxResponseBodySize);
        if (wire.isTls()) options.tlsTrust(TestCertificates.caPem());
        client = HttpClient.create(options.build());
    }

    private ClientRequest get(String path) {
        return ClientRequest.get(server.uri(path).toString());
    }

    private static Router routes() {
        return new Router()
                .get("/text", request -> Response.bytes(200, "text/plain", TEXT))
                .get("/accept-encoding", request -> Response.ok(String.valueOf(request.header("Accept-Encoding"))))
                .get("/stream", request -> Response.stream(200, "text/plain", HttpClientGzipTest::publish))
                .get("/bomb", request -> Response.of(200, Headers.of("Content-Type", "text/plain", "Content-Encoding", "gzip"),
                        ZipBomb.zeros(100)))
                .get("/broken", request -> Response.of(200, Headers.of("Content-Type", "text/plain", "Content-Encoding", "gzip"),
                        "not gzip at all".getBytes(StandardCharsets.US_ASCII)))
                .get("/brotli", request -> Response.of(200, Headers.of("Content-Type", "text/plain", "Content-Encoding", "br"),
                        TEXT));
    }

    /** {@link #ITEMS} items of {@link #ITEM_SIZE} bytes of text, each on demand. */
    private static void publish(Flow.Subscriber<? super byte[]> subscriber) {
        subscriber.onSubscribe(new Flow.Subscription() {
            int sent;

            public void request(long n) {
                while (n-- > 0 && sent < ITEMS) {
                    subscriber.onNext(item(sent));
                    if (++sent == ITEMS) subscriber.onComplete();
                }
            }

            public void cancel() {
                sent = ITEMS;
            }
        });
    }

    private static byte[] item(int index) {
        byte[] item = ZipBomb.text(ITEM_SIZE);
        item[0] = (byte) ('A' + index % 26);
        return item;
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void asksForGzipAndDecodesAWholeBody(Wire wire) throws Exception {
        start(wire, 10 << 20);

        Response asked = client.send(get("/accept-encoding"));
        Response response = client.send(get("/text"));

        assertThat(new String(asked.body(), StandardCharsets.UTF_8)).isEqualTo("gzip");
        assertThat(response.body()).isEqualTo(TEXT);
        assertThat(response.headers().get("Vary")).as("it went gzip-encoded").isEqualTo("Accept-Encoding");
        assertThat(response.headers().contains("Content-Encoding")).as("the caller sees the decoded body").isFalse();
        assertThat(response.headers().contains("Content-Length")).isFalse();
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void decodesAStreamedBodyInBoundedPieces(Wire wire) throws Exception {
        start(wire, 10 << 20);
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < ITEMS; i++) expected.writeBytes(item(i));

        Response response = client.streamAsync(get("/stream")).toCompletableFuture().get(10, TimeUnit.SECONDS);
        AtomicInteger largest = new AtomicInteger();
        OneAtATime reader = new OneAtATime(() -> { }, item -> largest.accumulateAndGet(item.length, Math::max));
        response.stream().subscribe(reader);
        byte[] received = reader.body.get(10, TimeUnit.SECONDS);

        assertThat(response.headers().contains("Content-Encoding")).isFalse();
        assertThat(received).isEqualTo(expected.toByteArray());
        assertThat(largest.get()).isLessThanOrEqualTo(16 * 1024);
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void failsPastTheLimitOnTheDecodedSize(Wire wire) throws Exception {
        start(wire, 64 * 1024);

        // 200 000 bytes of text arrive as about 10 KiB: under the limit on the wire, over it decoded.
        assertThatThrownBy(() -> client.send(get("/text"))).isInstanceOf(HttpClientException.class).hasMessageContaining("decoded");
        assertThatThrownBy(() -> client.send(get("/bomb"))).isInstanceOf(HttpClientException.class)
                .hasMessageContaining("larger than 65536 bytes");
        assertThat(new String(client.send(get("/accept-encoding")).body(), StandardCharsets.UTF_8)).as("the client is still usable")
                .isEqualTo("gzip");
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void passesOtherCodingsAndBodiesItDidNotAskForThrough(Wire wire) throws Exception {
        start(wire, 10 << 20);

        Response brotli = client.send(get("/brotli"));
        Response ownAccept = client.send(get("/text").header("Accept-Encoding", "gzip"));
        Response identity = client.send(get("/text").header("Accept-Encoding", "identity"));

        assertThat(brotli.headers().get("Content-Encoding")).isEqualTo("br");
        assertThat(brotli.body()).isEqualTo(TEXT);
        assertThat(ownAccept.headers().get("Content-Encoding")).as("asked by the caller: the caller decodes").isEqualTo("gzip");
        assertThat(ZipBomb.gunzip(ownAccept.body())).isEqualTo(TEXT);
        assertThat(identity.headers().contains("Content-Encoding")).isFalse();
        assertThat(identity.body()).isEqualTo(TEXT);
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void aHeadAnswerKeepsTheFieldsOfTheGzipBodyItAnnounces(Wire wire) throws Exception {
        start(wire, 10 << 20);

        Response head = client.send(ClientRequest.of("HEAD", server.uri("/text").toString()));

        assertThat(head.body()).isEmpty();
        assertThat(head.headers().get("Content-Encoding")).as("nothing was decoded").isEqualTo("gzip");
        assertThat(Long.parseLong(head.headers().get("Content-Length"))).isLessThan(TEXT.length / 5);
        assertThat(client.send(get("/text")).body()).as("still in step").isEqualTo(TEXT);
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void anInvalidGzipBodyFailsTheCall(Wire wire) {
        start(wire, 10 << 20);

        assertThatThrownBy(() -> client.sendAsync(get("/broken")).toCompletableFuture()
                .get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).hasMessageContaining("invalid gzip");
    }
}
