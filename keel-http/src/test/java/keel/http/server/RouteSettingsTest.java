package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.config.ConfigException;
import keel.http.router.RouteSettings;
import keel.http.router.Router;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Route settings from configuration ({@code routes:}, or {@code ServerOptions.builder().route(..)}) over real sockets. */
class RouteSettingsTest {

    private static String threadInfo() {
        Thread t = Thread.currentThread();
        return (t.isVirtual() ? "virtual:" : "platform:") + t.getName();
    }

    /** Routes as code declares them: one with an execution of its own, the others without. */
    private static Router routes(CountDownLatch release) {
        return routes(new CountDownLatch(1), release);
    }

    /** {@code /block} counts {@code entered} down, then waits for {@code release}. */
    private static Router routes(CountDownLatch entered, CountDownLatch release) {
        Router router = new Router();
        router.with(Execution.EVENT_LOOP).get("/declared", request -> Response.ok(threadInfo()));
        router.get("/plain", request -> Response.ok(threadInfo()));
        router.get("/block", request -> {
            entered.countDown();
            release.await(10, TimeUnit.SECONDS);
            return Response.ok("done");
        });
        router.post("/upload", request -> Response.ok("got " + request.body().length));
        router.put("/upload", request -> Response.ok("put " + request.body().length));
        return router;
    }

