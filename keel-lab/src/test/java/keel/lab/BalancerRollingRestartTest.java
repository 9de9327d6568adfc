package keel.lab;

import keel.amqp.AmqpOptions;
import keel.amqp.gateway.GatewayMode;
import keel.http.server.ServerOptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two lab apps with the gateway behind a real HAProxy, configured by {@code lib/balancer.sh} as
 * {@code bin/keel cluster up} configures it: under a steady stream of {@code POST /gateway/publish}
 * through HAProxy, each instance in turn stops as SIGTERM stops it (its health 503 for its health
 * grace, then its drain) and a new one starts on its port. Not one request may fail.
 */
class BalancerRollingRestartTest {
    private static final Path BALANCER_SCRIPT = Path.of("..", "lib", "balancer.sh").toAbsolutePath().normalize();
    /** Longer than HAProxy takes to mark an instance down (fall 2: a check within 1 s, the next 500 ms later). */
    private static final Duration HEALTH_GRACE = Duration.ofSeconds(3);
    private static final int CLIENTS = 8;

    @Test
    void aRollingRestartUnderLoadLosesNoRequest() throws Exception {
        String queue = "keel.test.balancer." + UUID.randomUUID().toString().substring(0, 8);
        AmqpOptions amqp = AmqpOptions.builder().uri(TestServices.amqpUri())
                .mode(GatewayMode.ASYNC).routingKey(queue).build();
        int front = freePort(), stats = freePort();
        int[] ports = {freePort(), freePort()};
        Path config = Files.createTempFile("keel-haproxy", ".cfg");
        LabApp[] apps = new LabApp[ports.length];
        Process haproxy = null;
        try (HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            for (int i = 0; i < ports.length; i++) apps[i] = start(ports[i], amqp);
            Files.writeString(config, haproxyConfig(front, stats, ports));
            haproxy = startHaproxy(config);
            Haproxy balancer = new Haproxy(client, stats);
            for (int i = 0; i < ports.length; i++) balancer.await(i + 1, "UP", Duration.ofSeconds(60));

            Load load = new Load(client, URI.create("http://127.0.0.1:" + front + "/gateway/publish"));
            load.start();
            load.awaitAnswers(200);
            for (int i = 0; i < ports.length; i++) {
                LabApp stopping = apps[i];
                // What SIGTERM does in bin/keel serve (Main): close the app, which stops the server gracefully.
                CompletableFuture<Void> stopped = CompletableFuture.runAsync(stopping::close);
                balancer.await(i + 1, "DOWN", HEALTH_GRACE);
                assertThat(accepts(ports[i])).as("keel%d still accepts when HAProxy has marked it down", i + 1).isTrue();
                stopped.get(60, TimeUnit.SECONDS);
                long before = load.answered();
                apps[i] = start(ports[i], amqp);
                balancer.await(i + 1, "UP", Duration.ofSeconds(60));
                load.awaitAnswers(before + 200);
            }
            load.stop();

            assertThat(load.failures).as("requests that failed through HAProxy during the rolling restart").isEmpty();
            assertThat(load.answered()).isGreaterThan(400);
        } finally {
            if (haproxy != null) {
                haproxy.destroy();
                haproxy.waitFor(10, TimeUnit.SECONDS);
            }
            for (LabApp app : apps) if (app != null) app.close();
            Files.deleteIfExists(config);
            TestServices.deleteQueue(amqp, queue);
        }
    }

    private static LabApp start(int port, AmqpOptions amqp) throws IOException, InterruptedException {
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(port).loops(1).healthGrace(HEALTH_GRACE)
                .grace(Duration.ofSeconds(10)).build();
        return LabApp.start(options, LabSettings.defaults(), amqp);
    }

    private static Process startHaproxy(Path config) {
        try {
            return new ProcessBuilder("haproxy", "-db", "-f", config.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IllegalStateException("HAProxy could not start (" + e.getMessage() + "). This test needs the real balancer: "
                    + "apt-get install haproxy (bin/keel cluster up and bin/keel test install it).", e);
        }
    }

    /** The configuration {@code bin/keel cluster up} writes, from {@code balancer_haproxy_config} in lib/balancer.sh. */
    private static String haproxyConfig(int front, int stats, int[] ports) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", "-c", "source \"$0\"; balancer_haproxy_config \"$@\"",
                BALANCER_SCRIPT.toString(), Integer.toString(front), Integer.toString(stats)));
        for (int port : ports) command.add(Integer.toString(port));
        Process bash = new ProcessBuilder(command).redirectErrorStream(true).start();
        String text = new String(bash.getInputStream().readAllBytes());
        assertThat(bash.waitFor()).as(text).isZero();
        return text;
    }

    /** HAProxy's view of each instance, from its statistics page (CSV). */
    private record Haproxy(HttpClient client, int statsPort) {
        String status(int instance) throws Exception {
            String csv = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + statsPort + "/;csv")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            for (String line : csv.split("\n")) {
                String[] fields = line.split(",");
                if (fields.length > 17 && fields[0].equals("keel") && fields[1].equals("keel" + instance)) return fields[17];
            }
            return "unknown";
        }

        void await(int instance, String status, Duration within) throws Exception {
            long deadline = System.nanoTime() + within.toNanos();
            String seen = "unknown";
            while (System.nanoTime() - deadline < 0) {
                try {
                    seen = status(instance);
                } catch (IOException e) {
                    seen = e.toString(); // HAProxy still starting
                }
                if (seen.equals(status)) return;
                Thread.sleep(50);
            }
            throw new AssertionError("HAProxy did not mark keel" + instance + " " + status + " within " + within + " (last: " + seen + ")");
        }
    }

    /** {@value #CLIENTS} clients, each posting one message after another through HAProxy, every outcome but a 202 kept. */
    private static final class Load {
        final HttpClient client;
        final URI uri;
        final AtomicBoolean running = new AtomicBoolean(true);
        final LongAdder accepted = new LongAdder();
        final Map<String, Integer> failures = new ConcurrentHashMap<>();
        final List<Thread> threads = new ArrayList<>();

        Load(HttpClient client, URI uri) {
            this.client = client;
            this.uri = uri;
        }

        void start() {
            for (int i = 0; i < CLIENTS; i++) threads.add(Thread.ofVirtual().start(this::post));
        }

        private void post() {
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"device\":\"balancer-test\",\"temperature\":21.5}")).build();
            while (running.get()) {
                try {
                    HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                    if (response.statusCode() == 202) accepted.increment();
                    else failures.merge(response.statusCode() + " " + response.body(), 1, Integer::sum);
                } catch (IOException e) {
                    failures.merge(e.toString(), 1, Integer::sum);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        long answered() {
            return accepted.sum();
        }

        void awaitAnswers(long count) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (answered() < count) {
                assertThat(System.nanoTime() - deadline).as("%d messages accepted within 30 s (failures: %s)", count, failures).isNegative();
                Thread.sleep(20);
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            for (Thread thread : threads) thread.join(Duration.ofSeconds(30));
        }
    }

    private static boolean accepts(int port) {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", port)) {
            return socket.isConnected();
        } catch (IOException e) {
            return false;
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
