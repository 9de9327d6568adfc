package keel.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import keel.http.Execution;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.server.Threads;
import keel.http.server.Transport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every lab route answers in every transport × execution × threads combination the CLI offers. */
class BenchmarkRoutesTest {
    private static final HttpClient CLIENT = HttpClient.newHttpClient();

    static Stream<Arguments> modes() {
        return Stream.of(
                Arguments.of(Transport.NIO, Execution.EVENT_LOOP, Threads.VIRTUAL),
                Arguments.of(Transport.NIO, Execution.WORKER_POOL, Threads.VIRTUAL),
                Arguments.of(Transport.NIO, Execution.VIRTUAL_THREAD, Threads.VIRTUAL),
                Arguments.of(Transport.BLOCKING, Execution.VIRTUAL_THREAD, Threads.PLATFORM),
                Arguments.of(Transport.BLOCKING, Execution.VIRTUAL_THREAD, Threads.VIRTUAL));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("modes")
    void servesEveryRouteWithClearAnswersToBadParameters(Transport transport, Execution execution, Threads threads) throws Exception {
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).loops(2)
                .transport(transport).execution(execution).threads(threads).build();
        try (HttpServer server = HttpServer.start(options, BenchmarkRoutes.register(new Router()))) {
            String base = "http://127.0.0.1:" + server.port();
            assertThat(get(base, "/benchmark/hello")).isEqualTo("200 Hello, World!");
            assertThat(get(base, "/benchmark/hello-async")).isEqualTo("200 Hello, World!");
            assertThat(get(base, "/benchmark/json-async")).startsWith("200 {\"status\":\"ok\"").contains("\"server\":\"keel\"");
            assertThat(get(base, "/benchmark/cpu?n=35")).isEqualTo("200 fibonacci(35) = 9227465");
            assertThat(get(base, "/benchmark/cpu")).isEqualTo("200 fibonacci(35) = 9227465");
            assertThat(get(base, "/benchmark/cpu-heavy?limit=10000")).isEqualTo("200 primes up to 10000: 1229");
            assertThat(get(base, "/benchmark/latency?ms=20")).isEqualTo("200 slept 20 ms");
            assertThat(get(base, "/benchmark/mixed")).isEqualTo("200 fibonacci(20) = 6765, slept 50 ms");
            assertThat(get(base, "/benchmark/health")).isEqualTo("200 OK");

            HttpResponse<String> json = CLIENT.send(HttpRequest.newBuilder(URI.create(base + "/benchmark/json")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(json.headers().firstValue("content-type")).contains("application/json");
            JsonNode tree = new ObjectMapper().readTree(json.body());
            assertThat(tree.get("status").asText()).isEqualTo("ok");
            assertThat(tree.get("timestamp").asLong()).isPositive();
            assertThat(tree.get("data").get("message").asText()).isEqualTo("Hello, World!");
            assertThat(tree.get("data").get("server").asText()).isEqualTo("keel");
            assertThat(tree.get("data").has("version")).isTrue();

            assertThat(get(base, "/benchmark/cpu?n=93")).startsWith("400 query parameter 'n' must be an integer in 0..92");
            assertThat(get(base, "/benchmark/cpu?n=x")).startsWith("400 query parameter 'n'");
            assertThat(get(base, "/benchmark/cpu-heavy?limit=1")).startsWith("400 query parameter 'limit'");
            assertThat(get(base, "/benchmark/cpu-heavy?limit=999999999")).startsWith("400 query parameter 'limit'");
            assertThat(get(base, "/benchmark/latency?ms=-5")).startsWith("400 query parameter 'ms'");
            assertThat(rawGet(server.port(), "/benchmark/cpu?n=%zz")).startsWith("HTTP/1.1 400 ").contains("malformed query string");
        }
    }

    /** For targets the JDK client refuses to send. */
    private static String rawGet(int port, String target) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            return new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static String get(String base, String path) throws Exception {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(URI.create(base + path)).build(),
                HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.body().strip();
    }
}
