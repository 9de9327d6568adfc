package keel.lab;

import keel.http.server.Warmup;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code keel serve --startup-report} as a real process: the timeline names every phase of the start,
 * in order, the broker connection's start before the warm-up.
 */
class StartupReportTest {
    private static final Pattern PHASE = Pattern.compile("^\\s+(\\d+\\.\\d)\\s+(\\d+\\.\\d)\\s+(.+)$");

    @Test
    void reportListsEveryPhaseFromTheJvmToTheOpenPort() throws Exception {
        List<String> phases = new ArrayList<>();
        List<Double> endedAt = new ArrayList<>();
        String total = null;
        Process process = launch("--warmup", "true", "--startup-report");
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            for (int i = 0; i < 200 && (line = output.readLine()) != null && !line.contains("serving on"); i++) {
                Matcher phase = PHASE.matcher(line);
                if (phase.find()) {
                    phases.add(phase.group(3));
                    endedAt.add(Double.parseDouble(phase.group(2)));
                } else if (line.contains("total, from the launch")) {
                    total = line.trim();
                }
            }
        } finally {
            process.destroyForcibly();
        }
        assertThat(phases).satisfiesExactly(
                name -> assertThat(name).isEqualTo("launcher (before the JVM)"),
                name -> assertThat(name).isEqualTo("JVM start to main"),
                name -> assertThat(name).startsWith("reading the JVM's start"),
                name -> assertThat(name).isEqualTo("configuration"),
                name -> assertThat(name).isEqualTo("metrics registry"),
                name -> assertThat(name).isEqualTo("HTTP client"),
                name -> assertThat(name).startsWith("routes"),
                name -> assertThat(name).isEqualTo("gateway"),
                name -> assertThat(name).isEqualTo("broker and database connections started (in the background)"),
                name -> assertThat(name).startsWith("server: TLS keys"),
                name -> assertThat(name).isEqualTo("warm-up: resolver and client"),
                name -> assertThat(name).isEqualTo("warm-up: throwaway server"),
                name -> assertThat(name).isEqualTo("warm-up: " + Warmup.DEFAULT_REQUESTS + " requests, 8 in flight"),
                name -> assertThat(name).isEqualTo("warm-up: " + Warmup.DEFAULT_REQUESTS / 4 + " connections of one request"),
                // A warm-up this short does not settle: no wait for the JIT, no collection.
                name -> assertThat(name).isEqualTo("warm-up: throwaway server stopped"),
                name -> assertThat(name).isEqualTo("server: routes and executions"),
                name -> assertThat(name).startsWith("server: nio transport"),
                name -> assertThat(name).isEqualTo("port open"));
        assertThat(endedAt).isSorted();
        assertThat(endedAt.getLast()).isPositive();
        assertThat(total).as("the total line").isNotNull();
    }

    @Test
    void withoutTheFlagNoReportIsPrinted() throws Exception {
        Process process = launch("--warmup", "false");
        List<String> lines = new ArrayList<>();
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            for (int i = 0; i < 200 && (line = output.readLine()) != null; i++) {
                lines.add(line);
                if (line.contains("serving on")) break;
            }
        } finally {
            process.destroyForcibly();
        }
        assertThat(lines).anyMatch(line -> line.contains("serving on")).noneMatch(line -> line.contains("startup timeline"))
                .as("SLF4J (the broker client's logging) finds its named provider and says nothing").noneMatch(line -> line.startsWith("SLF4J"));
    }

    private static Process launch(String... flags) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), "keel.lab.Main",
                "serve", "--host", "127.0.0.1", "--port", "0", "--access-log", "false"));
        command.addAll(List.of(flags));
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }
}
