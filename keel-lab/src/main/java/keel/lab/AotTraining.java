package keel.lab;

import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;

/**
 * The training run of the JDK's AOT cache ({@code bin/keel} runs it with {@code -XX:AOTCacheOutput}):
 * a {@code serve} on a free loopback port, with its warm-up, then the lab app's requests, a few times
 * each, then a graceful stop. The JVM writes the cache as it exits: the classes this loaded and
 * linked (and, on a JDK after 25, the profiles of what ran), which later starts load instead of
 * building.
 *
 * <p>Every class in the cache is loaded at every start, so the training sends only what a start
 * loads anyway: not {@code POST /gateway/publish} (training publishes nothing), nor the client
 * scenarios ({@code /orders/refine}, {@code /devices/{id}/status}) and their mock upstream, which the
 * app sets up at their first request, with Jackson's data binding (about 380 classes: 5 MiB of the
 * cache, resident in every start that never calls them).
 */
final class AotTraining {
    /** Per request below: enough for the profiles to show the hot paths, short enough for a training run of seconds. */
    static final int ROUNDS = 50;
    /**
     * The training's warm-up: long enough for the JIT to compile the request path, so that a JDK after
     * 25 puts its profiles in the cache for later starts' JIT (on 25, {@code bin/keel} records none).
     */
    static final int WARMUP_REQUESTS = 3000;

    private AotTraining() {
    }

    /** Serves with {@code config} (its host and port replaced by a free loopback port), calls every route, stops. */
    static int run(Main.Config config, PrintStream out) throws IOException, InterruptedException {
        // No health grace: nothing balances this server.
        var options = config.server().toBuilder().host("127.0.0.1").port(0).healthGrace(Duration.ZERO)
                .warmupRequests(WARMUP_REQUESTS).build();
        // The mock upstream answers at once: its usual delay would only make the run longer.
        LabSettings lab = config.lab().withUpstreamDelay(Duration.ZERO);
        int answered = 0;
        int failed = 0;
        try (LabApp app = LabApp.start(options, lab, config.amqp())) {
            String base = "http://127.0.0.1:" + app.server().port();
            List<ClientRequest> requests = List.of(
                    ClientRequest.get(base + "/benchmark/hello"),
                    ClientRequest.get(base + "/benchmark/json"),
                    ClientRequest.get(base + "/benchmark/health"),
                    ClientRequest.get(base + "/benchmark/cpu?n=20"),
                    ClientRequest.get(base + "/benchmark/latency?ms=0"),
                    ClientRequest.get(base + "/benchmark/latency-async?ms=0"),
                    ClientRequest.get(base + "/keel/routes"),
                    ClientRequest.get(base + "/keel/health"),
                    ClientRequest.get(base + "/metrics"));
            HttpClient client = app.client();
            for (int round = 0; round < ROUNDS; round++) {
                for (ClientRequest request : requests) {
                    try {
                        client.send(request);
                        answered++;
                    } catch (IOException e) {
                        failed++;
                    }
                }
            }
        }
        out.printf("aot training: %d requests answered, %d failed%n", answered, failed);
        return 0;
    }
}
