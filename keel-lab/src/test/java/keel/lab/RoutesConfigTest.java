package keel.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The {@code routes:} section of keel.yaml on the lab app's own routes: no code change, only the file. */
class RoutesConfigTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    private Main.Config config(String yaml) throws Exception {
        Path file = Files.writeString(dir.resolve("keel.yaml"), yaml);
        // No broker on port 1: the gateway's route is there, answering 503, and no shared broker is touched.
        return Main.config(List.of("--config", file.toString(), "--host", "127.0.0.1", "--port", "0", "--warmup", "false",
                "--access-log", "false", "--loops", "1", "--amqp-uri", "amqp://guest:guest@127.0.0.1:1"));
    }

    @Test
    void theLabsRoutesTakeTheirSettingsFromTheFile() throws Exception {
        Main.Config config = config("""
                server:
                  execution: virtual-thread
                routes:
                  - path: /benchmark/latency
                    method: GET
                    execution: worker-pool
                    limit: 1
                    deadline: 2s
                  - path: /benchmark/hello
                    max-body: 1KiB
                  - path: /gateway/publish
                    method: POST
                    execution: worker-pool
                    limit: 500
                """);
        try (LabApp app = LabApp.start(config.server(), config.lab(), config.amqp())) {
            String base = "http://127.0.0.1:" + app.server().port();
            CompletableFuture<HttpResponse<String>> slow = CLIENT.sendAsync(
                    HttpRequest.newBuilder(URI.create(base + "/benchmark/latency?ms=5000")).build(), HttpResponse.BodyHandlers.ofString());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (app.server().workerActive() == 0 && !slow.isDone() && System.nanoTime() < deadline) Thread.sleep(2);
            assertThat(app.server().workerActive()).as("the latency route runs on the worker pool").isEqualTo(1);
            assertThat(get(base + "/benchmark/latency?ms=1").statusCode()).as("its limit of 1").isEqualTo(503);
            HttpResponse<String> cut = slow.get(5, TimeUnit.SECONDS);
            assertThat(cut.statusCode()).isEqualTo(503);
            assertThat(cut.body()).contains("handler deadline of 2000 ms passed");
            assertThat(get(base + "/benchmark/latency?ms=1").statusCode()).as("the permit came back").isEqualTo(200);

            JsonNode routes = new ObjectMapper().readTree(get(base + "/keel/routes").body()).get("routes");
            JsonNode latency = route(routes, "/benchmark/latency");
            assertThat(latency.get("execution").asText()).isEqualTo("worker-pool");
            assertThat(latency.get("maxConcurrent").asInt()).isEqualTo(1);
            assertThat(latency.get("deadline").asText()).isEqualTo("2s");
            assertThat(latency.get("sources").toString())
                    .isEqualTo("{\"execution\":\"configuration\",\"maxConcurrent\":\"configuration\",\"deadline\":\"configuration\",\"maxBodySize\":\"default\"}");
            assertThat(route(routes, "/benchmark/hello").get("maxBodySize").asText()).isEqualTo("1KiB");
            assertThat(route(routes, "/keel/routes").get("sources").get("execution").asText()).isEqualTo("code");
            JsonNode gateway = route(routes, "/gateway/publish");
            assertThat(List.of(gateway.get("execution").asText(), gateway.get("maxConcurrent").asText(), gateway.get("sources").get("execution").asText()))
                    .containsExactly("worker-pool", "500", "configuration");
        }
    }

    @Test
    void aPatternTheAppDoesNotServeStopsServeWithExitCode2NamingTheEntry() throws Exception {
        Path file = Files.writeString(dir.resolve("keel.yaml"), """
                routes:
                  - path: /benchmark/latency
                    limit: 10
                  - path: /benchmark/latncy
                    execution: worker-pool
                """);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(List.of("serve", "--config", file.toString(), "--host", "127.0.0.1", "--port", "0", "--amqp-uri", "amqp://guest:guest@127.0.0.1:1"),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).startsWith("keel: routes[1].path: no route has the pattern /benchmark/latncy");
    }

    @Test
    void aBadRouteValueInTheFileIsRefusedNamingItsKey() throws Exception {
        assertThatThrownBy(() -> config("routes:\n  - path: /benchmark/hello\n    execution: fast\n"))
                .hasMessageContaining("routes[0].execution").hasMessageContaining("event-loop|worker-pool|virtual-thread");
        assertThatThrownBy(() -> config("routes:\n  path: /benchmark/hello\n"))
                .hasMessageContaining("'routes'").hasMessageContaining("list");
        assertThatThrownBy(() -> config("routes:\n  - path: /benchmark/hello\n    deadline: [1, 2]\n"))
                .hasMessageContaining("routes[0].deadline").hasMessageContaining("single value");
    }

    private static HttpResponse<String> get(String uri) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode route(JsonNode routes, String path) {
        for (JsonNode route : routes) if (route.get("path").asText().equals(path)) return route;
        throw new AssertionError("no route " + path + " in " + routes);
    }
}