    /** The YAML words of one {@code routes:} entry, as the lab's YAML reader hands them over. */
    private static RouteSettings entry(int index, String... fieldsAndValues) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (int i = 0; i < fieldsAndValues.length; i += 2) fields.put(fieldsAndValues[i], fieldsAndValues[i + 1]);
        return ConfigKeys.route(index, fields, "keel.yaml");
    }

    @Test
    void aConfiguredExecutionRunsTheHandlerThereOverTheCodesChoice() throws Exception {
        CountDownLatch release = new CountDownLatch(0);
        try (TestServer server = TestServer.start(routes(release), b -> b.execution(Execution.VIRTUAL_THREAD)
                .route(entry(0, "path", "/declared", "execution", "worker-pool"))
                .route(entry(1, "path", "/plain", "method", "GET", "execution", "event-loop")));
             RawClient client = server.raw()) {
            assertThat(client.send(RawClient.get("/declared")).read().body()).startsWith("platform:keel-worker-");
            assertThat(client.send(RawClient.get("/plain")).read().body()).startsWith("platform:keel-loop-");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "BLOCKING"})
    void aConfiguredLimitAnswers503PastIt(Wire wire) throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (TestServer server = TestServer.start(wire, routes(entered, release), b -> b.route(entry(0, "path", "/block", "limit", "1")));
             RawClient held = server.raw()) {
            held.send(RawClient.get("/block"));
            assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
            try (RawClient extra = server.raw()) {
                RawClient.RawResponse refused = extra.timeout(5_000).send(RawClient.get("/block")).read();
                assertThat(refused.status()).isEqualTo(503);
                assertThat(refused.body()).contains("route concurrency limit reached (1)");
            }
            release.countDown();
            assertThat(held.read().body()).isEqualTo("done");
        }
    }

    @ParameterizedTest
    @EnumSource(value = Wire.class, names = {"NIO", "BLOCKING"})
    void aConfiguredBodyLimitAnswers413ForThatRouteOnly(Wire wire) throws Exception {
        try (TestServer server = TestServer.start(wire, routes(new CountDownLatch(0)), b -> b.maxBodySize(100)
                .route(entry(0, "path", "/upload", "method", "POST", "max-body", "1KiB")))) {
            String kib = "x".repeat(1024);
            try (RawClient client = server.raw()) {
                // Over the server's 100 bytes, within the route's 1 KiB.
                assertThat(client.send(post("POST", kib)).read().body()).isEqualTo("got 1024");
            }
            try (RawClient client = server.raw()) {
                RawClient.RawResponse tooLarge = client.send(post("POST", kib + "y")).read();
                assertThat(tooLarge.status()).isEqualTo(413);
                assertThat(tooLarge.body()).contains("larger than 1024 bytes");
            }
            try (RawClient client = server.raw()) {
                // PUT on the same pattern keeps the server's limit.
                assertThat(client.send(post("PUT", "x".repeat(101))).read().status()).isEqualTo(413);
            }
        }
    }

    private static String post(String method, String body) {
        return method + " /upload HTTP/1.1\r\nHost: t\r\nContent-Length: " + body.length() + "\r\n\r\n" + body;
    }

    @Test
    void aPatternOrMethodThatMatchesNoRouteStopsTheStartNamingTheEntry() {
        assertThatThrownBy(() -> TestServer.start(routes(new CountDownLatch(0)), b -> b
                .route(entry(0, "path", "/plain", "limit", "5"))
                .route(entry(1, "path", "/nowhere", "execution", "worker-pool"))))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("routes[1].path: no route has the pattern /nowhere")
                .hasMessageContaining("/upload");
        assertThatThrownBy(() -> TestServer.start(routes(new CountDownLatch(0)), b -> b
                .route(entry(0, "path", "/upload", "method", "DELETE", "limit", "5"))))
                .isInstanceOf(ConfigException.class)
                .hasMessage("routes[0].method: no DELETE route at /upload (it has POST, PUT)");
    }

    @Test
    void aBadValueIsRefusedNamingItsKey() {
        assertThatThrownBy(() -> entry(0, "path", "/x", "execution", "fast"))
                .hasMessage("invalid value 'fast' for routes[0].execution in keel.yaml: expected one of event-loop|worker-pool|virtual-thread");
        assertThatThrownBy(() -> entry(3, "path", "/x", "limit", "0"))
                .hasMessageStartingWith("invalid value '0' for routes[3].limit in keel.yaml");
        assertThatThrownBy(() -> entry(0, "path", "/x", "deadline", "soon"))
                .hasMessageStartingWith("invalid value 'soon' for routes[0].deadline in keel.yaml");
        assertThatThrownBy(() -> entry(0, "path", "/x", "max-body", "huge"))
                .hasMessageStartingWith("invalid value 'huge' for routes[0].max-body in keel.yaml");
        assertThatThrownBy(() -> entry(0, "path", "x"))
                .hasMessageStartingWith("invalid value 'x' for routes[0].path in keel.yaml");
        assertThatThrownBy(() -> entry(0, "path", "/x", "method", "get"))
                .hasMessageStartingWith("invalid value 'get' for routes[0].method in keel.yaml");
        assertThatThrownBy(() -> entry(1, "execution", "worker-pool"))
                .hasMessage("routes[1].path is missing in keel.yaml: every route entry names its pattern");
        assertThatThrownBy(() -> entry(0, "path", "/x", "threads", "8"))
                .hasMessageStartingWith("unknown configuration key 'routes[0].threads' in keel.yaml");
    }

    @Test
    void keelRoutesShowsEachSettingAndWhereItCameFrom() throws Exception {
        Router router = routes(new CountDownLatch(0));
        router.with(Execution.WORKER_POOL).limit(7).deadline(Duration.ofSeconds(3)).get("/coded", request -> Response.ok("c"));
        java.util.concurrent.atomic.AtomicReference<HttpServer> running = new java.util.concurrent.atomic.AtomicReference<>();
        AdminRoutes.register(router, running::get);
        try (TestServer server = TestServer.start(router, b -> b.execution(Execution.VIRTUAL_THREAD).maxBodySize(4096)
                .route(RouteSettings.of("/plain").execution(Execution.WORKER_POOL).limit(500).deadline(Duration.ofSeconds(2)).maxBodySize(1 << 20))
                .route(entry(1, "path", "/coded", "deadline", "none")))) {
            running.set(server.server());
            String json;
            try (RawClient client = server.raw()) {
                json = client.send(RawClient.get("/keel/routes")).read().body();
            }
            assertThat(json).contains("{\"method\":\"GET\",\"path\":\"/plain\",\"execution\":\"worker-pool\",\"effective\":\"worker-pool\","
                    + "\"offloaded\":false,\"blockedEvents\":0,\"maxConcurrent\":500,\"deadline\":\"2s\",\"maxBodySize\":\"1MiB\","
                    + "\"sources\":{\"execution\":\"configuration\",\"maxConcurrent\":\"configuration\",\"deadline\":\"configuration\","
                    + "\"maxBodySize\":\"configuration\"}}");
            assertThat(json).contains("{\"method\":\"GET\",\"path\":\"/coded\",\"execution\":\"worker-pool\",\"effective\":\"worker-pool\","
                    + "\"offloaded\":false,\"blockedEvents\":0,\"maxConcurrent\":7,\"deadline\":\"none\",\"maxBodySize\":\"4KiB\","
                    + "\"sources\":{\"execution\":\"code\",\"maxConcurrent\":\"code\",\"deadline\":\"configuration\",\"maxBodySize\":\"default\"}}");
            assertThat(json).contains("{\"method\":\"POST\",\"path\":\"/upload\",\"execution\":\"virtual-thread\",\"effective\":\"virtual-thread\","
                    + "\"offloaded\":false,\"blockedEvents\":0,\"maxConcurrent\":0,\"deadline\":\"1m\",\"maxBodySize\":\"4KiB\","
                    + "\"sources\":{\"execution\":\"default\",\"maxConcurrent\":\"default\",\"deadline\":\"default\",\"maxBodySize\":\"default\"}}");
        }
    }
}
