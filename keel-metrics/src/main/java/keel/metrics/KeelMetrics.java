package keel.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import keel.core.guard.BlockedLoop;
import keel.core.guard.LagProbe;
import keel.core.loop.EventLoop;
import keel.core.tls.HandshakeFailures;
import keel.http.Execution;
import keel.http.Methods;
import keel.http.Response;
import keel.http.client.ClientObserver;
import keel.http.Rejection;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.RouteInfo;
import keel.http.server.ServerObserver;
import keel.http.ws.WsObserver;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Binds a Keel server to Micrometer and serves what it measured in the Prometheus text format.
 *
 * <pre>{@code
 * KeelMetrics metrics = new KeelMetrics();
 * metrics.register(router);                       // GET /metrics
 * HttpServer server = HttpServer.start(options, router, metrics);
 * }</pre>
 *
 * <h2>What it publishes</h2>
 * <ul>
 *   <li>{@code keel_http_server_requests_seconds} (timer with a percentile histogram), tagged
 *       {@code method}, {@code route} (the pattern, {@code none} when no route matched),
 *       {@code status} and {@code status_class} ({@code 2xx}, {@code 4xx}, …)</li>
 *   <li>{@code keel_event_loop_lag_seconds} (timer per {@code loop}, a histogram with fixed buckets from
 *       0.1 ms to 30 s, so any quantile of an interval comes from two scrapes),
 *       {@code keel_event_loop_pending_tasks} (gauge per {@code loop}),
 *       {@code keel_event_loop_blocked_total} (counter per {@code route})</li>
 *   <li>{@code keel_http_server_connections_open}, {@code keel_worker_pool_active_threads},
 *       {@code keel_worker_pool_queued_requests}, {@code keel_virtual_threads_in_flight} (gauges)</li>
 *   <li>{@code keel_http_server_rejected_total} (counter per {@code reason}, every reason present from 0: every
 *       503 the server writes, its own refusals and its handlers' 503s as {@code handler}),
 *       {@code keel_http_server_bytes_received_total}, {@code keel_http_server_bytes_sent_total}</li>
 *   <li>{@code keel_http_server_timeouts_total} (counter per {@code reason}: {@code idle}, {@code head_read},
 *       {@code body_stalled}, {@code body_too_slow}, {@code write_stalled}) and
 *       {@code keel_http_server_dropped_total} (counter per {@code reason}: responses cut short or never
 *       sent, {@code loop_queue_full}, {@code loop_stopped}, {@code response_failed}, {@code stream_failed},
 *       {@code stream_stalled}, {@code handoff_refused}), every reason present from 0</li>
 *   <li>{@code keel_http_server_access_log_dropped_total}: access log lines dropped, never written
 *       (the log's queue was full, or its file failed); 0 while the access log is off</li>
 *   <li>{@code keel_http_server_tls_handshake_failures_total} (counter per {@code reason}: {@code timeout},
 *       {@code plain_http}, {@code protocol_version}, {@code certificate}, {@code renegotiation},
 *       {@code other}, every one present from 0)</li>
 *   <li>the server's WebSocket sessions and messages ({@link WebSocketMetrics}), and the HTTP clients
 *       given {@link #client()} ({@link ClientMetrics})</li>
 *   <li>the JVM's memory, GC, threads, processor and uptime meters (the gauges among them from the
 *       first {@link #scrape()} on: see there)</li>
 * </ul>
 *
 * <h2>Threads</h2>
 * The {@link ServerObserver} methods are called by the server on whichever thread the event happens:
 * an event loop, a worker, a virtual thread or the watchdog. Each of them only looks up a cached meter
 * (creating it the first time a method, route and status are seen) and bumps it; none blocks or takes
 * a lock on the hot path. {@link #scrape()}, {@link #registry()} and the gauges may be used from any
 * thread at any time. {@link #register(Router)} must run before the server starts (routes freeze then).
 *
 * <p>One instance serves one server at a time: {@link #onStart} points the gauges at the server it is
 * given, so a server restarted with the same instance is measured again, but two servers running at
 * once with the same instance would share (and muddle) the request counters.
 */
public final class KeelMetrics implements ServerObserver, AutoCloseable {

    /** The content type of {@code GET /metrics}: the Prometheus text exposition format 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** The tag value when a request matched no route, or a loop was caught stuck outside a handler. */
    static final String NO_ROUTE = "none";

    /** The standard methods keep their name in the {@code method} tag; any other is this, to bound the series. */
    private static final int OTHER_METHOD = Methods.count();

    /** Request latency buckets: enough to read p50/p99 from 0.5 ms to 30 s, few enough to record cheaply. */
    static final Duration[] REQUEST_BUCKETS = java.util.stream.Stream.of(
                    0.5, 1.0, 2.5, 5.0, 10.0, 25.0, 50.0, 75.0, 100.0, 250.0, 500.0, 750.0, 1_000.0, 2_500.0, 5_000.0,
                    10_000.0, 30_000.0)
            .map(ms -> Duration.ofNanos((long) (ms * 1_000_000))).toArray(Duration[]::new);

    private static final Duration[] LAG_BUCKETS = java.util.stream.Stream.of(
                    0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 7.5, 10.0, 25.0, 50.0, 100.0, 250.0, 500.0,
                    1_000.0, 2_500.0, 5_000.0, 10_000.0, 30_000.0)
            .map(ms -> Duration.ofNanos((long) (ms * 1_000_000))).toArray(Duration[]::new);

    private final PrometheusMeterRegistry registry;
    /** Null on a warm-up's throwaway instance, which binds no JVM meters. */
    private final JvmGcMetrics gcMetrics;
    /** True once the JVM's gauges are bound (at the first scrape); a throwaway instance has none to bind. */
    private volatile boolean jvmGaugesBound;
    private final Object jvmGaugesLock = new Object();
    private final RequestTimes requestTimes;
    /** Request times by route pattern (the Route's own string, so lookups hash and compare cheaply). */
    private final Map<String, RouteTimers> requestTimers = new ConcurrentHashMap<>();
    private final Map<String, Counter> blockedCounters = new ConcurrentHashMap<>();
    private final Map<Rejection, Counter> rejected = new EnumMap<>(Rejection.class);
    private final Map<ServerObserver.Timeout, Counter> timeouts = new EnumMap<>(ServerObserver.Timeout.class);
    private final Map<ServerObserver.Drop, Counter> dropped = new EnumMap<>(ServerObserver.Drop.class);
    private final Map<String, Counter> tlsHandshakeFailures = new ConcurrentHashMap<>();
    private final Counter bytesReceived;
    private final Counter bytesSent;
    private final WebSocketMetrics webSockets;
    private final ClientMetrics client;
    /** The loops of the server last started, by name: the pending-task gauges read through it. */
    private final Map<String, EventLoop> loops = new ConcurrentHashMap<>();
    private volatile HttpServer server;

    /** A registry of its own, with the JVM meters bound and every rejection reason at 0. */
    public KeelMetrics() {
        this(true);
    }

    /** {@code jvm}: with the JVM meters (memory, GC, threads, processor, uptime), which a warm-up's throwaway instance goes without. */
    private KeelMetrics(boolean jvm) {
        this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT, new PrometheusRegistry(), CoarseClock.INSTANCE);
        // No pause detector: it would read the clock on every record, and run a thread, to correct
        // client-side percentiles this registry does not compute (its histograms have fixed buckets).
        registry.config().pauseDetector(new NoPauseDetector());
        this.requestTimes = new RequestTimes(REQUEST_BUCKETS, CoarseClock.INSTANCE::wallTime);
        registry.getPrometheusRegistry().register(requestTimes);
        // The GC meters count pauses as they happen: bound now. The JVM's gauges wait for the first scrape.
        this.gcMetrics = jvm ? new JvmGcMetrics() : null;
        if (jvm) gcMetrics.bindTo(registry);
        this.jvmGaugesBound = !jvm;
        for (Rejection reason : Rejection.values()) {
            rejected.put(reason, Counter.builder("keel.http.server.rejected")
                    .description("Requests or connections refused with 503, by reason")
                    .tag("reason", reason.label())
                    .register(registry));
        }
        for (ServerObserver.Timeout reason : ServerObserver.Timeout.values()) {
            timeouts.put(reason, Counter.builder("keel.http.server.timeouts")
                    .description("Waits on a client ended by a timeout (answered 408, or closed where nothing can be answered), by reason")
                    .tag("reason", reason.label())
                    .register(registry));
        }
        for (ServerObserver.Drop reason : ServerObserver.Drop.values()) {
            dropped.put(reason, Counter.builder("keel.http.server.dropped")
                    .description("Connections closed before the whole of a response could be sent, by reason")
                    .tag("reason", reason.label())
                    .register(registry));
        }
        for (String reason : HandshakeFailures.REASONS) tlsHandshakeFailures.put(reason, tlsHandshakeFailureCounter(reason));
        this.bytesReceived = Counter.builder("keel.http.server.bytes.received")
                .description("Bytes read from client connections")
                .register(registry);
        this.bytesSent = Counter.builder("keel.http.server.bytes.sent")
                .description("Bytes written to client connections")
                .register(registry);
        requestTimers.computeIfAbsent(NO_ROUTE, RouteTimers::new).series(methodIndex("GET"), 404);
        this.webSockets = new WebSocketMetrics(registry);
        this.client = new ClientMetrics(registry);
    }

    /**
     * The registry every meter lives in; add meters of your own to it to have them served too. The
     * JVM's gauges join it at the first {@link #scrape()}.
     */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** What the HTTP clients of this registry report to: {@code ClientOptions.builder().observer(metrics.client())}. */
    public ClientObserver client() {
        return client;
    }

    @Override
    public WsObserver webSockets() {
        return webSockets;
    }

    /**
     * Adds {@code GET /metrics} to {@code router} and returns {@code router}. The scrape runs on a
     * virtual thread whatever the router's execution, so it never holds an event loop.
     */
    public Router register(Router router) {
        router.with(Execution.VIRTUAL_THREAD).get("/metrics",
                request -> Response.bytes(200, CONTENT_TYPE, scrape().getBytes(StandardCharsets.UTF_8)));
        return router;
    }

    /**
     * Every meter in the Prometheus text exposition format 0.0.4; any thread. The first scrape binds the
     * JVM's gauges (memory, threads, processor, uptime): they read their values when scraped, so none
     * is lost, and their look-ups of the JVM's management beans (about 20 ms on one CPU) stay out of
     * the start.
     */
    public String scrape() {
        if (!jvmGaugesBound) bindJvmGauges();
        return registry.scrape();
    }

    private void bindJvmGauges() {
        synchronized (jvmGaugesLock) {
            if (jvmGaugesBound) return;
            new JvmMemoryMetrics().bindTo(registry);
            new JvmThreadMetrics().bindTo(registry);
            new ProcessorMetrics().bindTo(registry);
            new UptimeMetrics().bindTo(registry);
            jvmGaugesBound = true;
        }
    }

    /**
     * Runs the recording path {@code requests} times on a throwaway instance, so that the JIT compiles
     * it before a warm server's first requests. It does not scrape: a scrape is a background request,
     * and its first one (the text writer's first use, about 35 ms on one CPU, and the JVM's gauges,
     * 20 ms) is not worth delaying the port for.
     */
    @Override
    public void warmup(int requests) {
        try (KeelMetrics throwaway = new KeelMetrics(false)) {
            for (int i = 0; i < requests; i++) {
                throwaway.onResponse("GET", "/warmup/{id}", i % 10 == 0 ? 404 : 200, 1_000L + i);
                throwaway.onBytesRead(100);
                throwaway.onBytesWritten(200);
            }
        }
    }

    /** Registers the gauges that read {@code server} and listens to each loop's lag probe. */
    @Override
    public void onStart(HttpServer server) {
        this.server = server;
        // Each route's 200 series now, so a scrape shows every route from the start.
        for (RouteInfo route : server.routes()) {
            requestTimers.computeIfAbsent(route.path(), RouteTimers::new).series(methodIndex(route.method()), 200);
        }
        serverGauge("keel.http.server.connections.open", "Client connections open now", HttpServer::openConnections);
        serverGauge("keel.worker.pool.active.threads", "Worker-pool threads running a handler now", HttpServer::workerActive);
        serverGauge("keel.worker.pool.queued.requests", "Requests waiting for a worker-pool thread", HttpServer::workerQueued);
        serverGauge("keel.virtual.threads.in.flight", "Requests running on virtual threads now", HttpServer::virtualThreadsInFlight);
        FunctionCounter.builder("keel.http.server.access.log.dropped", this, metrics -> {
                    HttpServer current = metrics.server;
                    return current == null ? 0 : current.accessLogDropped();
                })
                .description("Access log lines dropped because the log's queue was full or its output failed")
                .register(registry);

        for (EventLoop loop : server.loops()) {
            String name = loop.name();
            loops.put(name, loop);
            Gauge.builder("keel.event.loop.pending.tasks", loops, byName -> {
                        EventLoop current = byName.get(name);
                        return current == null ? Double.NaN : current.pendingTasks();
                    })
                    .description("Tasks queued for the event loop")
                    .tag("loop", name)
                    .strongReference(true)
                    .register(registry);
        }
        for (LagProbe probe : server.lagProbes()) {
            Timer lag = Timer.builder("keel.event.loop.lag")
                    .description("How late the event loop ran a timer that was due")
                    .tag("loop", probe.loop().name())
                    // Fixed buckets, fine around the 1-10 ms that separate healthy from slow: a scraper
                    // takes two scrapes and computes any quantile of the interval between them.
                    .serviceLevelObjectives(LAG_BUCKETS)
                    .register(registry);
            probe.addListener(lagNanos -> lag.record(lagNanos, TimeUnit.NANOSECONDS));
        }
    }

    private void serverGauge(String name, String description, ToDoubleFunction<HttpServer> read) {
        Gauge.builder(name, this, metrics -> {
                    HttpServer current = metrics.server;
                    return current == null ? Double.NaN : read.applyAsDouble(current);
                })
                .description(description)
                .strongReference(true)
                .register(registry);
    }

    @Override
    public void onResponse(String method, String route, int status, long nanos) {
        String tag = route == null ? NO_ROUTE : route;
        RouteTimers timers = requestTimers.get(tag);
        if (timers == null) timers = requestTimers.computeIfAbsent(tag, RouteTimers::new);
        timers.series(methodIndex(method), status).record(nanos);
    }

    private static int methodIndex(String method) {
        int index = method == null ? -1 : Methods.index(method);
        return index < 0 ? OTHER_METHOD : index;
    }

    /**
     * The request times of one route, by method and status. The last series used is kept in front: a
     * route mostly answers one method with one status, so a request usually costs one field read.
     */
    private final class RouteTimers {
        private record Last(int key, RequestTimes.Series series) {
        }

        private final String route;
        private final Map<Integer, RequestTimes.Series> byKey = new ConcurrentHashMap<>();
        private volatile Last last = new Last(-1, null);

        RouteTimers(String route) {
            this.route = route;
        }

        RequestTimes.Series series(int method, int status) {
            int key = method * 1000 + Math.clamp(status, 0, 999);
            Last cached = last;
            if (cached.key() == key) return cached.series();
            RequestTimes.Series series = byKey.computeIfAbsent(key,
                    k -> requestTimes.series(method == OTHER_METHOD ? "OTHER" : Methods.name(method), route, status));
            last = new Last(key, series);
            return series;
        }
    }

    static String statusClass(int status) {
        return status >= 100 && status <= 599 ? (status / 100) + "xx" : "other";
    }

    @Override
    public void onRejected(Rejection reason) {
        rejected.get(reason).increment();
    }

    @Override
    public void onTimeout(ServerObserver.Timeout reason) {
        timeouts.get(reason).increment();
    }

    @Override
    public void onDropped(ServerObserver.Drop reason) {
        dropped.get(reason).increment();
    }

    @Override
    public void onTlsHandshakeFailed(String reason) {
        Counter counter = tlsHandshakeFailures.get(reason);
        if (counter == null) counter = tlsHandshakeFailures.computeIfAbsent(reason, this::tlsHandshakeFailureCounter);
        counter.increment();
    }

    private Counter tlsHandshakeFailureCounter(String reason) {
        return Counter.builder("keel.http.server.tls.handshake.failures")
                .description("TLS connections closed before their handshake completed, by reason")
                .tag("reason", reason)
                .register(registry);
    }

    @Override
    public void onBytesRead(long bytes) {
        bytesReceived.increment(bytes);
    }

    @Override
    public void onBytesWritten(long bytes) {
        bytesSent.increment(bytes);
    }

    @Override
    public void onBlockedLoop(BlockedLoop event, String route) {
        String tag = route == null ? NO_ROUTE : route;
        Counter counter = blockedCounters.get(tag);
        if (counter == null) {
            counter = blockedCounters.computeIfAbsent(tag, r -> Counter.builder("keel.event.loop.blocked")
                    .description("Times the watchdog caught an event loop stuck in one round, by the route it ran")
                    .tag("route", r)
                    .register(registry));
        }
        counter.increment();
    }

    /** Unhooks the GC listener and closes the registry; the server should be stopped first. */
    @Override
    public void close() {
        if (gcMetrics != null) gcMetrics.close();
        registry.close();
    }
}
