package keel.http.server;

import keel.http.Response;
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

/** The {@code virtual-thread} execution's threads run on Keel's carriers (or the JDK's when asked), which grow past pinned ones. */
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
    void virtualThreadsRunOnKeelsCarriersByDefault() throws Exception {
        assertThat(VirtualCarriers.available()).as("the test JVM opens java.lang, as bin/keel does").isTrue();
        try (TestServer server = TestServer.start(carrierRoute(), b -> b.execution(Execution.VIRTUAL_THREAD))) {
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
        try (TestServer server = TestServer.start(router, b -> b.execution(Execution.VIRTUAL_THREAD))) {
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
