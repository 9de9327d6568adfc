package keel.http.server;

import keel.core.guard.BlockedLoop;
import keel.http.Execution;
import keel.http.Response;
import keel.http.VirtualScheduler;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The guard over real sockets: a handler that blocks its loop is caught, reported, and (offload) moved. */
class GuardTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    /** Records blocked-loop events the way a metrics binding would. */
    private static final class Recorder implements ServerObserver {
        final List<BlockedLoop> events = new CopyOnWriteArrayList<>();
        final List<String> routes = new CopyOnWriteArrayList<>();

        @Override
        public void onBlockedLoop(BlockedLoop event, String route) {
            events.add(event);
            routes.add(route);
        }
    }

    private static Router blockingRoutes() {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).get("/block", request -> {
            Thread.sleep(300);
            Thread t = Thread.currentThread();
            return Response.ok(t.isVirtual() ? "virtual:" + t : "platform:" + t.getName()); // a virtual thread names its carrier
        });
        router.with(Execution.EVENT_LOOP).get("/fast", request -> Response.ok("fast"));
        return router;
    }

    private static String get(HttpServer server, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    private static ServerOptions.Builder options(ServerOptions.OnBlocked policy) {
        return ServerOptions.builder().host("127.0.0.1").port(0).loops(1)
                .blockedThreshold(Duration.ofMillis(50)).lagProbeInterval(Duration.ofMillis(10)).onBlocked(policy);
    }

    @Test
    void reportsAHandlerBlockingTheLoopWithItsStackAndRoute() throws Exception {
        Recorder recorder = new Recorder();
        try (HttpServer server = HttpServer.start(options(ServerOptions.OnBlocked.WARN).build(), blockingRoutes(), recorder)) {
            assertThat(get(server, "/block")).startsWith("platform:keel-loop-0");
            awaitTrue(() -> !recorder.events.isEmpty());
            BlockedLoop event = recorder.events.getFirst();
            assertThat(recorder.routes.getFirst()).isEqualTo("/block");
            assertThat(Arrays.stream(event.stack()).map(StackTraceElement::toString))
                    .anyMatch(frame -> frame.contains("Thread.sleep"))
                    .anyMatch(frame -> frame.contains("GuardTest"));
            assertThat(server.blockedLoopEvents()).isGreaterThanOrEqualTo(1);
            RouteInfo block = route(server, "/block");
            assertThat(block.blockedEvents()).isGreaterThanOrEqualTo(1);
            assertThat(block.offloaded()).isFalse();
            assertThat(block.effective()).isEqualTo(Execution.EVENT_LOOP);
            // Policy warn: the route stays on the loop.
            assertThat(get(server, "/block")).startsWith("platform:keel-loop-0");
        }
    }

    @Test
    void reportsARoundOfManyShortBlockingHandlers() throws Exception {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).get("/nap", request -> {
            Thread.sleep(20); // under the 50 ms threshold: no single call is caught
            return Response.ok("rested");
        });
        Recorder recorder = new Recorder();
        List<RawClient> clients = new java.util.ArrayList<>();
        try (HttpServer server = HttpServer.start(options(ServerOptions.OnBlocked.WARN).build(), router, recorder)) {
            for (int i = 0; i < 10; i++) clients.add(RawClient.connect(server.port()));
            // Ten requests at once: the loop handles them in one round, 9-10 x 20 ms, past the threshold.
            // The watchdog takes the stack once, when it sees the stall; on a loaded machine that moment
            // can fall on a response being written between two naps: another burst is another look.
            for (int burst = 0; burst < 5 && !anyFrameSleeps(recorder); burst++) {
                for (RawClient client : clients) client.send(RawClient.get("/nap"));
                for (RawClient client : clients) assertThat(client.read().body()).isEqualTo("rested");
                awaitTrue(() -> !recorder.events.isEmpty());
            }
            assertThat(recorder.routes).contains("/nap");
            // The stack is taken whenever the watchdog looks: between two naps it may hold none, but not in every report.
            assertThat(recorder.events.stream().flatMap(event -> Arrays.stream(event.stack())).map(StackTraceElement::toString))
                    .anyMatch(frame -> frame.contains("Thread.sleep"));
        } finally {
            for (RawClient client : clients) client.close();
        }
    }

    /** Outside the class below: reading it there would wait for that class's initialiser too. */
    private static final CountDownLatch UNPIN = new CountDownLatch(1);

    /** A virtual thread that initialises it waits inside the initialiser, pinned to its carrier. */
    private static final class PinsItsCarrier {
        static {
            try {
                UNPIN.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }

        static String touch() {
            return "unpinned";
        }
    }

    /** A virtual thread its loop carries (scheduler {@code loop}) and that holds it pinned is a blocked loop like any other. */
    @Test
    void aVirtualThreadHoldingItsLoopIsReportedAndMovesNoRoute() throws Exception {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).get("/fast", request -> Response.ok("fast"));
        router.with(Execution.VIRTUAL_THREAD).get("/pinned", request -> Response.ok(PinsItsCarrier.touch() + " " + Thread.currentThread()));
        Recorder recorder = new Recorder();
        try (HttpServer server = HttpServer.start(options(ServerOptions.OnBlocked.OFFLOAD).virtualScheduler(VirtualScheduler.LOOP).build(),
                router, recorder);
             RawClient client = RawClient.connect(server.port())) {
            // One burst: the loop answers /fast, then carries /pinned's thread, which holds it.
            client.send(RawClient.get("/fast") + RawClient.get("/pinned"));
            try {
                awaitTrue(() -> !recorder.events.isEmpty());
            } finally {
                UNPIN.countDown();
            }
            assertThat(client.read().body()).isEqualTo("fast");
            assertThat(client.read().body()).startsWith("unpinned").contains("@keel-loop-0");
            assertThat(recorder.routes).as("the stall is not /fast's").containsOnlyNulls();
            assertThat(route(server, "/fast").offloaded()).isFalse();
        }
    }

    private static boolean anyFrameSleeps(Recorder recorder) {
        return recorder.events.stream().flatMap(event -> Arrays.stream(event.stack()))
                .anyMatch(frame -> frame.toString().contains("Thread.sleep"));
    }

    /** Under every scheduler, the loop among them: a route moved off its loop is not carried by it again. */
    @ParameterizedTest
    @EnumSource(VirtualScheduler.class)
    void offloadMovesTheBlockingRouteToVirtualThreadsAndLeavesOthersOnTheLoop(VirtualScheduler scheduler) throws Exception {
        try (HttpServer server = HttpServer.start(options(ServerOptions.OnBlocked.OFFLOAD).virtualScheduler(scheduler).build(), blockingRoutes())) {
            assertThat(get(server, "/block")).startsWith("platform:keel-loop-0");
            awaitTrue(() -> route(server, "/block").offloaded());
            assertThat(get(server, "/block")).startsWith("virtual:").doesNotContain("@keel-loop-");
            RouteInfo block = route(server, "/block");
            assertThat(block.execution()).isEqualTo(Execution.EVENT_LOOP);
            assertThat(block.effective()).isEqualTo(Execution.VIRTUAL_THREAD);
            assertThat(block.sources().execution()).isEqualTo(RouteInfo.Source.GUARD);
            assertThat(route(server, "/fast").offloaded()).isFalse();
            assertThat(route(server, "/fast").sources().execution()).isEqualTo(RouteInfo.Source.CODE);
        }
    }

    @Test
    void theLagProbeSeesTheBlockAndStaysLowOtherwise() throws Exception {
        try (HttpServer server = HttpServer.start(options(ServerOptions.OnBlocked.WARN).build(), blockingRoutes())) {
            awaitTrue(() -> server.lagProbes().getFirst().histogram().count() >= 10);
            assertThat(server.lagProbes().getFirst().histogram().maxMicros()).isLessThan(200_000);
            get(server, "/block");
            awaitTrue(() -> server.lagProbes().getFirst().histogram().maxMicros() >= 200_000);
        }
    }

    @Test
    void theGuardCanBeTurnedOff() throws Exception {
        try (HttpServer server = HttpServer.start(options(ServerOptions.OnBlocked.WARN).guardEnabled(false).build(), blockingRoutes())) {
            get(server, "/block");
            Thread.sleep(100);
            assertThat(server.lagProbes()).isEmpty();
            assertThat(server.blockedLoopEvents()).isZero();
        }
    }

    @Test
    void aRouteLimitAnswers503PastItsConcurrency() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Router router = new Router();
        router.with(Execution.VIRTUAL_THREAD).limit(1).get("/one-at-a-time", request -> {
            release.await(10, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        try (TestServer server = TestServer.start(router); RawClient first = server.raw(); RawClient second = server.raw()) {
            first.send("GET /one-at-a-time HTTP/1.1\r\nHost: t\r\n\r\n");
            Thread.sleep(200);
            second.send("GET /one-at-a-time HTTP/1.1\r\nHost: t\r\n\r\n");
            RawClient.RawResponse refused = second.read();
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.body()).contains("route concurrency limit");
            release.countDown();
            assertThat(first.read().body()).isEqualTo("done");
            second.send("GET /one-at-a-time HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(second.read().body()).isEqualTo("done");
        }
    }

    private static RouteInfo route(HttpServer server, String path) {
        return server.routes().stream().filter(r -> r.path().equals(path)).findFirst().orElseThrow();
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 5 s").isLessThan(deadline);
            Thread.sleep(10);
        }
    }
}
