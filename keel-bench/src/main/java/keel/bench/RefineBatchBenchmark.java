package keel.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import keel.http.Execution;
import keel.http.client.ClientOptions;
import keel.http.client.HttpClient;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.lab.fanout.MockUpstream;
import keel.lab.fanout.Refiner;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * One batch of {@value #ORDERS} orders × (primary + secondary) = 50 refine calls through Keel's
 * client, {@link Refiner#CONCURRENCY} at a time, against the mock upstream answering after
 * {@value #UPSTREAM_DELAY_MS} ms: 50 / 10 = 5 rounds, so ≈ 5 × 200 ms = 1 s per batch. The calls
 * wait on timers and sockets, not on cores, so the time must not depend on the processor count
 * ({@code bench/jmh.sh} runs it with {@code -XX:ActiveProcessorCount=2} and {@code =10}).
 *
 * <p>{@code style=async} chains the calls on the client's event loops; {@code style=blocking} runs
 * each on a virtual thread with the blocking {@code send}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
public class RefineBatchBenchmark {
    static final int ORDERS = 25;
    static final int UPSTREAM_DELAY_MS = 200;

    @Param({"async", "blocking"})
    public String style;

    private HttpServer upstream;
    private HttpClient client;
    private Refiner refiner;
    private JsonNode orders;

    @Setup(Level.Trial)
    public void start() throws IOException {
        ServerOptions options = ServerOptions.builder().host("127.0.0.1").port(0).execution(Execution.EVENT_LOOP).build();
        Router routes = new Router();
        MockUpstream.register(routes, Duration.ofMillis(UPSTREAM_DELAY_MS));
        upstream = HttpServer.start(options, routes);
        client = HttpClient.create(ClientOptions.defaults());
        refiner = new Refiner(client, "http://127.0.0.1:" + upstream.port() + "/upstream/refine-address");
        orders = orders(ORDERS);
    }

    @TearDown(Level.Trial)
    public void stop() {
        client.close();
        upstream.stop(Duration.ofSeconds(1));
    }

    @Benchmark
    public ObjectNode refineBatch() throws InterruptedException {
        ObjectNode report = style.equals("async") ? refiner.refineAsync(orders).toCompletableFuture().join() : refiner.refineBlocking(orders);
        // A failed call would make the batch faster or slower for the wrong reason: refuse to time it.
        if (!report.path("failures").isEmpty() || report.path("calls").asInt() != 2 * ORDERS) {
            throw new IllegalStateException("the batch did not refine every address: " + report);
        }
        return report;
    }

    /** {@code count} orders, each with a primary and a secondary address. */
    static JsonNode orders(int count) {
        ArrayNode orders = new ObjectMapper().createArrayNode();
        for (int i = 1; i <= count; i++) {
            ObjectNode order = orders.addObject().put("id", "o" + i);
            order.putObject("primary").put("street", i + " Main Street").put("city", "Utrecht").put("country", "NL");
            order.putObject("secondary").put("street", i + " Side Street").put("city", "Utrecht").put("country", "NL");
        }
        return orders;
    }
}
