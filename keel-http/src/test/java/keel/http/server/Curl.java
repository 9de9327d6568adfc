package keel.http.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** curl for socket tests: a test that needs it is skipped (an assumption) where it is not installed. */
final class Curl {
    /** How curl ended and what it printed (stdout and stderr together). */
    record Result(int exitCode, String output) {
    }

    private Curl() {
    }

    /** Runs {@code curl -sS --max-time 10} with {@code arguments} and waits for it (15 s at most). */
    static Result run(List<String> arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("curl", "-sS", "--max-time", "10"));
        command.addAll(arguments);
        Process curl;
        try {
            curl = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException notInstalled) {
            assumeTrue(false, "curl is not installed");
            throw notInstalled;
        }
        String output = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!curl.waitFor(15, TimeUnit.SECONDS)) {
            curl.destroyForcibly();
            throw new AssertionError("curl did not finish: " + output);
        }
        return new Result(curl.exitValue(), output);
    }
}
