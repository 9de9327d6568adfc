package keel.http.server;

import keel.http.Execution;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Pipelined requests behind a synchronous handler that runs off the loop join its run: they run after
 * it on its thread (one hop for the batch), and their answers still leave in request order, each under
 * its own deadline; a request that cannot join (another execution, a body, a close) waits for its turn
 * and is never run ahead; a client that leaves mid-run gets nothing written and takes no place with it.
 */
class PipelineRunTest {
    private static final Duration DEADLINE = Duration.ofMillis(200);

    /** {@code /thread} answers the id of the thread its handler ran on, with its {@code i}. */
    private static Router router(Execution offLoop, AtomicInteger ran) {
        Router router = new Router();
        router.with(offLoop)
                .get("/thread", req -> {
                    ran.incrementAndGet();
                    return Response.ok(req.queryParam("i").orElse("?") + "@" + Thread.currentThread().threadId());
                })
                .post("/thread", req -> {
                    ran.incrementAndGet();
                    return Response.ok("post " + req.queryParam("i").orElse("?") + " " + req.bodyText());
                })
                .get("/stream", req -> Response.stream(200, "text/plain", subscriber -> {
                    SubmissionPublisher<byte[]> items = new SubmissionPublisher<>();
                    items.subscribe(subscriber);
                    for (String item : List.of("one", "two", "three")) items.submit(item.getBytes());
                    items.close();
                }));
        router.with(Execution.EVENT_LOOP).get("/loop", req -> Response.ok("loop " + req.queryParam("i").orElse("?")));
        return router;
    }

    private static String index(RawClient.RawResponse response) {
        return response.body().substring(0, response.body().indexOf('@'));
    }

    private static String thread(RawClient.RawResponse response) {
        return response.body().substring(response.body().indexOf('@') + 1);
    }

