package keel.lab.scenario;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Keel server in a fresh JVM ({@code keel.lab.Main serve}, the same classpath and java as this
 * one), pinned to a CPU when one is given, with its output in a log file. {@link #close} stops it
 * (SIGTERM, then SIGKILL after 15 s): a scenario ends every JVM it started.
 */
public final class KeelProcess implements AutoCloseable {
    private static final Pattern GC_FLAG = Pattern.compile("-XX:\\+Use(\\w+)GC\\b");
    private static final HttpClient PROBE = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final int port;
    private final Path log;
    private final long startedAt;

    private KeelProcess(Process process, int port, Path log, long startedAt) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.startedAt = startedAt;
    }

    /**
     * Starts {@code serve --port <free port> flags…}; returns once {@code GET /benchmark/health} answers
     * 200 (or throws with the log's tail after {@code readyTimeout}). Lab servers start cold
     * ({@code --warmup false}) and without an access log ({@code --access-log false}: a scenario's
     * load would fill its log file with lines) unless {@code flags} say otherwise.
     */
    public static KeelProcess start(Path log, int cpu, Duration readyTimeout, List<String> jvmOptions, String... flags)
            throws IOException, InterruptedException {
        KeelProcess keel = launch(log, cpu, jvmOptions, flags);
        keel.awaitReady(readyTimeout);
        return keel;
    }

    /**
     * Launches like {@link #start} but returns at once, before the port opens, without sending any
     * request: for measuring a start from the outside ({@link #isListening}, {@link #nanosSinceStart}).
     */
    public static KeelProcess launch(Path log, int cpu, List<String> jvmOptions, String... flags) throws IOException {
        int port = freePort();
        List<String> command = new ArrayList<>();
        if (cpu >= 0) command.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-XX:+PrintCommandLineFlags"); // the log's first line then names the GC the JVM picked
        command.add("--enable-native-access=ALL-UNNAMED"); // as bin/keel starts it
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "keel.lab.Main", "serve", "--port", Integer.toString(port)));
        List<String> given = List.of(flags);
        if (!given.contains("--warmup")) command.addAll(List.of("--warmup", "false"));
        if (!given.contains("--access-log")) command.addAll(List.of("--access-log", "false"));
        // Nothing balances a lab server: its stop need not wait for a balancer to take it out.
        if (!given.contains("--health-grace")) command.addAll(List.of("--health-grace", "0s"));
        command.addAll(given);
        Files.createDirectories(log.toAbsolutePath().getParent());
        long startedAt = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new KeelProcess(process, port, log, startedAt);
    }

    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() - deadline < 0) {
            if (!process.isAlive()) throw new IOException("keel exited with " + process.exitValue() + " before it was ready:\n" + tail());
            try {
                HttpResponse<Void> health = PROBE.send(HttpRequest.newBuilder(uri("/benchmark/health")).timeout(Duration.ofSeconds(2)).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (health.statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(50);
        }
        close();
        throw new IOException("keel not ready within " + timeout.toSeconds() + " s:\n" + tail());
    }

    /** True while something listens on the port (without sending HTTP: for time-to-port measurements). */
    public boolean isListening() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public URI uri(String pathAndQuery) {
        return URI.create("http://127.0.0.1:" + port + pathAndQuery);
    }

    public int port() {
        return port;
    }

    public long pid() {
        return process.pid();
    }

    /** Nanoseconds since the JVM was launched. */
    public long nanosSinceStart() {
        return System.nanoTime() - startedAt;
    }

    /** Live threads of the JVM, from {@code /proc/<pid>/status} (-1 where there is no /proc). */
    public int threads() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("Threads:")) return Integer.parseInt(line.substring(8).trim());
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    /** CPU time (user + system) the JVM used so far, in milliseconds, or -1. */
    public long cpuMillis() {
        return process.toHandle().info().totalCpuDuration().map(Duration::toMillis).orElse(-1L);
    }

    /**
     * The garbage collector the JVM chose or was given ("G1", "Serial", …), from the flags it printed
     * at start ({@code -XX:+PrintCommandLineFlags}); "unknown" when the log does not say.
     */
    public String gc() {
        try (var lines = Files.lines(log)) {
            return lines.limit(20).map(GC_FLAG::matcher).filter(Matcher::find).map(m -> m.group(1)).findFirst().orElse("unknown");
        } catch (IOException | UncheckedIOException e) {
            return "unknown";
        }
    }

    public Path log() {
        return log;
    }

    /** The last lines of the log, for error messages. */
    public String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) return;
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
