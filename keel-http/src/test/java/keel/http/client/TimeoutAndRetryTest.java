package keel.http.client;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.TestServer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Connect, response and request timeouts; the retry policy; the blocking send's refusal to block a loop. */
class TimeoutAndRetryTest {

    private static HttpClient client(ClientOptions.Builder options) {
        return HttpClient.create(options.loops(1).build());
    }

    private static Router slowRoutes() {
        Router router = new Router();
        router.with(Execution.VIRTUAL_THREAD).get("/slow", request -> {
            Thread.sleep(3_000);
            return Response.ok("late");
        });
        return router;
    }

    @Test
    void connectTimeoutFiresWhenTheServerDoesNotAccept() throws Exception {
        // A listener whose accept queue is full: the kernel drops further SYNs, so connect hangs.
        try (ServerSocket full = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            List<Socket> fillers = new ArrayList<>();
            try {
                for (int i = 0; i < 8; i++) {
                    Socket filler = new Socket();
                    try {
                        filler.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), full.getLocalPort()), 200);
                    } catch (IOException e) {
                        filler.close();
                        break; // the queue is full
                    }
                    fillers.add(filler);
                }
                try (HttpClient client = client(ClientOptions.builder().connectTimeout(Duration.ofMillis(300)))) {
                    assertThatThrownBy(() -> client.send(ClientRequest.get("http://127.0.0.1:" + full.getLocalPort() + "/")))
                            .isInstanceOfSatisfying(ClientTimeoutException.class,
                                    e -> assertThat(e.kind()).isEqualTo(ClientTimeoutException.Kind.CONNECT))
                            .hasMessageContaining("connect timeout after 300 ms");
                    assertThat(client.openConnections()).isZero();
                }
            } finally {
                for (Socket filler : fillers) filler.close();
            }
        }
    }

    @Test
    void responseTimeoutFiresWhenTheFirstByteIsLate() throws Exception {
        try (TestServer server = TestServer.start(slowRoutes());
             HttpClient client = client(ClientOptions.builder().responseTimeout(Duration.ofMillis(200)))) {
            assertThatThrownBy(() -> client.send(ClientRequest.get(server.uri("/slow").toString())))
                    .isInstanceOfSatisfying(ClientTimeoutException.class,
                            e -> assertThat(e.kind()).isEqualTo(ClientTimeoutException.Kind.RESPONSE))
                    .hasMessageContaining("response timeout after 200 ms");
            assertThat(client.openConnections()).isZero(); // a late answer must not reach the next request
        }
    }

    @Test
    void requestTimeoutBoundsTheWholeCall() throws Exception {
        try (TestServer server = TestServer.start(slowRoutes());
             HttpClient client = client(ClientOptions.builder().responseTimeout(Duration.ZERO))) {
            assertThatThrownBy(() -> client.send(ClientRequest.get(server.uri("/slow").toString()).timeout(Duration.ofMillis(250))))
                    .isInstanceOfSatisfying(ClientTimeoutException.class,
                            e -> assertThat(e.kind()).isEqualTo(ClientTimeoutException.Kind.REQUEST))
                    .hasMessageContaining("request timeout after 250 ms");
        }
    }

    /** A route that answers 503 to its first {@code failures} calls and records when each call arrived. */
    private static Router flaky(int failures, List<Long> arrivals) {
        AtomicInteger calls = new AtomicInteger();
        return new Router()
                .get("/flaky", request -> {
                    arrivals.add(System.nanoTime());
                    return calls.getAndIncrement() < failures ? Response.status(503) : Response.ok("ok");
                })
                .post("/flaky", request -> {
                    arrivals.add(System.nanoTime());
                    return calls.getAndIncrement() < failures ? Response.status(503) : Response.ok("ok");
                });
    }

    @Test
    void retriesExactlyOnceAfterTheConfiguredDelay() throws Exception {
        List<Long> arrivals = new CopyOnWriteArrayList<>();
        try (TestServer server = TestServer.start(flaky(1, arrivals));
             HttpClient client = client(ClientOptions.builder().retry(RetryPolicy.fixed(1, Duration.ofMillis(300))))) {
            Response response = client.send(ClientRequest.get(server.uri("/flaky").toString()));
            assertThat(response.status()).isEqualTo(200);
            assertThat(arrivals).hasSize(2);
            assertThat(arrivals.get(1) - arrivals.get(0)).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
        }
    }

    @Test
    void givesUpAfterItsRetriesAndAnswersWhatTheServerSaid() throws Exception {
        List<Long> arrivals = new CopyOnWriteArrayList<>();
        try (TestServer server = TestServer.start(flaky(10, arrivals));
             HttpClient client = client(ClientOptions.builder().retry(RetryPolicy.fixed(1, Duration.ofMillis(50))))) {
            assertThat(client.send(ClientRequest.get(server.uri("/flaky").toString())).status()).isEqualTo(503);
            assertThat(arrivals).hasSize(2);
        }
    }

    @Test
    void doesNotRetryByDefaultNorAPostUnlessToldItIsIdempotent() throws Exception {
        List<Long> arrivals = new CopyOnWriteArrayList<>();
        try (TestServer server = TestServer.start(flaky(10, arrivals));
             HttpClient plain = client(ClientOptions.builder());
             HttpClient retrying = client(ClientOptions.builder().retry(RetryPolicy.fixed(1, Duration.ofMillis(10))))) {
            plain.send(ClientRequest.get(server.uri("/flaky").toString()));
            assertThat(arrivals).hasSize(1);
            retrying.send(ClientRequest.post(server.uri("/flaky").toString(), "{}"));
            assertThat(arrivals).hasSize(2);
            retrying.send(ClientRequest.post(server.uri("/flaky").toString(), "{}").idempotent(true));
            assertThat(arrivals).hasSize(4);
        }
    }

    @Test
    void theRequestTimeoutBoundsRetriesAndTheirWaitsToo() throws Exception {
        List<Long> arrivals = new CopyOnWriteArrayList<>();
        try (TestServer server = TestServer.start(flaky(100, arrivals));
             HttpClient client = client(ClientOptions.builder().retry(RetryPolicy.fixed(50, Duration.ofMillis(100))))) {
            assertThatThrownBy(() -> client.send(ClientRequest.get(server.uri("/flaky").toString()).timeout(Duration.ofMillis(450))))
                    .isInstanceOfSatisfying(ClientTimeoutException.class,
                            e -> assertThat(e.kind()).isEqualTo(ClientTimeoutException.Kind.REQUEST));
            assertThat(arrivals.size()).as("about one try per 100 ms wait within 450 ms").isBetween(2, 6);
        }
    }

    @Test
    void aCallOnALoopThatStopsFailsInsteadOfWaitingForever() throws Exception {
        CountDownLatch arrived = new CountDownLatch(1);
        Router router = new Router();
        router.with(Execution.VIRTUAL_THREAD).get("/slow", request -> {
            arrived.countDown();
            Thread.sleep(3_000);
            return Response.ok("late");
        });
        keel.core.loop.LoopGroup loops = new keel.core.loop.LoopGroup(1, "test-loop");
        try (TestServer server = TestServer.start(router);
             HttpClient client = HttpClient.create(ClientOptions.builder().retry(RetryPolicy.fixed(3, Duration.ofMillis(50))).build(),
                     loops.loops())) {
            CompletableFuture<Response> call = client.sendAsync(ClientRequest.get(server.uri("/slow").toString())).toCompletableFuture();
            assertThat(arrived.await(5, TimeUnit.SECONDS)).isTrue();
            loops.shutdown(5, TimeUnit.SECONDS);
            assertThatThrownBy(() -> call.get(2, TimeUnit.SECONDS)).hasMessageContaining("stopped");
        }
    }

    @Test
    void closingTheClientFailsACallWaitingToRetry() throws Exception {
        List<Long> arrivals = new CopyOnWriteArrayList<>();
        try (TestServer server = TestServer.start(flaky(10, arrivals))) {
            HttpClient client = client(ClientOptions.builder().retry(RetryPolicy.fixed(1, Duration.ofSeconds(30))));
            CompletableFuture<Response> call = client.sendAsync(ClientRequest.get(server.uri("/flaky").toString())).toCompletableFuture();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (arrivals.isEmpty() && System.nanoTime() < deadline) Thread.sleep(5);
            Thread.sleep(100); // the 503 arrived; the call now waits 30 s to retry
            client.close();
            assertThatThrownBy(() -> call.get(2, TimeUnit.SECONDS)).hasMessageContaining("client closed");
            assertThat(arrivals).hasSize(1);
        }
    }

    @Test
    void retriesAConnectionFailureWithExponentialBackoff() throws Exception {
        int closedPort;
        try (ServerSocket probe = new ServerSocket(0)) {
            closedPort = probe.getLocalPort();
        }
        RetryPolicy policy = RetryPolicy.exponential(3, Duration.ofMillis(40), Duration.ofMillis(100));
        try (HttpClient client = client(ClientOptions.builder().retry(policy))) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.send(ClientRequest.get("http://127.0.0.1:" + closedPort + "/")))
                    .isInstanceOf(HttpClientException.class).hasMessageContaining("cannot connect");
            // three waits of at least half of 40, 80 and 100 ms (50 % jitter)
            assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(110));
        }
        assertThat(policy.delayNanos(1)).isBetween(TimeUnit.MILLISECONDS.toNanos(20), TimeUnit.MILLISECONDS.toNanos(40));
        assertThat(policy.delayNanos(3)).isBetween(TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.MILLISECONDS.toNanos(100));
    }

    @Test
    void theBlockingSendRefusesToRunOnAnEventLoop() throws Exception {
        keel.core.loop.LoopGroup loops = new keel.core.loop.LoopGroup(1, "send-test-loop");
        try (TestServer server = TestServer.start(new Router().get("/hello", request -> Response.ok("hi")));
             HttpClient client = HttpClient.create(ClientOptions.builder().build(), loops.loops())) {
            String uri = server.uri("/hello").toString();
            CompletableFuture<Throwable> refused = new CompletableFuture<>();
            loops.next().execute(() -> {
                try {
                    client.send(ClientRequest.get(uri));
                    refused.complete(null);
                } catch (Throwable e) {
                    refused.complete(e);
                }
            });
            assertThat(refused.get(5, TimeUnit.SECONDS))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("called on event loop thread 'send-test-loop-0'")
                    .hasMessageContaining("use sendAsync");
            // the same call from a virtual thread just works
            CompletableFuture<Integer> fromVirtual = new CompletableFuture<>();
            Thread.ofVirtual().start(() -> {
                try {
                    fromVirtual.complete(client.send(ClientRequest.get(uri)).status());
                } catch (Exception e) {
                    fromVirtual.completeExceptionally(e);
                }
            });
            assertThat(fromVirtual.get(5, TimeUnit.SECONDS)).isEqualTo(200);
        } finally {
            loops.shutdown(5, TimeUnit.SECONDS);
        }
    }
}
