package dev.keel.bench.client;

import com.sun.management.OperatingSystemMXBean;
import keel.core.guard.LagProbe;
import keel.core.guard.LatencyHistogram;
import keel.core.loop.LoopGroup;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Drives one HTTP client against one URL and prints one line of {@code key=value} results.
 *
 * <p>Closed loop ({@code --rate 0}): {@code --concurrency} calls in flight, each completion sends the
 * next; after {@code --warmup} seconds it measures calls/s and the process's CPU per call for
 * {@code --duration} seconds. Open loop ({@code --rate N}): N calls a second, sent in 1 ms steps
 * whatever the answers do, for {@code --duration} seconds; it reports how many completed or failed,
 * their latency and, for Keel, the lag of the client's one event loop. Each client gets one I/O
 * thread: Keel one loop, Reactor Netty one event loop; the JDK client has its selector thread.
 */
public final class ClientBench {
    /** One GET, completing with the status once the whole body is read. */
    interface Client extends AutoCloseable {
        CompletionStage<Integer> get();

        /** The client's event-loop lag, where it has one loop to probe. */
        default LatencyHistogram loopLag() {
            return null;
        }

        @Override
        void close() throws Exception;
    }

    private final Client client;
    private final LatencyHistogram latency = new LatencyHistogram();
    private final LongAdder completed = new LongAdder();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private volatile boolean measuring;

    private ClientBench(Client client) {
        this.client = client;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        String kind = options.getOrDefault("client", "keel");
        URI url = URI.create(options.getOrDefault("url", "http://127.0.0.1:8080/benchmark/hello"));
        int concurrency = Integer.parseInt(options.getOrDefault("concurrency", "64"));
        int rate = Integer.parseInt(options.getOrDefault("rate", "0"));
        long warmup = Long.parseLong(options.getOrDefault("warmup", "5"));
        long duration = Long.parseLong(options.getOrDefault("duration", "10"));
        int connections = Math.max(concurrency, rate > 0 ? 2_000 : 1);
        try (Client client = switch (kind) {
            case "keel" -> keel(url, connections);
            case "jdk" -> jdk(url);
            case "reactor" -> reactor(url, connections);
            default -> throw new IllegalArgumentException("--client keel|jdk|reactor, not " + kind);
        }) {
            ClientBench bench = new ClientBench(client);
            String result = rate > 0 ? bench.openLoop(rate, duration) : bench.closedLoop(concurrency, warmup, duration);
            System.out.println("client=" + kind + " concurrency=" + concurrency + " rate=" + rate + " " + result);
        }
        System.exit(0); // the JDK client's and Reactor's threads do not all end with close
    }

    private String closedLoop(int concurrency, long warmupSeconds, long seconds) throws InterruptedException {
        for (int i = 0; i < concurrency; i++) next();
        TimeUnit.SECONDS.sleep(warmupSeconds);
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuBefore = os.getProcessCpuTime();
        long callsBefore = completed.sum();
        long start = System.nanoTime();
        measuring = true;
        TimeUnit.SECONDS.sleep(seconds);
        measuring = false;
        long elapsed = System.nanoTime() - start;
        long calls = completed.sum() - callsBefore;
        long cpu = os.getProcessCpuTime() - cpuBefore;
        running = false;
        return String.format("calls_per_s=%.0f cpu_us_per_call=%.2f %s", calls * 1e9 / elapsed,
                calls == 0 ? Double.NaN : cpu / 1e3 / calls, latencyAndFailures());
    }

    /** One call of a closed loop; its completion sends the next. */
    private void next() {
        if (!running) return;
        long sent = System.nanoTime();
        client.get().whenComplete((status, failure) -> {
            record(sent, status, failure);
            next();
        });
    }

