package keel.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import keel.http.client.ClientObserver;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Binds Keel's {@link keel.http.client.HttpClient}s to Micrometer, per host ({@code name:port}):
 *
 * <pre>{@code
 * HttpClient client = HttpClient.create(ClientOptions.builder().observer(metrics.client()).build());
 * }</pre>
 *
 * <ul>
 *   <li>{@code keel_http_client_connections_open}, {@code keel_http_client_connections_idle},
 *       {@code keel_http_client_pending_acquires} (gauges per {@code host}: connections open or
 *       connecting, idle in the pool, requests waiting for one; summed over every loop and client)</li>
 *   <li>{@code keel_http_client_calls_seconds} (timer per {@code host} and {@code outcome}: {@code ok},
 *       {@code timeout}, {@code connect_failed}, {@code pool_full}, {@code failed}; the server's
 *       request buckets)</li>
 *   <li>{@code keel_http_client_retries_total} (counter per {@code host} and {@code reason}:
 *       {@code policy}, {@code stale_connection})</li>
 * </ul>
 *
 * <p>Threads: the clients call it on their event loops. A host's meters are made the first time
 * one of its pools is (and a timer at an outcome's first call); after that an event costs one
 * atomic add, and a call one timer record. One instance per registry, shared by every client that
 * reports to it: two instances would register the same gauges, and the second one's counts would
 * not show. Hosts are not forgotten: a client calling an unbounded set of hosts makes as many series.
 */
public final class ClientMetrics implements ClientObserver {
    private final MeterRegistry registry;
    private final Map<String, HostMeters> hosts = new ConcurrentHashMap<>();

    public ClientMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Host host(String host) {
        HostMeters meters = hosts.get(host);
        return meters != null ? meters : hosts.computeIfAbsent(host, HostMeters::new);
    }

    /** The meters of one host, and the counts its gauges read. */
    private final class HostMeters implements Host {
        private final String host;
        private final AtomicInteger open = new AtomicInteger();
        private final AtomicInteger idle = new AtomicInteger();
        private final AtomicInteger pending = new AtomicInteger();
        private final AtomicReferenceArray<Timer> calls = new AtomicReferenceArray<>(Outcome.values().length);
        private final Counter[] retries = new Counter[Retry.values().length];

        HostMeters(String host) {
            this.host = host;
            gauge("keel.http.client.connections.open", "Client connections open or connecting, per host", open);
            gauge("keel.http.client.connections.idle", "Client connections idle in the pool, per host", idle);
            gauge("keel.http.client.pending.acquires", "Client requests waiting for a pooled connection, per host", pending);
            for (Retry reason : Retry.values()) {
                retries[reason.ordinal()] = Counter.builder("keel.http.client.retries")
                        .description("Client requests sent again, per host and reason")
                        .tags("host", host, "reason", reason.label())
                        .register(registry);
            }
            timer(Outcome.OK); // the usual outcome's timer now, not on the first call's loop turn
        }

        private void gauge(String name, String description, AtomicInteger count) {
            Gauge.builder(name, count, AtomicInteger::get).description(description).tag("host", host)
                    .strongReference(true).register(registry);
        }

        private Timer timer(Outcome outcome) {
            Timer timer = calls.get(outcome.ordinal());
            if (timer != null) return timer;
            // Registering twice returns the same timer: a race here costs a lookup, never a second series.
            timer = Timer.builder("keel.http.client.calls")
                    .description("Client calls from the call to their end (the response read, or the failure), per host and outcome")
                    .tags(Tags.of("host", host, "outcome", outcome.label()))
                    .serviceLevelObjectives(KeelMetrics.REQUEST_BUCKETS)
                    .register(registry);
            calls.set(outcome.ordinal(), timer);
            return timer;
        }

        @Override
        public void onPoolChanged(int openDelta, int idleDelta, int pendingDelta) {
            if (openDelta != 0) open.addAndGet(openDelta);
            if (idleDelta != 0) idle.addAndGet(idleDelta);
            if (pendingDelta != 0) pending.addAndGet(pendingDelta);
        }

        @Override
        public void onCall(Outcome outcome, long nanos) {
            timer(outcome).record(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public void onRetry(Retry reason) {
            retries[reason.ordinal()].increment();
        }
    }
}
