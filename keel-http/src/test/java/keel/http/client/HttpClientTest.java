package keel.http.client;

import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.TestServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Requests and responses through real sockets: bodies, framings, limits, redirects, streaming. */
class HttpClientTest {
    private static final byte[] LARGE = new byte[300_000];

    static {
        for (int i = 0; i < LARGE.length; i++) LARGE[i] = (byte) ('a' + i % 26);
    }

    private final HttpClient client = HttpClient.create(ClientOptions.builder().loops(2).build());

    @AfterEach
    void close() {
        client.close();
    }

    private static Router routes() {
        return new Router()
                .get("/hello", request -> Response.ok("Hello, World!"))
                .post("/echo", request -> Response.bytes(200, "application/octet-stream", request.body())
                        .header("X-Method", request.method()))
                .get("/large", request -> Response.bytes(200, "text/plain", LARGE))
                .get("/chunked", request -> Response.stream(200, "text/plain", subscriber -> publish(subscriber, 40, 7_000)))
                .get("/moved", request -> Response.status(302).header("Location", "/hello"));
    }

    /** {@code count} items of {@code size} bytes, each on demand. */
    private static void publish(Flow.Subscriber<? super byte[]> subscriber, int count, int size) {
        subscriber.onSubscribe(new Flow.Subscription() {
            int sent;

            public void request(long n) {
                while (n-- > 0 && sent < count) {
                    byte[] item = new byte[size];
                    java.util.Arrays.fill(item, (byte) ('0' + sent % 10));
                    subscriber.onNext(item);
                    if (++sent == count) subscriber.onComplete();
                }
            }

            public void cancel() {
                sent = count;
            }
        });
    }

    @Test
    void getsAFixedLengthResponse() throws Exception {
        try (TestServer server = TestServer.start(routes())) {
            Response response = client.send(ClientRequest.get(server.uri("/hello").toString()));
            assertThat(response.status()).isEqualTo(200);
            assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("Hello, World!");
            assertThat(response.headers().get("content-type")).isEqualTo("text/plain; charset=utf-8");
        }
    }

    @Test
    void postsAStringAndBytesBody() throws Exception {
        try (TestServer server = TestServer.start(routes())) {
            Response text = client.send(ClientRequest.post(server.uri("/echo").toString(), "{\"a\":1}"));
            assertThat(new String(text.body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
            Response bytes = client.send(ClientRequest.of("POST", server.uri("/echo").toString()).body("application/octet-stream", LARGE));
            assertThat(bytes.body()).isEqualTo(LARGE);
            assertThat(bytes.headers().get("X-Method")).isEqualTo("POST");
        }
    }

    @Test
    void aggregatesAChunkedResponse() throws Exception {
        try (TestServer server = TestServer.start(routes())) {
            Response response = client.send(ClientRequest.get(server.uri("/chunked").toString()));
            assertThat(response.body()).hasSize(40 * 7_000);
            assertThat(response.body()[7_000 * 3]).isEqualTo((byte) '3');
        }
    }

    @Test
    void readsABodyThatEndsWithTheConnection() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((c, r, head) ->
                new ScriptedServer.Respond("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end"))) {
            Response response = client.send(ClientRequest.get(upstream.uri("/")));
            assertThat(new String(response.body(), StandardCharsets.UTF_8)).isEqualTo("until the end");
        }
    }