    private String openLoop(int rate, long seconds) throws InterruptedException {
        measuring = true;
        AtomicLong inFlight = new AtomicLong();
        long start = System.nanoTime();
        long sentCalls = 0;
        for (long step = 1; step <= seconds * 1_000; step++) {
            for (long due = rate * step / 1_000; sentCalls < due; sentCalls++) {
                long sent = System.nanoTime();
                inFlight.incrementAndGet();
                try {
                    client.get().whenComplete((status, failure) -> {
                        record(sent, status, failure);
                        inFlight.decrementAndGet();
                    });
                } catch (RuntimeException refused) {
                    record(sent, null, refused);
                    inFlight.decrementAndGet();
                }
            }
            long wait = start + step * 1_000_000 - System.nanoTime();
            if (wait > 0) TimeUnit.NANOSECONDS.sleep(wait);
        }
        long drainUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (inFlight.get() > 0 && System.nanoTime() < drainUntil) TimeUnit.MILLISECONDS.sleep(10);
        running = false;
        String lag = "";
        LatencyHistogram loopLag = client.loopLag();
        if (loopLag != null) {
            lag = String.format(" loop_lag_p99_ms=%.1f loop_lag_max_ms=%.1f", loopLag.percentileMicros(0.99) / 1e3, loopLag.maxMicros() / 1e3);
        }
        return String.format("sent=%d completed=%d unanswered=%d %s%s", sentCalls, completed.sum(), inFlight.get(),
                latencyAndFailures(), lag);
    }

    private void record(long sentNanos, Integer status, Throwable failure) {
        if (!measuring) return;
        if (failure != null || status == null || status != 200) {
            String reason = failure != null ? rootCause(failure).getClass().getSimpleName() : "status_" + status;
            failures.computeIfAbsent(reason, r -> new LongAdder()).increment();
            return;
        }
        completed.increment();
        latency.record(System.nanoTime() - sentNanos, TimeUnit.NANOSECONDS);
    }

    private String latencyAndFailures() {
        Map<String, Long> failed = new TreeMap<>();
        failures.forEach((reason, count) -> failed.put(reason, count.sum()));
        return String.format("p50_ms=%.2f p99_ms=%.2f max_ms=%.1f failed=%d%s", latency.percentileMicros(0.50) / 1e3,
                latency.percentileMicros(0.99) / 1e3, latency.maxMicros() / 1e3,
                failed.values().stream().mapToLong(Long::longValue).sum(), failed.isEmpty() ? "" : " failures=" + failed);
    }

    private static Throwable rootCause(Throwable failure) {
        while (failure.getCause() != null && failure.getCause() != failure) failure = failure.getCause();
        return failure;
    }

    private static Client keel(URI url, int connections) {
        LoopGroup loops = new LoopGroup(1, "bench-client");
        LagProbe probe = new LagProbe(loops.loops().getFirst(), TimeUnit.MILLISECONDS.toNanos(10));
        loops.loops().getFirst().execute(probe::start);
        keel.http.client.HttpClient http = keel.http.client.HttpClient.create(ClientOptions.builder()
                .maxConnections(connections).maxPendingAcquires(100_000).build(), loops.loops());
        String target = url.toString();
        return new Client() {
            @Override
            public CompletionStage<Integer> get() {
                return http.sendAsync(ClientRequest.get(target)).thenApply(keel.http.Response::status);
            }

            @Override
            public LatencyHistogram loopLag() {
                return probe.histogram();
            }

            @Override
            public void close() throws Exception {
                http.close();
                loops.close();
            }
        };
    }

    private static Client jdk(URI url) {
        java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1).build();
        HttpRequest request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30)).build();
        return new Client() {
            @Override
            public CompletionStage<Integer> get() {
                return http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).thenApply(HttpResponse::statusCode);
            }

            @Override
            public void close() {
                http.close();
            }
        };
    }

    private static Client reactor(URI url, int connections) {
        LoopResources loops = LoopResources.create("bench-reactor", 1, true);
        ConnectionProvider pool = ConnectionProvider.builder("bench").maxConnections(connections)
                .pendingAcquireMaxCount(100_000).build();
        reactor.netty.http.client.HttpClient http = reactor.netty.http.client.HttpClient.create(pool).runOn(loops);
        String target = url.toString();
        return new Client() {
            @Override
            public CompletionStage<Integer> get() {
                return http.get().uri(target)
                        .responseSingle((response, body) -> body.asByteArray().defaultIfEmpty(new byte[0])
                                .map(bytes -> response.status().code()))
                        .toFuture();
            }

            @Override
            public void close() {
                pool.dispose();
                loops.dispose();
            }
        };
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) throw new IllegalArgumentException("options are --name value pairs: " + args[i]);
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }
}
