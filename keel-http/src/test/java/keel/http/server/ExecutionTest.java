package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordingFile;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Which thread runs a handler under each execution and transport, and what happens when a pool is full. */
class ExecutionTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    private static String threadInfo() {
        Thread t = Thread.currentThread();
        return (t.isVirtual() ? "virtual:" : "platform:") + t.getName();
    }

    private static String get(TestServer server, String path) throws Exception {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(server.uri(path)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    private static Router threadRoutes(Router router) {
        return router
                .get("/sync", request -> Response.ok(threadInfo()))
                .getAsync("/async", request -> CompletableFuture.completedFuture(Response.ok(threadInfo())))
                .getAsync("/async-later", request -> CompletableFuture.supplyAsync(() -> Response.ok(threadInfo()),
                        CompletableFuture.delayedExecutor(20, TimeUnit.MILLISECONDS)));
    }

    @ParameterizedTest
    @EnumSource(Execution.class)
    void runsSyncAndAsyncHandlersWhereTheExecutionSays(Execution execution) throws Exception {
        try (TestServer server = TestServer.start(threadRoutes(new Router()), b -> b.execution(execution))) {
            String expected = switch (execution) {
                case EVENT_LOOP -> "platform:keel-loop-";
                case WORKER_POOL -> "platform:keel-worker-";
                case VIRTUAL_THREAD -> "virtual:keel-vt";
            };
            assertThat(get(server, "/sync")).startsWith(expected);
            assertThat(get(server, "/async")).startsWith(expected);
            // Completed later on another thread: still answered, through the connection's own loop.
            assertThat(get(server, "/async-later")).doesNotStartWith(expected);
        }
    }

    @Test
    void aRouteOverridesTheServerExecution() throws Exception {
        Router router = new Router().get("/default", request -> Response.ok(threadInfo()));
        router.with(Execution.EVENT_LOOP).get("/loop", request -> Response.ok(threadInfo()));
        router.with(Execution.WORKER_POOL).get("/worker", request -> Response.ok(threadInfo()));
        try (TestServer server = TestServer.start(router, b -> b.execution(Execution.VIRTUAL_THREAD))) {
            assertThat(get(server, "/default")).isEqualTo("virtual:keel-vt");
            assertThat(get(server, "/loop")).startsWith("platform:keel-loop-");
            assertThat(get(server, "/worker")).startsWith("platform:keel-worker-");
        }
    }

    @ParameterizedTest
    @EnumSource(Threads.class)
    void theBlockingTransportRunsHandlersOnTheConnectionThread(Threads threads) throws Exception {
        try (TestServer server = TestServer.start(threadRoutes(new Router()), b -> b.transport(Transport.BLOCKING).threads(threads))) {
            String expected = threads == Threads.PLATFORM ? "platform:keel-conn-" : "virtual:keel-conn-vt-";
            assertThat(get(server, "/sync")).startsWith(expected);
            assertThat(get(server, "/async")).startsWith(expected);
            assertThat(get(server, "/async-later")).isNotEmpty();
        }
    }

    @Test
    void aFullWorkerPoolAnswers503WithRetryAfterAtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Router router = new Router().get("/block", request -> {
            release.await(10, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        try (TestServer server = TestServer.start(router, b -> b.execution(Execution.WORKER_POOL).workerThreads(1).workerQueue(1))) {
            assertRefusedWhenFull(server, release, 2, "worker pool is full");
        }
    }

    /**
     * A server sheds overload with 503s that must cost little: refusing a request creates no
     * exception (filling in a stack trace costs microseconds on every request shed). JFR's
     * jdk.JavaExceptionThrow records every Throwable created while the 503s are answered.
     */
    @ParameterizedTest
    @EnumSource(value = Execution.class, names = {"WORKER_POOL", "VIRTUAL_THREAD"})
    void aFullPoolRefusesWithoutCreatingAnException(Execution execution) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Router router = new Router().get("/block", request -> {
            release.await(10, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        Path events = Files.createTempFile("refusals", ".jfr");
        List<RawClient> held = new ArrayList<>();
        try (TestServer server = TestServer.start(router, b -> b.execution(execution).workerThreads(1).workerQueue(1).virtualThreadLimit(2));
             Recording recording = new Recording()) {
            for (int i = 0; i < 2; i++) {
                RawClient client = server.raw();
                client.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n");
                held.add(client);
            }
            awaitBusy(server, 2);
            recording.enable("jdk.JavaExceptionThrow").withStackTrace();
            recording.start();
            try (RawClient extra = server.raw()) {
                for (int i = 0; i < 20; i++) {
                    extra.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n");
                    assertThat(extra.timeout(5_000).read().status()).isEqualTo(503);
                }
            }
            recording.stop();
            recording.dump(events);
            List<String> created = RecordingFile.readAllEvents(events).stream()
                    .filter(e -> e.getStackTrace() != null && e.getStackTrace().getFrames().stream()
                            .anyMatch(f -> f.getMethod().getType().getName().startsWith("keel.")))
                    .map(e -> e.getClass("thrownClass").getName() + " " + e.getString("message"))
                    .toList();
            assertThat(created).isEmpty();
        } finally {
            release.countDown();
            held.forEach(RawClient::close);
            Files.deleteIfExists(events);
        }
    }

    @Test
    void aBurstOfThreadsPlusQueueRequestsIsAlwaysAdmitted() throws Exception {
        java.util.concurrent.atomic.AtomicReference<CountDownLatch> release = new java.util.concurrent.atomic.AtomicReference<>();
        Router router = new Router().get("/block", request -> {
            release.get().await(10, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        try (TestServer server = TestServer.start(router, b -> b.execution(Execution.WORKER_POOL).workerThreads(2).workerQueue(2))) {
            for (int round = 0; round < 20; round++) {
                // A place goes back as its answer leaves, a moment before its thread ends: the burst
                // starts once the last round's threads are idle.
                long idle = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while ((server.server().workerActive() > 0 || server.server().workerQueued() > 0) && System.nanoTime() < idle) {
                    Thread.sleep(1);
                }
                release.set(new CountDownLatch(1));
                List<RawClient> burst = new ArrayList<>();
                for (int i = 0; i < 4; i++) burst.add(server.raw());
                try {
                    // All four at once, while both pool threads are idle: none may be refused.
                    for (RawClient client : burst) client.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n");
                    // Wait until the server admitted all four (two running, two queued), however loaded the machine.
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while ((server.server().workerActive() < 2 || server.server().workerQueued() < 2) && System.nanoTime() < deadline) {
                        Thread.sleep(1);
                    }
                    assertThat(server.server().workerActive() + server.server().workerQueued()).as("round %d: admitted", round).isEqualTo(4);
                    try (RawClient fifth = server.raw()) {
                        fifth.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n");
                        assertThat(fifth.read().status()).as("round %d: past threads + queue", round).isEqualTo(503);
                    }
                    release.get().countDown();
                    for (RawClient client : burst) assertThat(client.read().body()).as("round %d", round).isEqualTo("done");
                } finally {
                    release.get().countDown();
                    burst.forEach(RawClient::close);
                }
            }
        }
    }

    @Test
    void theVirtualThreadLimitAnswers503AtOnce() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Router router = new Router().get("/block", request -> {
            release.await(10, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        try (TestServer server = TestServer.start(router, b -> b.execution(Execution.VIRTUAL_THREAD).virtualThreadLimit(2))) {
            assertRefusedWhenFull(server, release, 2, "concurrency limit");
        }
    }

    @Test
    void busyBlockingPlatformThreadsAnswer503ToNewConnections() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Router router = new Router().get("/block", request -> {
            release.await(10, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        try (TestServer server = TestServer.start(router, b -> b.transport(Transport.BLOCKING).threads(Threads.PLATFORM)
                .blockingThreads(1).blockingQueue(1))) {
            assertRefusedWhenFull(server, release, 2, "threads are busy");
        }
    }

    // Clear text only: over TLS a connection past the limit is closed before any handshake, so there
    // is no 503 to read; ServerTlsTest checks that close on both transports.
    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "BLOCKING"})
    void connectionsPastTheLimitGet503AndACleanClose(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, new Router().get("/", request -> Response.ok("hi")), b -> b.maxConnections(1));
             RawClient first = server.raw()) {
            first.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(first.read().status()).isEqualTo(200);
            try (RawClient second = server.raw()) {
                RawClient.RawResponse refused = second.read();
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.body()).contains("connection limit");
                assertThat(refused.header("connection")).isEqualTo("close");
                assertThat(second.closedByServer()).isTrue();
            }
            first.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n");
            assertThat(first.read().status()).isEqualTo(200);
        }
    }

    /**
     * Occupies {@code capacity} slots with requests that wait on {@code release} (each on its own
     * connection), then checks the next request is refused with 503 at once and the held ones finish.
     */
    private static void assertRefusedWhenFull(TestServer server, CountDownLatch release, int capacity, String reason) throws Exception {
        List<RawClient> held = new ArrayList<>();
        try {
            for (int i = 0; i < capacity; i++) {
                RawClient client = server.raw();
                client.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n");
                held.add(client);
            }
            awaitBusy(server, capacity);
            try (RawClient extra = server.raw()) {
                long sent = System.nanoTime();
                extra.send("GET /block HTTP/1.1\r\nHost: t\r\n\r\n");
                RawClient.RawResponse refused = extra.timeout(5_000).read();
                // Refused at once, not after the held requests (which wait up to 10 s) or a timeout.
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent)).isLessThan(1_000);
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.header("retry-after")).isEqualTo("1");
                assertThat(refused.body()).contains(reason);
            }
            release.countDown();
            // One by one, closing each: on the blocking transport a queued connection gets a thread
            // only when the keep-alive connection before it ends.
            for (RawClient client : held) {
                assertThat(client.read().body()).isEqualTo("done");
                client.close();
            }
        } finally {
            release.countDown();
            held.forEach(RawClient::close);
        }
    }

    /** Waits until the server has accepted the held connections (their requests are then in flight). */
    private static void awaitBusy(TestServer server, int connections) throws InterruptedException {
        server.awaitOpenConnections(connections);
        Thread.sleep(100); // the requests on those connections reach their handlers
    }
}
