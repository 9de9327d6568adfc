package keel.lab.scenario;

import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Keel's lingering close under a small storm: every answer arrives, no connection is reset. */
class HttpCloseStormTest {
    @Test
    void everyVariantGetsEveryAnswerWithoutAReset() throws Exception {
        Router router = new Router().get("/benchmark/hello", request -> Response.ok("Hello, World!"));
        try (HttpServer server = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).loops(2).build(), router)) {
            for (HttpCloseStorm.Variant variant : HttpCloseStorm.Variant.values()) {
                List<HttpCloseStorm.Outcome> outcomes = HttpCloseStorm.run(server.port(), 50, variant);
                assertThat(outcomes).as(variant.label).hasSize(50).allMatch(HttpCloseStorm.Outcome::answered).noneMatch(HttpCloseStorm.Outcome::reset);
                boolean serverCloses = variant != HttpCloseStorm.Variant.CLIENT_CLOSES;
                assertThat(outcomes).as(variant.label).allMatch(o -> Double.isNaN(o.eofMs()) != serverCloses);
            }
        }
    }
}
