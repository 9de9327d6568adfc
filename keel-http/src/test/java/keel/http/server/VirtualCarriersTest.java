package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.VirtualScheduler;
import keel.http.execution.carriers.VirtualCarriers;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The {@code virtual-thread} execution's threads run on Keel's carriers when asked (the JDK's by default), which grow past pinned ones. */
class VirtualCarriersTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    /** A mounted virtual thread names its carrier: {@code VirtualThread[#41,keel-vt]/runnable@keel-carrier-0}. */
    private static Router carrierRoute() {
        return new Router().get("/carrier", request -> Response.ok(Thread.currentThread().toString()));
    }

    private static HttpResponse<String> get(TestServer server, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(server.uri(path)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void virtualThreadsRunOnKeelsCarriersWhenAskedFor() throws Exception {
        assertThat(VirtualCarriers.available()).as("the test JVM opens java.lang, as bin/keel does for this scheduler").isTrue();
        try (TestServer server = TestServer.start(carrierRoute(), b -> b.execution(Execution.VIRTUAL_THREAD).virtualScheduler(VirtualScheduler.KEEL))) {
            assertThat(get(server, "/carrier").body()).contains("keel-vt").contains("@keel-carrier-");
        }
    }

    @Test
    void theJdkSchedulerWhenAskedFor() throws Exception {
        try (TestServer server = TestServer.start(carrierRoute(),
                b -> b.execution(Execution.VIRTUAL_THREAD).virtualScheduler(VirtualScheduler.JDK))) {
            assertThat(get(server, "/carrier").body()).contains("keel-vt").contains("@ForkJoinPool");
        }
    }

    @Test
    void theConnectionsLoopCarriesItsVirtualThreadWhenAskedFor() throws Exception {
        try (TestServer server = TestServer.start(carrierRoute(),
                b -> b.loops(1).execution(Execution.VIRTUAL_THREAD).virtualScheduler(VirtualScheduler.LOOP))) {
            assertThat(get(server, "/carrier").body()).contains("keel-vt").contains("@keel-loop-");
        }
    }

    @Test
    void aVirtualThreadWaitingOnItsLoopLeavesTheLoopToTheOtherConnections() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Router router = carrierRoute().get("/wait", request -> {
            entered.countDown();
            try {
                return Response.ok((release.await(10, TimeUnit.SECONDS) ? "released " : "timed out ") + Thread.currentThread());
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return Response.status(500);
            }
        });
        try (TestServer server = TestServer.start(router,
                b -> b.loops(1).execution(Execution.VIRTUAL_THREAD).virtualScheduler(VirtualScheduler.LOOP))) {
            CompletableFuture<HttpResponse<String>> waiting =
                    CLIENT.sendAsync(HttpRequest.newBuilder(server.uri("/wait")).build(), HttpResponse.BodyHandlers.ofString());
            try {
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                // The one loop answers another connection while the first request's thread waits, unmounted.
                HttpResponse<String> other = get(server, "/carrier");
                assertThat(other.body()).contains("@keel-loop-");
                assertThat(waiting).isNotDone();
            } finally {
                release.countDown();
            }
            assertThat(waiting.get(10, TimeUnit.SECONDS).body()).startsWith("released").contains("@keel-loop-");
        }
    }

    @Test
    void aPipelinedBatchRunsOnOneVirtualThreadItsLoopCarries() {
        Router router = new Router().get("/thread", request -> Response.ok(request.queryParam("i").orElse("?") + " " + Thread.currentThread()));
        try (TestServer server = TestServer.start(Wire.NIO, router,
                b -> b.loops(1).execution(Execution.VIRTUAL_THREAD).virtualScheduler(VirtualScheduler.LOOP));
             RawClient client = server.raw()) {
            StringBuilder burst = new StringBuilder();
            for (int i = 0; i < 8; i++) burst.append(RawClient.get("/thread?i=" + i));
            client.send(burst.toString());
            String firstThread = null;
            for (int i = 0; i < 8; i++) {
                String[] answer = client.read().body().split(" ", 2); // "3 VirtualThread[#41,keel-vt]/runnable@keel-loop-0"
                assertThat(answer[0]).as("answers in request order").isEqualTo(Integer.toString(i));
                assertThat(answer[1]).contains("@keel-loop-");
                String thread = answer[1].substring(0, answer[1].indexOf(']'));
                if (firstThread == null) firstThread = thread;
                assertThat(thread).as("request %d ran on the first one's virtual thread", i).isEqualTo(firstThread);
            }
        }
    }

    @Test
    void aVirtualThreadOnItsLoopPastItsDeadlineIsInterruptedAndAnswered503() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        Router router = new Router()
                .get("/wait", request -> {
                    try {
                        new CountDownLatch(1).await(10, TimeUnit.SECONDS);
                        return Response.ok("not interrupted");
                    } catch (InterruptedException expected) {
                        if (Thread.currentThread().toString().contains("@keel-loop-")) interrupted.countDown();
                        return Response.ok("interrupted");
                    }
                })
                .get("/fast", request -> Response.ok("fast"));
        try (TestServer server = TestServer.start(Wire.NIO, router, ServerObserver.NONE,
                b -> b.loops(1).execution(Execution.VIRTUAL_THREAD).virtualScheduler(VirtualScheduler.LOOP).handlerDeadline(Duration.ofMillis(200)));
             RawClient client = server.raw()) {
            assertThat(client.send(RawClient.get("/wait")).timeout(5_000).read().status()).isEqualTo(503);
            assertThat(interrupted.await(5, TimeUnit.SECONDS)).isTrue();
            assertThat(client.send(RawClient.get("/fast")).read().body()).isEqualTo("fast");
        }
    }

    /** Outside the class below: reading it there would wait for that class's initialiser too. */
    private static final CountDownLatch RELEASE = new CountDownLatch(1);

    /** Initialised by the first thread that touches it, which waits inside: every thread that touches it meanwhile waits too, pinned to its carrier. */
    private static final class HeldInInitialiser {
        static {
            try {
                RELEASE.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        static String touch() {
            return "released";
        }
    }

    @Test
    void aRequestIsAnsweredWhileEveryCoreCarrierIsPinned() throws Exception {
        // A virtual thread in (or waiting for) a class initialiser cannot leave its carrier: as many as
        // there are core carriers hold them all, and the next request needs the pool to grow.
        int pinned = Runtime.getRuntime().availableProcessors();
        CountDownLatch entered = new CountDownLatch(pinned);
        Router router = carrierRoute().get("/pinned", request -> {
            entered.countDown();
            return Response.ok(HeldInInitialiser.touch());
        });
        try (TestServer server = TestServer.start(router, b -> b.execution(Execution.VIRTUAL_THREAD).virtualScheduler(VirtualScheduler.KEEL))) {
            List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
            try {
                for (int i = 0; i < pinned; i++) {
                    held.add(CLIENT.sendAsync(HttpRequest.newBuilder(server.uri("/pinned")).build(), HttpResponse.BodyHandlers.ofString()));
                }
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                HttpResponse<String> response = get(server, "/carrier");
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.body()).contains("@keel-carrier-");
                assertThat(held).noneMatch(CompletableFuture::isDone);
            } finally {
                RELEASE.countDown();
            }
            for (CompletableFuture<HttpResponse<String>> answer : held) {
                assertThat(answer.get(10, TimeUnit.SECONDS).body()).isEqualTo("released");
            }
        }
    }
}