    @Test
    void headResponseHasNoBody() throws Exception {
        try (TestServer server = TestServer.start(routes())) {
            // identity: the client asks for gzip by default, and the HEAD answer then announces the compressed length
            Response response = client.send(ClientRequest.of("HEAD", server.uri("/large").toString()).header("Accept-Encoding", "identity"));
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.headers().get("Content-Length")).isEqualTo(String.valueOf(LARGE.length));
            assertThat(response.body()).isEmpty();
            // the connection is still in step: the next answer is the right one
            assertThat(client.send(ClientRequest.get(server.uri("/hello").toString())).body()).asString().isEqualTo("Hello, World!");
        }
    }

    @Test
    void refusesABodyOverTheLimitAndClosesTheConnection() throws Exception {
        try (TestServer server = TestServer.start(routes());
             HttpClient small = HttpClient.create(ClientOptions.builder().loops(1).maxResponseBodySize(100_000).build())) {
            assertThatThrownBy(() -> small.send(ClientRequest.get(server.uri("/large").toString())))
                    .isInstanceOf(HttpClientException.class).hasMessageContaining("larger than 100000 bytes");
            assertThatThrownBy(() -> small.send(ClientRequest.get(server.uri("/chunked").toString())))
                    .isInstanceOf(HttpClientException.class).hasMessageContaining("larger than 100000 bytes");
            assertThat(small.openConnections()).isZero();
            assertThat(small.send(ClientRequest.get(server.uri("/hello").toString())).status()).isEqualTo(200);
        }
    }

    @Test
    void aResponseHeadOverTheLimitFailsTheCall() throws Exception {
        String huge = "x".repeat(40_000);
        try (ScriptedServer upstream = new ScriptedServer((c, r, head) ->
                new ScriptedServer.Respond("HTTP/1.1 200 OK\r\nX-Huge: " + huge + "\r\nContent-Length: 2\r\n\r\nok"));
             HttpClient small = HttpClient.create(ClientOptions.builder().loops(1).maxResponseHeadSize(4096).build())) {
            assertThatThrownBy(() -> small.send(ClientRequest.get(upstream.uri("/"))))
                    .isInstanceOf(HttpClientException.class).hasMessageContaining("larger than 4096 bytes");
        }
    }

    @Test
    void redirectsAreNotFollowedByDefault() throws Exception {
        try (TestServer server = TestServer.start(routes());
             HttpClient following = HttpClient.create(ClientOptions.builder().loops(1).maxRedirects(3).build())) {
            Response response = client.send(ClientRequest.get(server.uri("/moved").toString()));
            assertThat(response.status()).isEqualTo(302);
            assertThat(response.headers().get("Location")).isEqualTo("/hello");
            Response followed = following.send(ClientRequest.get(server.uri("/moved").toString()));
            assertThat(followed.status()).isEqualTo(200);
            assertThat(followed.body()).asString().isEqualTo("Hello, World!");
        }
    }

    @Test
    void streamsABodyNoFasterThanTheSubscriberAsks() throws Exception {
        try (TestServer server = TestServer.start(routes())) {
            Response response = client.streamAsync(ClientRequest.get(server.uri("/chunked").toString()))
                    .toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(response.isStreamed()).isTrue();
            java.util.concurrent.atomic.AtomicLong outstanding = new java.util.concurrent.atomic.AtomicLong();
            List<Long> demandAtEachItem = new java.util.concurrent.CopyOnWriteArrayList<>();
            OneAtATime reader = new OneAtATime(outstanding::incrementAndGet, item -> demandAtEachItem.add(outstanding.getAndDecrement()));
            response.stream().subscribe(reader);
            assertThat(reader.body.get(10, TimeUnit.SECONDS)).hasSize(40 * 7_000);
            assertThat(demandAtEachItem).as("an item only ever arrives against an outstanding request").allMatch(demand -> demand >= 1);
        }
    }

    @Test
    void cancellingAStreamMidBodyClosesItsConnection() throws Exception {
        try (TestServer server = TestServer.start(routes())) {
            Response response = client.streamAsync(ClientRequest.get(server.uri("/chunked").toString()))
                    .toCompletableFuture().get(5, TimeUnit.SECONDS);
            CompletableFuture<Void> first = new CompletableFuture<>();
            response.stream().subscribe(new Flow.Subscriber<>() {
                public void onSubscribe(Flow.Subscription s) {
                    s.request(1);
                    first.thenRun(s::cancel);
                }

                public void onNext(byte[] item) {
                    first.complete(null);
                }

                public void onError(Throwable failure) {
                }

                public void onComplete() {
                }
            });
            first.get(5, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (client.openConnections() > 0 && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(client.openConnections()).isZero();
            assertThat(client.send(ClientRequest.get(server.uri("/hello").toString())).status()).isEqualTo(200);
        }
    }

    @Test
    void aStreamedBodyWithoutDemandPausesReading() throws Exception {
        try (TestServer server = TestServer.start(routes())) {
            Response response = client.streamAsync(ClientRequest.get(server.uri("/chunked").toString()))
                    .toCompletableFuture().get(5, TimeUnit.SECONDS);
            CountDownLatch first = new CountDownLatch(1);
            List<byte[]> items = new java.util.concurrent.CopyOnWriteArrayList<>();
            AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
            CompletableFuture<Void> done = new CompletableFuture<>();
            response.stream().subscribe(new Flow.Subscriber<>() {
                public void onSubscribe(Flow.Subscription s) {
                    subscription.set(s);
                    s.request(1);
                }

                public void onNext(byte[] item) {
                    items.add(item);
                    first.countDown();
                }

                public void onError(Throwable failure) {
                    done.completeExceptionally(failure);
                }

                public void onComplete() {
                    done.complete(null);
                }
            });
            assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(200);
            assertThat(items).hasSize(1); // one item asked, one delivered, however much the server sent
            subscription.get().request(Long.MAX_VALUE);
            done.get(10, TimeUnit.SECONDS);
            assertThat(items.stream().mapToInt(item -> item.length).sum()).isEqualTo(40 * 7_000);
        }
    }

    @Test
    void aCallFromAServerHandlerOnTheEventLoopStaysOnThatLoop() throws Exception {
        try (TestServer upstream = TestServer.start(routes())) {
            Router router = new Router();
            router.with(keel.http.Execution.EVENT_LOOP).getAsync("/where", request -> {
                String handlerThread = Thread.currentThread().getName();
                return client.sendAsync(ClientRequest.get(upstream.uri("/hello").toString()))
                        .thenApply(answer -> Response.ok(handlerThread + " " + Thread.currentThread().getName()));
            });
            try (TestServer server = TestServer.start(router)) {
                for (int i = 0; i < 4; i++) {
                    String[] threads = new String(client.send(ClientRequest.get(server.uri("/where").toString())).body()).split(" ");
                    assertThat(threads[0]).startsWith("keel-loop-");
                    assertThat(threads[1]).as("the answer completes on the handler's own loop").isEqualTo(threads[0]);
                }
            }
        }
    }

    @Test
    void bytesLeftOverAfterAResponseNeverBecomeTheNextAnswer() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((c, r, head) -> new ScriptedServer.Respond(
                "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" + "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nFORGED"));
             HttpClient one = HttpClient.create(ClientOptions.builder().loops(1).build())) {
            String answers = one.sendAsync(ClientRequest.get(upstream.uri("/first")))
                    .thenCompose(first -> one.sendAsync(ClientRequest.get(upstream.uri("/second")))
                            .thenApply(second -> new String(first.body()) + "," + new String(second.body())))
                    .toCompletableFuture().get(5, TimeUnit.SECONDS);
            assertThat(answers).isEqualTo("ok,ok");
            assertThat(upstream.heads).hasSize(2);
            assertThat(upstream.connections()).as("the polluted connection was not reused").isEqualTo(2);
        }
    }

    @Test
    void anUnaskedSwitchToAnotherProtocolFailsTheCallAtOnce() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((c, r, head) -> new ScriptedServer.Respond(
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" + "x".repeat(100_000)))) {
            assertThatThrownBy(() -> client.sendAsync(ClientRequest.get(upstream.uri("/"))).toCompletableFuture().get(2, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(HttpClientException.class).hasMessageContaining("unexpected 101");
        }
    }

    @Test
    void aRedirectToAnInvalidLocationIsReturnedAsItIs() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((c, r, head) -> new ScriptedServer.Respond(
                "HTTP/1.1 302 Found\r\nLocation: /a b\r\nContent-Length: 0\r\n\r\n"));
             HttpClient following = HttpClient.create(ClientOptions.builder().loops(1).maxRedirects(3).build())) {
            assertThat(following.send(ClientRequest.get(upstream.uri("/"))).status()).isEqualTo(302);
        }
    }

    @Test
    void aRedirectChainLongerThanTheLimitStopsAtTheLimit() throws Exception {
        try (ScriptedServer upstream = new ScriptedServer((c, r, head) -> new ScriptedServer.Respond(
                "HTTP/1.1 302 Found\r\nLocation: /again\r\nContent-Length: 0\r\n\r\n"));
             HttpClient following = HttpClient.create(ClientOptions.builder().loops(1).maxRedirects(3).build())) {
            assertThat(following.send(ClientRequest.get(upstream.uri("/"))).status()).isEqualTo(302);
            assertThat(upstream.heads).hasSize(4);
        }
    }

    @Test
    void requestFieldsThatCouldForgeARequestAreRefused() {
        assertThatThrownBy(() -> ClientRequest.get("http://127.0.0.1/").header("X-A", "1\r\nTransfer-Encoding: chunked"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ClientRequest("GET", java.net.URI.create("http://127.0.0.1/"),
                keel.http.Headers.of("X-A", "1\r\nHost: evil"), new byte[0], null, null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ClientRequest.of("GET /x HTTP/1.1\r\n", "http://127.0.0.1/")).isInstanceOf(IllegalArgumentException.class);
        assertThat(ClientRequest.get("http://127.0.0.1/caf\u00e9?q=\u20ac").target()).isEqualTo("/caf%C3%A9?q=%E2%82%AC");
    }

    @Test
    void aFailedCallCarriesTheCause() {
        assertThatThrownBy(() -> client.send(ClientRequest.get("http://127.0.0.1:1/")))
                .isInstanceOf(ConnectionFailedException.class).hasMessageContaining("cannot connect to 127.0.0.1:1");
    }

    @Test
    void aClosedClientRefusesCalls() {
        client.close();
        assertThatThrownBy(() -> client.sendAsync(ClientRequest.get("http://127.0.0.1:1/")).toCompletableFuture().get())
                .isInstanceOf(ExecutionException.class).hasMessageContaining("client closed");
    }
}
