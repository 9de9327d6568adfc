package keel.lab.measure;

import keel.http.Response;
import keel.http.client.ClientRequest;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The closed-model driver against an in-process server: counts, error kinds and per-second figures. */
class LoadDriverTest {
    @Test
    void usersLoopForTheDurationAndCountAnswersByKind() throws Exception {
        AtomicInteger served = new AtomicInteger();
        Router router = new Router()
                .get("/ok", request -> {
                    served.incrementAndGet();
                    return Response.ok("ok");
                })
                .get("/busy", request -> Response.status(503));
        try (HttpServer server = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).loops(1).build(), router)) {
            String base = "http://127.0.0.1:" + server.port();
            LoadResult result = new LoadDriver(4, Duration.ofMillis(1500), Duration.ofSeconds(5),
                    user -> ClientRequest.get(base + (user == 0 ? "/busy" : "/ok"))).run();

            assertThat(result.users()).isEqualTo(4);
            assertThat(result.requests()).isGreaterThan(20).isEqualTo(result.succeeded() + result.errors());
            assertThat(result.succeeded()).isEqualTo(served.get());
            assertThat(result.errorKinds()).containsOnlyKeys("503");
            assertThat(result.errorKinds().get("503")).isEqualTo(result.errors());
            assertThat(result.timeouts()).isZero();
            assertThat(result.successPercent()).isBetween(50.0, 90.0);
            assertThat(result.perSecond()).isNotEmpty();
            assertThat(result.perSecond().stream().mapToLong(LoadResult.Second::answers).sum()).isEqualTo(result.requests());
            assertThat(result.p50Ms()).isPositive().isLessThanOrEqualTo(result.p99Ms());
            assertThat(result.p99Ms()).isLessThanOrEqualTo(result.maxMs());
        }
    }
}
