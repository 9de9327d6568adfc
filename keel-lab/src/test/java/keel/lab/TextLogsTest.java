package keel.lab;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code bin/keel serve} in its default text format, as a real process: a log line is one line
 * (time, level, logger, then the event and its pairs), where JUL's own formatter wrote two.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TextLogsTest {

    @Test
    void aWarningIsOneLineWithTimeLevelLoggerAndEvent() throws Exception {
        int refused;
        try (ServerSocket closed = new ServerSocket(0)) {
            refused = closed.getLocalPort();
        } // nothing listens there now: the broker connection's first try fails and warns
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "keel.lab.Main",
                "serve", "--host", "127.0.0.1", "--port", "0", "--warmup", "false", "--access-log", "false",
                "--amqp-uri", "amqp://guest:guest@127.0.0.1:" + refused)
                .redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String next;
            while ((next = output.readLine()) != null) {
                lines.add(next);
                if (next.contains("event=broker_unreachable")) break;
            }
        } finally {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(lines).filteredOn(line -> line.contains("event=broker_unreachable")).singleElement().asString()
                .matches("time=\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z level=WARNING logger=keel\\.amqp\\.BrokerConnection event=broker_unreachable .*"
                        + "127\\.0\\.0\\.1:" + refused + ".*");
        assertThat(lines).as("JUL's two-line format: a source line, then 'WARNING: event=...'")
                .noneMatch(line -> line.startsWith("WARNING:") || line.endsWith("keel.core.log.Log log"));
    }
}
