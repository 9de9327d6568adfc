package keel.lab;

import keel.http.Execution;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps README.md true: its Java example runs as printed. */
class ReadmeExampleTest {
    static final Path README = Path.of("..", "README.md");

    static final class Reports {
        static String slowQuery(String year) {
            return "report " + year;
        }
    }

    /** The README's example, with port 0 and a stop instead of awaitStop. */
    private static HttpServer startReadmeExample() throws Exception {
        Router router = new Router()
                .get("/hello/{name}", req -> Response.ok("Hello, " + req.pathParam("name")))
                .post("/echo", req -> Response.bytes(200, "application/octet-stream", req.body()));
        router.with(Execution.EVENT_LOOP)            // never blocks: runs on the connection's loop
                .getAsync("/quote", req -> CompletableFuture.supplyAsync(() -> Response.json("{\"q\":42}")));
        router.with(Execution.WORKER_POOL)           // blocking call: bounded pool, 503 when full
                .get("/report", req -> Response.ok(Reports.slowQuery(req.queryParam("year").orElse("2026"))));

        ServerOptions options = ServerOptions.builder()
                .port(0)
                .execution(Execution.VIRTUAL_THREAD) // for routes that do not choose
                .maxBodySize(1 << 20)                // 413 past 1 MiB
                .build();
        return HttpServer.start(options, router);
    }

    @Test
    void theExampleInTheReadmeIsTheOneThisTestRuns() throws Exception {
        String readme = Files.readString(README);
        String source = Files.readString(Path.of("src/test/java/keel/lab/ReadmeExampleTest.java"));
        String example = readme.substring(readme.indexOf("```java\n") + 8, readme.indexOf("```", readme.indexOf("```java\n") + 8));
        for (String line : example.lines().toList()) {
            String code = line.strip();
            if (code.isEmpty() || code.startsWith(".port(8080)") || code.startsWith("try (") || code.startsWith("server.awaitStop")
                    || code.equals("}")) {
                continue;
            }
            assertThat(source).as("README line missing from the tested example").contains(code);
        }
    }

    @Test
    void theExampleServes() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        try (HttpServer server = startReadmeExample()) {
            String base = "http://127.0.0.1:" + server.port();
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/hello/Ada")).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("Hello, Ada");
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/echo")).POST(HttpRequest.BodyPublishers.ofString("ping")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("ping");
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/quote")).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("{\"q\":42}");
            assertThat(client.send(HttpRequest.newBuilder(URI.create(base + "/report?year=1999")).build(), HttpResponse.BodyHandlers.ofString()).body())
                    .isEqualTo("report 1999");
        }
    }
}
