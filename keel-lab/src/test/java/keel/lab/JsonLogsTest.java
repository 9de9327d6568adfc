package keel.lab;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import keel.core.log.JsonFormatter;
import keel.core.log.Log;
import keel.core.log.LogFormat;
import keel.http.Response;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.http.server.Transport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code log.format: json}: every line Keel writes is one JSON object, as a strict parser (Jackson) reads it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JsonLogsTest {
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private static JsonNode parse(String line) throws IOException {
        JsonNode node = JSON.readTree(line);
        assertThat(node.isObject()).as(line).isTrue();
        return node;
    }

    @ParameterizedTest
    @EnumSource(Transport.class)
    void accessLinesAreJsonObjectsWithEveryField(Transport transport, @TempDir Path dir) throws Exception {
        Path file = dir.resolve("access.log");
        Router router = new Router().post("/echo", request -> Response.bytes(200, "text/plain", request.body()));
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).transport(transport).loops(1)
                .logFormat(LogFormat.JSON).accessLog(true).accessLogFile(file).build();
        String response;
        try (HttpServer server = HttpServer.start(options, router);
             Socket socket = new Socket("127.0.0.1", server.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(("POST /echo?q=\"a\\b\"&t=%09 HTTP/1.1\r\nHost: x\r\nX-Request-Id: {\"id\":\"x\\y\"}\r\nContent-Length: 5\r\n"
                    + "Connection: close\r\n\r\nhello").getBytes(StandardCharsets.ISO_8859_1));
            response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/missing")).build(),
                    HttpResponse.BodyHandlers.discarding());
        } // the stop flushes the log
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(2);

        JsonNode echo = parse(lines.get(0));
        assertThat(Instant.parse(echo.get("time").asText())).isBefore(Instant.now().plusSeconds(1));
        assertThat(echo.get("level").asText()).isEqualTo("INFO");
        assertThat(echo.get("logger").asText()).isEqualTo("keel.access");
        assertThat(echo.get("event").asText()).isEqualTo("access");
        assertThat(echo.get("request_id").asText()).isEqualTo("{\"id\":\"x\\y\"}");
        assertThat(echo.get("method").asText()).isEqualTo("POST");
        assertThat(echo.get("target").asText()).isEqualTo("/echo?q=\"a\\b\"&t=%09");
        assertThat(echo.get("status").isInt()).isTrue();
        assertThat(echo.get("status").asInt()).isEqualTo(200);
        assertThat(echo.get("bytes_in").asLong()).isEqualTo(5);
        assertThat(echo.get("bytes_out").asLong()).isEqualTo(response.length());
        assertThat(echo.get("duration_us").isIntegralNumber()).isTrue();
        assertThat(echo.get("execution").asText()).isEqualTo(transport == Transport.NIO ? "virtual-thread" : "blocking");
        assertThat(echo.get("loop").isNull()).isEqualTo(transport == Transport.BLOCKING);
        if (transport == Transport.NIO) assertThat(echo.get("loop").asText()).isEqualTo("keel-loop-0");
        assertThat(response).contains("\r\nX-Request-Id: {\"id\":\"x\\y\"}\r\n");

        JsonNode missing = parse(lines.get(1));
        assertThat(missing.get("status").asInt()).isEqualTo(404);
        assertThat(missing.get("request_id").asText()).matches("[0-9a-f]{12}-[0-9a-f]+");
    }

    @Test
    void logLinesAreJsonObjectsWhateverTheirValuesHold() throws Exception {
        Logger jul = Logger.getLogger(JsonLogsTest.class.getName());
        ByteArrayOutputStream written = new ByteArrayOutputStream();
        StreamHandler handler = new StreamHandler(written, new JsonFormatter());
        jul.setUseParentHandlers(false);
        jul.addHandler(handler);
        String path = "C:\\temp\\\"x\"\n\t\u0001 café 😀 \ud800";
        try {
            Log.useFormat(LogFormat.JSON);
            Log.of(JsonLogsTest.class).warn("odd_values", new IOException("disk \"full\"\nsecond line"),
                    "path", path, "n", 42, "ratio", 1.5, "nothing", null, "nan", Double.NaN);
            jul.info("a plain JUL message with \"quotes\"");
            handler.flush();
        } finally {
            Log.useFormat(LogFormat.TEXT);
            jul.removeHandler(handler);
            jul.setUseParentHandlers(true);
        }
        List<String> lines = written.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(2);

        JsonNode warning = parse(lines.get(0));
        assertThat(warning.get("level").asText()).isEqualTo("WARNING");
        assertThat(warning.get("logger").asText()).isEqualTo(JsonLogsTest.class.getName());
        assertThat(warning.get("event").asText()).isEqualTo("odd_values");
        assertThat(warning.get("path").asText()).as("every character round-trips, a lone surrogate too").isEqualTo(path);
        assertThat(warning.get("n").asInt()).isEqualTo(42);
        assertThat(warning.get("ratio").asDouble()).isEqualTo(1.5);
        assertThat(warning.get("nothing").isNull()).isTrue();
        assertThat(warning.get("nan").asText()).isEqualTo("NaN");
        assertThat(warning.get("exception").asText()).startsWith("java.io.IOException: disk \"full\"\nsecond line\n\tat keel.lab.JsonLogsTest.");

        JsonNode plain = parse(lines.get(1));
        assertThat(plain.get("message").asText()).isEqualTo("a plain JUL message with \"quotes\"");
        assertThat(plain.get("level").asText()).isEqualTo("INFO");
    }

    /** {@code bin/keel serve --log-format json} as a real process: its log lines, banner and access lines. */
    @Test
    void serveWritesEveryLineAsJson() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "keel.lab.Main",
                "serve", "--host", "127.0.0.1", "--port", "0", "--warmup", "false", "--log-format", "json")
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            Pattern serving = Pattern.compile("serving on http://[^:]+:(\\d+)");
            Matcher port = serving.matcher("");
            String next;
            while (!port.find() && (next = output.readLine()) != null) {
                lines.add(next);
                port = serving.matcher(next);
            }
            assertThat(port.hasMatch()).as("a 'serving on' line").isTrue();
            HttpClient client = HttpClient.newHttpClient();
            String base = "http://127.0.0.1:" + port.group(1);
            client.send(HttpRequest.newBuilder(URI.create(base + "/benchmark/hello")).header("X-Request-Id", "json-test-1").build(),
                    HttpResponse.BodyHandlers.discarding());
            client.send(HttpRequest.newBuilder(URI.create(base + "/nope")).build(), HttpResponse.BodyHandlers.discarding());
            assertThat(new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).start().waitFor()).isZero();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            output.lines().forEach(lines::add);
        } finally {
            process.destroyForcibly();
        }
        List<JsonNode> parsed = new ArrayList<>();
        for (String line : lines) parsed.add(parse(line));
        assertThat(parsed).extracting(node -> node.get("event").asText()).contains("serving", "access", "stopping");
        assertThat(parsed).filteredOn(node -> node.get("event").asText().equals("access"))
                .extracting(node -> node.get("request_id").asText() + " " + node.get("target").asText() + " " + node.get("status").asInt())
                .contains("json-test-1 /benchmark/hello 200")
                .anyMatch(text -> text.endsWith(" /nope 404"));
        assertThat(parsed).allSatisfy(node -> {
            assertThat(node.has("time")).isTrue();
            assertThat(node.has("level")).isTrue();
            assertThat(node.has("logger")).isTrue();
        });
    }
}
