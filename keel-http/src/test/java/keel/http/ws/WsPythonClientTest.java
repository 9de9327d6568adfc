package keel.http.ws;

import keel.http.Execution;
import keel.http.router.Router;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Another implementation of permessage-deflate against Keel's server: Python's {@code websockets}
 * library (script {@code websockets_echo.py}) echoes text, binary and fragmented messages with each
 * kind of offer. Without the library the test is skipped ({@code pip install websockets});
 * with {@code KEEL_REQUIRE_WEBSOCKETS=1} (as in CI) it fails instead.
 */
class WsPythonClientTest {
    private static final long TIMEOUT_SECONDS = 60;

    private static boolean importable;

    @BeforeAll
    static void checkWebsockets() throws Exception {
        try {
            Process check = new ProcessBuilder("python3", "-c", "import websockets.sync.client").redirectErrorStream(true).start();
            importable = check.waitFor(30, TimeUnit.SECONDS) && check.exitValue() == 0;
            if (!importable) check.destroyForcibly();
        } catch (IOException noPython) {
            importable = false;
        }
    }

    /** Each test is skipped (and says why) without the library; in CI it fails instead. */
    @BeforeEach
    void websocketsInstalled() {
        assertThat(importable || !"1".equals(System.getenv("KEEL_REQUIRE_WEBSOCKETS")))
                .as("KEEL_REQUIRE_WEBSOCKETS=1 but python3 cannot import websockets.sync.client (pip install websockets)").isTrue();
        assumeTrue(importable, "python3 cannot import websockets.sync.client: pip install websockets (11 or newer)");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "default             | EVENT_LOOP     | \"permessage-deflate\"",
            "default             | VIRTUAL_THREAD | \"permessage-deflate\"",
            "no-context-takeover | WORKER_POOL    | \"permessage-deflate; server_no_context_takeover; client_no_context_takeover\"",
            "small-client-window | VIRTUAL_THREAD | \"permessage-deflate; client_max_window_bits=9\"",
            "small-server-window | VIRTUAL_THREAD | null"})
    void echoesThroughTheWebsocketsLibrary(String mode, Execution execution, String agreed) throws Exception {
        Router router = new Router();
        router.with(execution).ws("/echo", WsEchoTest.ECHO);
        try (WsServer server = WsServer.start(router)) {
            String report = run(server.uri("/echo").toString(), mode);
            assertThat(report).isEqualTo("{\"extensions\": " + agreed + ", \"echoes\": [true, true, true, true, true, true, true]}");
        }
    }

    /** Runs the script and returns its last line of output; fails with all of it when the script fails. */
    private static String run(String uri, String mode) throws IOException, InterruptedException {
        Path script = Path.of(WsPythonClientTest.class.getResource("websockets_echo.py").getPath());
        Path output = Files.createTempFile("websockets_echo", ".txt");
        try {
            Process python = new ProcessBuilder("python3", script.toString(), uri, mode)
                    .redirectErrorStream(true).redirectOutput(output.toFile()).start();
            if (!python.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                python.destroyForcibly();
                throw new AssertionError("the script did not finish within " + TIMEOUT_SECONDS + " s:\n" + Files.readString(output));
            }
            String text = Files.readString(output).strip();
            assertThat(python.exitValue()).as("python3 websockets_echo.py exit code; output:\n%s", text).isZero();
            return text.substring(text.lastIndexOf('\n') + 1);
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
