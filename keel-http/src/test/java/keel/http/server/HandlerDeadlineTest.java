package keel.http.server;

import keel.http.Execution;
import keel.http.Request;
import keel.http.Response;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;
import keel.http.Rejection;
import keel.http.router.RouteSettings;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** A handler's deadline over real sockets: 503 in time, counted, the thread interrupted, permits back, the connection goes on. */
class HandlerDeadlineTest {
    private static final Duration DEADLINE = Duration.ofMillis(200);

    /** Records the 503s the server counts. */
    private static final class Rejections implements ServerObserver {
        final List<Rejection> reasons = new CopyOnWriteArrayList<>();

        @Override
        public void onRejected(Rejection reason) {
            reasons.add(reason);
        }
    }

    /** {@code /slow} sleeps 10 s unless interrupted (noting when it started and that it was interrupted); {@code /fast} answers at once. */
    static final class SlowRoutes {
        final CountDownLatch interrupted = new CountDownLatch(1);
        final AtomicLong enteredAt = new AtomicLong();

        Router register(Router router) {
            router.get("/slow", this::slow);
            router.get("/fast", request -> Response.ok("fast"));
            return router;
        }

        Response slow(Request request) throws InterruptedException {
            enteredAt.set(System.nanoTime());
            try {
                Thread.sleep(10_000);
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
            return Response.ok("slept");
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void pastTheServersDeadlineTheClientGets503InTimeAndTheConnectionGoesOn(Wire wire) throws Exception {
        SlowRoutes routes = new SlowRoutes();
        Rejections rejections = new Rejections();
        try (TestServer server = TestServer.start(wire, routes.register(new Router()), rejections, b -> b.handlerDeadline(DEADLINE));
             RawClient client = server.raw()) {
            long sent = System.nanoTime();
            client.send(RawClient.get("/slow"));
            RawClient.RawResponse answer = client.timeout(5_000).read();
            long received = System.nanoTime();
            assertThat(answer.status()).isEqualTo(503);
            assertThat(answer.body()).contains("handler deadline of 200 ms passed");
            // Not before the deadline (it starts after the request was sent), and within 100 ms of it (it
            // starts before the handler did).
            assertThat(Duration.ofNanos(received - sent)).isGreaterThanOrEqualTo(DEADLINE);
            assertThat(Duration.ofNanos(received - routes.enteredAt.get())).isLessThan(DEADLINE.plusMillis(100));
            assertThat(routes.interrupted.await(5, TimeUnit.SECONDS)).as("the handler's thread was interrupted").isTrue();
            assertThat(rejections.reasons).containsExactly(Rejection.DEADLINE);
            // Keep-alive: the same connection serves the next request.
            assertThat(answer.header("connection")).isNull();
            assertThat(client.send(RawClient.get("/fast")).read().body()).isEqualTo("fast");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Execution.class, names = {"WORKER_POOL", "VIRTUAL_THREAD"})
    void aRoutesDeadlineGivesBackItsPermits(Execution execution) throws Exception {
        SlowRoutes routes = new SlowRoutes();
        // One request at a time on the route, one worker thread with one queue slot, a virtual-thread limit of one.
        try (TestServer server = TestServer.start(Wire.NIO, routes.register(new Router()), ServerObserver.NONE, b -> b
                .workerThreads(1).workerQueue(1).virtualThreadLimit(1)
                .route(RouteSettings.of("/slow").execution(execution).limit(1).deadline(DEADLINE))
                .route(RouteSettings.of("/fast").execution(execution)));
             RawClient client = server.raw()) {
            for (int round = 0; round < 3; round++) {
                assertThat(client.send(RawClient.get("/slow")).read().status()).as("round %d", round).isEqualTo(503);
                // The route's permit, the pool's place and the virtual-thread permit are back.
                assertThat(client.send(RawClient.get("/fast")).read().body()).as("round %d", round).isEqualTo("fast");
            }
            assertThat(routes.interrupted.await(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @ParameterizedTest
    @EnumSource(Execution.class)
    void anAnswerAfterTheDeadlineIsDroppedNotSentAsASecondResponse(Execution execution) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(1);
        Router router = new Router();
        router.getAsync("/late", request -> CompletableFuture.supplyAsync(() -> {
            awaitIgnoringInterrupts(release);
            finished.countDown();
            return Response.ok("late");
        }));
        router.get("/stubborn", request -> {
            awaitIgnoringInterrupts(release);
            finished.countDown();
            return Response.ok("late");
        });
        router.get("/fast", request -> Response.ok("fast"));
        String target = execution == Execution.EVENT_LOOP ? "/late" : "/stubborn"; // a handler that blocks the loop cannot be cut off
        try (TestServer server = TestServer.start(Wire.NIO, router, ServerObserver.NONE, b -> b.execution(execution).handlerDeadline(DEADLINE));
             RawClient client = server.raw()) {
            assertThat(client.send(RawClient.get(target)).timeout(5_000).read().status()).isEqualTo(503);
            release.countDown();
            assertThat(finished.await(5, TimeUnit.SECONDS)).isTrue();
            Thread.sleep(50); // the late answer, if it were sent, would be on its way to the loop by now
            assertThat(client.send(RawClient.get("/fast")).read().body()).isEqualTo("fast");
        }
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
        while (true) {
            try {
                if (latch.await(10, TimeUnit.SECONDS)) return;
            } catch (InterruptedException ignored) {
                // this handler does not stop when asked
            }
        }
    }

    @Test
    void aRouteWithoutADeadlineRunsPastTheServers() throws Exception {
        Router router = new Router().get("/long", request -> {
            Thread.sleep(DEADLINE.toMillis() * 2);
            return Response.ok("done");
        });
        try (TestServer server = TestServer.start(router, b -> b.handlerDeadline(DEADLINE)
                .route(RouteSettings.of("/long").deadline(Duration.ZERO)));
             RawClient client = server.raw()) {
            assertThat(client.send(RawClient.get("/long")).read().body()).isEqualTo("done");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "BLOCKING"})
    void aHandlerThatFailsOnADownstreamTimeoutAnswers504(Wire wire) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (HttpClient upstreamClient = HttpClient.create(ClientOptions.builder().loops(1).responseTimeout(Duration.ofMillis(100)).build())) {
            Router router = new Router();
            router.get("/hang", request -> {
                release.await(10, TimeUnit.SECONDS);
                return Response.ok("too late");
            });
            int[] port = new int[1];
            router.get("/proxy", request -> Response.bytes(200, "text/plain", upstreamClient.send(ClientRequest.get("http://127.0.0.1:" + port[0] + "/hang")).body()));
            router.getAsync("/proxy-async", request -> upstreamClient.sendAsync(ClientRequest.get("http://127.0.0.1:" + port[0] + "/hang"))
                    .thenApply(response -> Response.bytes(200, "text/plain", response.body())));
            try (TestServer server = TestServer.start(wire, router); RawClient client = server.raw()) {
                port[0] = server.port();
                try {
                    RawClient.RawResponse sync = client.send(RawClient.get("/proxy")).read();
                    assertThat(sync.status()).isEqualTo(504);
                    assertThat(sync.body()).contains("upstream call timed out (response)");
                    assertThat(client.send(RawClient.get("/proxy-async")).read().status()).isEqualTo(504);
                } finally {
                    release.countDown(); // before the server stops: it lets requests in flight finish
                }
            }
        }
    }
}