    @ParameterizedTest
    @EnumSource(value = Execution.class, names = {"WORKER_POOL", "VIRTUAL_THREAD"})
    void pipelinedRequestsRunOneAfterAnotherOnTheFirstOnesThread(Execution execution) {
        AtomicInteger ran = new AtomicInteger();
        try (TestServer server = TestServer.start(Wire.NIO, router(execution, ran)); RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < 12; i++) burst.append(RawClient.get("/thread?i=" + i));
            client.send(burst.toString());
            RawClient.RawResponse first = client.read();
            assertThat(index(first)).isEqualTo("0");
            for (int i = 1; i < 12; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(index(response)).as("response %d", i).isEqualTo(Integer.toString(i));
                assertThat(thread(response)).as("response %d ran on the first one's thread", i).isEqualTo(thread(first));
            }
            assertThat(ran.get()).isEqualTo(12);
        }
    }

    /** {@code server.pipeline-run} bounds a run: 2 makes runs of three, each on a virtual thread of its own; 0 hands each over alone. */
    @org.junit.jupiter.params.provider.ValueSource(ints = {0, 2})
    @ParameterizedTest
    void aRunTakesAtMostThePipelineRunBehindItsFirstRequest(int pipelineRun) {
        AtomicInteger ran = new AtomicInteger();
        try (TestServer server = TestServer.start(Wire.NIO, router(Execution.VIRTUAL_THREAD, ran), b -> b.pipelineRun(pipelineRun));
             RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < 9; i++) burst.append(RawClient.get("/thread?i=" + i));
            client.send(burst.toString());
            List<String> threads = new java.util.ArrayList<>();
            for (int i = 0; i < 9; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(index(response)).isEqualTo(Integer.toString(i));
                threads.add(thread(response));
            }
            int runLength = pipelineRun + 1;
            for (int i = 0; i < 9; i++) {
                String first = threads.get(i - i % runLength);
                if (i % runLength == 0) {
                    assertThat(threads.subList(0, i)).as("request %d starts a run on a thread of its own", i).doesNotContain(first);
                } else {
                    assertThat(threads.get(i)).as("request %d joined the run of request %d", i, i - i % runLength).isEqualTo(first);
                }
            }
            assertThat(ran.get()).isEqualTo(9);
        }
    }

    /** Under a limit of one virtual thread the whole batch runs in the one run that holds it, none refused, none alone. */
    @org.junit.jupiter.api.Test
    void aRunHoldsOnePlaceUnderItsLimitHoweverManyJoinIt() {
        AtomicInteger ran = new AtomicInteger();
        try (TestServer server = TestServer.start(Wire.NIO, router(Execution.VIRTUAL_THREAD, ran), b -> b.virtualThreadLimit(1));
             RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < 8; i++) burst.append(RawClient.get("/thread?i=" + i));
            client.send(burst.toString());
            RawClient.RawResponse first = client.read();
            assertThat(first.status()).isEqualTo(200);
            for (int i = 1; i < 8; i++) {
                RawClient.RawResponse response = client.read();
                assertThat(response.status()).as("response %d", i).isEqualTo(200);
                assertThat(thread(response)).as("response %d ran in the first one's run", i).isEqualTo(thread(first));
            }
            // The place came back with the last answer: a request alone gets it.
            client.send(RawClient.get("/thread?i=8"));
            assertThat(client.read().status()).isEqualTo(200);
        }
    }

    @ParameterizedTest
    @EnumSource(Wire.class)
    void requestsThatCannotJoinWaitForTheirTurnAndNothingRunsPastAClose(Wire wire) throws Exception {
        AtomicInteger ran = new AtomicInteger();
        try (TestServer server = TestServer.start(wire, router(Execution.WORKER_POOL, ran)); RawClient client = server.raw()) {
            client.send(RawClient.get("/thread?i=0") + RawClient.get("/thread?i=1")
                    + RawClient.get("/loop?i=2")
                    + "POST /thread?i=3 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
                    + RawClient.get("/stream") + RawClient.get("/thread?i=5")
                    + "GET /thread?i=6 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    + RawClient.get("/thread?i=7"));
            assertThat(index(client.read())).isEqualTo("0");
            assertThat(index(client.read())).isEqualTo("1");
            assertThat(client.read().body()).isEqualTo("loop 2");
            assertThat(client.read().body()).isEqualTo("post 3 body");
            assertThat(client.read().body()).isEqualTo("onetwothree");
            assertThat(index(client.read())).isEqualTo("5");
            RawClient.RawResponse closing = client.read();
            assertThat(index(closing)).isEqualTo("6");
            assertThat(closing.header("Connection")).isEqualTo("close");
            assertThat(client.closedByServer()).isTrue();
            assertThat(ran.get()).as("the request after the close never ran").isEqualTo(5);
        }
    }

    @ParameterizedTest
    @EnumSource(value = Execution.class, names = {"WORKER_POOL", "VIRTUAL_THREAD"})
    void aRequestRunAheadHasItsOwnDeadlineFromItsTurn(Execution execution) throws Exception {
        HandlerDeadlineTest.SlowRoutes slow = new HandlerDeadlineTest.SlowRoutes();
        Router router = new Router();
        router.with(execution)
                .get("/slow", slow::slow)
                .get("/fast", req -> Response.ok("fast " + req.queryParam("i").orElse("?")));
        try (TestServer server = TestServer.start(Wire.NIO, router, b -> b.handlerDeadline(DEADLINE)); RawClient client = server.raw()) {
            long sent = System.nanoTime();
            client.send(RawClient.get("/fast?i=0") + RawClient.get("/slow") + RawClient.get("/fast?i=2"));
            assertThat(client.timeout(5_000).read().body()).isEqualTo("fast 0");
            RawClient.RawResponse expired = client.read();
            assertThat(expired.status()).isEqualTo(503);
            assertThat(expired.body()).contains("handler deadline of 200 ms passed");
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(DEADLINE);
            assertThat(slow.interrupted.await(5, TimeUnit.SECONDS)).as("the run's thread was interrupted").isTrue();
            assertThat(client.read().body()).as("the run goes on after it").isEqualTo("fast 2");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Execution.class, names = {"WORKER_POOL", "VIRTUAL_THREAD"})
    void aClientThatLeavesMidRunTakesNoPlaceWithIt(Execution execution) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        Router router = new Router();
        router.with(execution)
                .get("/held", req -> {
                    ran.incrementAndGet();
                    release.await();
                    return Response.ok("held");
                })
                .get("/fast", req -> Response.ok("fast"));
        try (TestServer server = TestServer.start(Wire.NIO, router, b -> b.workerThreads(1).workerQueue(1).virtualThreadLimit(2))) {
            try (RawClient leaving = server.raw()) {
                StringBuilder burst = new StringBuilder();
                for (int i = 0; i < 8; i++) burst.append(RawClient.get("/held"));
                leaving.send(burst.toString());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (ran.get() == 0 && System.nanoTime() - deadline < 0) Thread.onSpinWait();
                assertThat(ran.get()).isEqualTo(1);
            }
            release.countDown();
            // Every place the run's requests held comes back (as the run ends, a moment after the release):
            // two requests at once then fit under the two places again; a place kept would refuse one for good.
            try (RawClient one = server.raw(); RawClient two = server.raw()) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                boolean bothServed;
                do {
                    one.send(RawClient.get("/fast"));
                    two.send(RawClient.get("/fast"));
                    bothServed = one.timeout(5_000).read().status() == 200 & two.timeout(5_000).read().status() == 200;
                } while (!bothServed && System.nanoTime() - deadline < 0);
                assertThat(bothServed).isTrue();
            }
        }
    }
}
