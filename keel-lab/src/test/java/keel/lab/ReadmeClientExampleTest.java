package keel.lab;

import keel.http.Execution;
import keel.http.Response;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;
import keel.http.client.RetryPolicy;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Keeps the HTTP client example of docs/client.md true: it runs as printed, against a real upstream. */
class ReadmeClientExampleTest {

    /** The client example, calling the pricing upstream at {@code pricing}. */
    private static HttpServer startClientExample(HttpClient[] created, String pricing) throws Exception {
        HttpClient client = HttpClient.create(ClientOptions.builder()
                .requestTimeout(Duration.ofSeconds(2))       // the whole call, retries included
                .retry(RetryPolicy.exponential(2, Duration.ofMillis(100), Duration.ofSeconds(1)))
                .build());
        created[0] = client;
        Router router = new Router();
        router.with(Execution.EVENT_LOOP)                    // the call runs on this connection's loop
                .postAsync("/price", req -> client.sendAsync(ClientRequest.post(pricing + "/price", req.bodyText()))
                        .thenApply(answer -> Response.json(answer.body())));
        router.with(Execution.VIRTUAL_THREAD)                // the same call in blocking style
                .get("/price/{id}", req -> client.send(ClientRequest.get(pricing + "/price/" + req.pathParam("id"))));
        return HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).build(), router);
    }

    @Test
    void theClientExampleInTheDocsIsTheOneThisTestRuns() throws Exception {
        String page = Files.readString(Path.of("..", "docs", "client.md"));
        int start = page.indexOf("```java\n") + 8;
        assertThat(start).as("the client example in docs/client.md").isGreaterThan(8);
        String example = page.substring(start, page.indexOf("```", start));
        String source = Files.readString(Path.of("src/test/java/keel/lab/ReadmeClientExampleTest.java"));
        for (String line : example.lines().map(String::strip).filter(line -> !line.isEmpty()).toList()) {
            assertThat(source).as("docs/client.md line missing from the tested example").contains(line);
        }
    }

    @Test
    void theClientExampleServesThroughItsUpstream() throws Exception {
        Router pricingRoutes = new Router()
                .post("/price", req -> Response.json("{\"quote\":" + req.bodyText() + "}"))
                .get("/price/{id}", req -> Response.json("{\"id\":\"" + req.pathParam("id") + "\"}"));
        HttpClient[] client = new HttpClient[1];
        try (HttpServer pricing = HttpServer.start(ServerOptions.builder().host("127.0.0.1").port(0).build(), pricingRoutes);
             HttpServer server = startClientExample(client, "http://127.0.0.1:" + pricing.port())) {
            java.net.http.HttpClient jdk = java.net.http.HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + server.port();
            assertThat(jdk.send(HttpRequest.newBuilder(URI.create(base + "/price")).POST(HttpRequest.BodyPublishers.ofString("7")).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("{\"quote\":7}");
            HttpResponse<String> proxied = jdk.send(HttpRequest.newBuilder(URI.create(base + "/price/p-9")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(proxied.body()).isEqualTo("{\"id\":\"p-9\"}");
            assertThat(proxied.headers().firstValue("content-type")).hasValue("application/json");
        } finally {
            if (client[0] != null) client[0].close();
        }
    }
}
