package keel.lab;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code keel serve} as a real process: SIGTERM finishes the request in flight, closes the broker
 * and database connections (the ingest pipeline says so as it stops), and exits with 0.
 */
class SignalShutdownTest {
    @Test
    void sigtermStopsGracefullyAndExitsWithZero() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "keel.lab.Main",
                "serve", "--host", "127.0.0.1", "--port", "0", "--grace", "10s", "--ingest", "true")
                .redirectErrorStream(true).start();
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             HttpClient client = HttpClient.newHttpClient()) {
            // Log lines (the broker connection's, say) may come before the banner.
            Pattern serving = Pattern.compile("serving on http://[^:]+:(\\d+)");
            Matcher port = serving.matcher("");
            String next;
            for (int i = 0; i < 50 && (next = output.readLine()) != null && !(port = serving.matcher(next)).find(); i++) {
                // skip it
            }
            assertThat(port.hasMatch()).as("a 'serving on' banner").isTrue();
            String base = "http://127.0.0.1:" + port.group(1);

            CompletableFuture<HttpResponse<String>> inFlight = client.sendAsync(
                    HttpRequest.newBuilder(URI.create(base + "/benchmark/latency?ms=700")).build(), HttpResponse.BodyHandlers.ofString());
            Thread.sleep(300);
            // As an orchestrator stops a service (Process.destroy would also close our end of its output).
            assertThat(new ProcessBuilder("kill", "-TERM", Long.toString(process.pid())).start().waitFor()).isZero();

            HttpResponse<String> answered = inFlight.get(10, TimeUnit.SECONDS);
            assertThat(answered.statusCode()).isEqualTo(200);
            assertThat(answered.body()).isEqualTo("slept 700 ms");
            assertThat(process.waitFor(15, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();
            List<String> rest = output.lines().toList();
            assertThat(rest).anyMatch(line -> line.contains("SIGTERM, stopping gracefully"));
            // Closed before the process exits, not cut off by the exit once the server has stopped.
            assertThat(rest).anyMatch(line -> line.contains("event=ingest_stopped"));
        } finally {
            process.destroyForcibly();
        }
    }
}
