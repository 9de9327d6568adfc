package keel.amqp;

import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code /keel/health} turns 503 as the server's stop begins, while the server still answers during its health grace. */
class HealthRouteTest {
    @Test
    void answers503WithTheServerStoppingDuringTheHealthGrace() throws Exception {
        AtomicReference<HttpServer> running = new AtomicReference<>();
        Router router = HealthRoute.register(new Router(), List.of(HealthCheck.server(running::get)));
        HttpServer server = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).loops(1)
                .healthGrace(Duration.ofSeconds(2)).build(), router);
        running.set(server);
        URI health = URI.create("http://127.0.0.1:" + server.port() + "/keel/health");
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> up = client.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(up.statusCode()).isEqualTo(200);
            assertThat(up.body()).isEqualTo("{\"checks\":{\"server\":{\"state\":\"up\"}},\"status\":\"up\"}");

            CompletableFuture<Void> stopping = CompletableFuture.runAsync(server::stop);
            while (!server.isStopping()) Thread.onSpinWait();
            HttpResponse<String> down = client.send(HttpRequest.newBuilder(health).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(down.statusCode()).isEqualTo(503);
            assertThat(down.body()).isEqualTo("{\"checks\":{\"server\":{\"state\":\"stopping\"}},\"status\":\"down\"}");
            stopping.get(10, TimeUnit.SECONDS);
        }
    }
}
