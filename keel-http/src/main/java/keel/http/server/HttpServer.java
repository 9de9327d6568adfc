package keel.http.server;

import keel.core.guard.LagProbe;
import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.LoopGroup;
import keel.core.startup.StartupTimeline;
import keel.core.tls.Tls;
import keel.core.tls.TlsContexts;
import keel.http.Execution;
import keel.http.accesslog.AccessLog;
import keel.http.config.ConfigException;
import keel.http.execution.Dispatcher;
import keel.http.execution.OffLoop;
import keel.http.execution.ResponseCompression;
import keel.http.VirtualScheduler;
import keel.http.execution.carriers.VirtualCarriers;
import keel.http.router.Route;
import keel.http.router.RouteTable;
import keel.http.router.Router;
import keel.http.server.blocking.BlockingServer;
import keel.http.server.exchange.Listener;
import keel.http.server.exchange.ServerContext;
import keel.http.server.nio.NioServer;
import keel.http.ws.WsConnection;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;

/**
 * An HTTP/1.1 server: a transport ({@code nio} or {@code blocking}) in front of a frozen route table.
 *
 * <pre>{@code
 * Router router = new Router().get("/hello", req -> Response.ok("Hello, World!"));
 * try (HttpServer server = HttpServer.start(ServerOptions.builder().port(8080).build(), router)) {
 *     server.awaitStop();
 * }
 * }</pre>
 */
public final class HttpServer implements AutoCloseable {
    private static final Log LOG = Log.of(HttpServer.class);

    private final ServerOptions options;
    private final Dispatcher dispatcher;
    private final Listener transport;
    /** The nio transport's event loops, which the server stops after the transport; null on the blocking transport. */
    private LoopGroup loops;
    /** The guard of those loops; null when it is off or on the blocking transport. */
    private LoopGuard guard;
    /** Null when the access log is off. */
    private final AccessLog accessLog;
    private final java.util.concurrent.CountDownLatch stopped = new java.util.concurrent.CountDownLatch(1);
    /** Set as {@link #stop} begins, before its health grace: what a health route reads. */
    private volatile boolean stopping;

    /**
     * {@code warmup}: what runs first when {@code server.warmup} is on (null: the one provided). {@code timed}:
     * the server's phases go on the {@link StartupTimeline} (the application's server, not the warm-up's
     * throwaway one nor a test's).
     */
    private HttpServer(ServerOptions options, Router router, ServerObserver observer, Warmup warmup, OutputStream accessLogSink,
                       boolean timed) throws IOException {
        // The key material and the access log's file first: one that cannot be used stops the start before anything runs.
        Tls tls = tls(options.tls());
        this.accessLog = accessLog(options.logging(), accessLogSink);
        this.options = options;
        if (timed) StartupTimeline.mark("server: TLS keys and access log");
        Dispatcher made = null;
        try {
            RouteTable routes; // a configured route that matches nothing stops the start before the warm-up
            try {
                routes = router.freeze(options.routes());
            } catch (IllegalArgumentException e) {
                throw new ConfigException(e.getMessage());
            }
            if (options.warmup()) (warmup != null ? warmup : Warmup.provided()).warmUp(options, observer);
            this.dispatcher = made = dispatcher(options, routes, observer);
            if (timed) StartupTimeline.mark("server: routes and executions");
            this.transport = transport(ServerContext.of(exchangeSettings(options, observer), dispatcher, observer,
                    observer != ServerObserver.NONE, tls, accessLog), observer);
            // The observer (metrics) is ready before the port opens, so the first request pays for nothing.
            observer.onStart(this);
            if (timed) StartupTimeline.mark("server: " + options.transport().word() + " transport" + (options.warmup() ? ", buffers filled" : ""));
            transport.open();
            if (timed) StartupTimeline.mark("port open");
        } catch (IOException | RuntimeException e) {
            stopLoops();
            if (made != null) made.close();
            if (accessLog != null) accessLog.close();
            throw e;
        }
    }

    /** The server's options as the exchanges of both transports read them, {@code observer} hearing the WebSocket sessions. */
    private static ServerContext.Settings exchangeSettings(ServerOptions options, ServerObserver observer) {
        var limits = options.limits();
        var t = options.timeouts();
        var marks = options.waterMarks();
        return new ServerContext.Settings(new InetSocketAddress(options.host(), options.port()), limits.backlog(), limits.maxConnections(),
                limits.maxHeadSize(), limits.maxHeaderCount(), limits.maxBodySize(),
                new ServerContext.Timeouts(t.headRead(), t.idle(), t.writeStall(), t.streamStall(), t.bodyMinRate(), t.bodyRateWindow(), t.lingerDrain()),
                marks.high(), marks.low(), options.pools().pipelineRun(), options.nativeIo(),
                new WsConnection.Settings(options.webSocket(), marks.high(), marks.low(), observer.webSockets()));
    }

    /**
     * The transport the options ask for: event loops under the guard (nio), or a thread per connection
     * from a bounded pool of platform threads or a virtual thread each (blocking).
     */
    private Listener transport(ServerContext context, ServerObserver observer) throws IOException {
        ServerOptions.Pools pools = options.pools();
        if (options.transport() == Transport.NIO) {
            loops = new LoopGroup(pools.loops(), "keel-loop", pools.loopTurnBudget(), pools.loopTaskQueue());
            if (options.guard().enabled()) guard = new LoopGuard(loops.loops(), options.guard(), dispatcher, observer);
            return new NioServer(context, loops, options.warmup());
        }
        ExecutorService threads = switch (options.threads()) {
            case PLATFORM -> new ThreadPoolExecutor(pools.blockingThreads(), pools.blockingThreads(), 60, TimeUnit.SECONDS,
                    new ArrayBlockingQueue<>(pools.blockingQueue()), Thread.ofPlatform().name("keel-conn-", 0).daemon(true).factory());
            case VIRTUAL -> Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("keel-conn-vt-", 0).factory());
        };
        return new BlockingServer(context, threads);
    }

    /**
     * What routes and runs {@code routes}'s handlers under {@code options}, its refusals told to
     * {@code observer}. Keel's carriers (the JDK internals they need) are touched only when the
     * virtual-thread scheduler asks for them.
     */
    private static Dispatcher dispatcher(ServerOptions options, RouteTable routes, ServerObserver observer) {
        ServerOptions.Compression c = options.compression();
        ResponseCompression compression = new ResponseCompression(c.enabled(), c.minSize(), c.level(), c.types());
        ServerOptions.Pools pools = options.pools();
        ThreadFactory offLoops = pools.virtualScheduler() == VirtualScheduler.JDK
                ? Thread.ofVirtual().name("keel-vt").factory() : VirtualCarriers.factory("keel-vt");
        ThreadFactory virtualThreads = pools.virtualScheduler() == VirtualScheduler.LOOP
                ? VirtualCarriers.onLoops("keel-vt", offLoops) : offLoops;
        OffLoop offLoop = new OffLoop(pools.workerThreads(), pools.workerQueue(), Dispatcher.usesWorkers(routes, options.execution()),
                pools.virtualThreadLimit(), virtualThreads, offLoops);
        return new Dispatcher(routes, options.execution(), options.webSocket(), compression, options.limits().maxBodySize(),
                options.timeouts().handlerDeadline(), offLoop, reason -> {
                    try {
                        observer.onRejected(reason);
                    } catch (RuntimeException e) {
                        LOG.warn("observer_failed", e, "event", "rejected");
                    }
                });
    }

    /**
     * The TLS every connection speaks, from {@code server.tls.*} (its key material read once); null when
     * TLS is off. A file that cannot be read or used stops the start, with a message naming it.
     */
    private static Tls tls(ServerOptions.Tls options) throws IOException {
        if (!options.enabled()) return null;
        SSLContext context;
        try {
            if (options.keystore() != null) {
                char[] password = options.keystorePassword() == null ? new char[0] : options.keystorePassword().toCharArray();
                context = TlsContexts.server(options.keystore(), password, options.clientTrust());
            } else {
                context = TlsContexts.server(options.certificate(), options.privateKey(), options.clientTrust());
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("cannot start TLS (server.tls.*): " + e.getMessage(), e);
        }
        return Tls.server(context, options.protocols(), options.clientAuth(), options.handshakeTimeout());
    }

    /**
     * The access log {@code logging} asks for, or null when it is off: written to {@code sink} when
     * not null, else to standard output or {@code log.access-file} (see {@link AccessLog#open}).
     */
    private static AccessLog accessLog(ServerOptions.Logging logging, OutputStream sink) throws IOException {
        if (!logging.access()) return null;
        if (sink != null) return AccessLog.to(sink, logging.format(), logging.accessQueue());
        return AccessLog.open(logging.format(), logging.accessQueue(), logging.accessFile(), logging.accessFileDropBehind());
    }

    /** Binds and starts serving; the routes are frozen from here on. */
    public static HttpServer start(ServerOptions options, Router router) throws IOException {
        return start(options, router, ServerObserver.NONE);
    }

    /**
     * Binds and starts serving, reporting to {@code observer} (metrics); with {@code server.warmup} on,
     * it first runs the warm-up provided ({@link Warmup#provided}).
     */
    public static HttpServer start(ServerOptions options, Router router, ServerObserver observer) throws IOException {
        return new HttpServer(options, router, observer, null, null, true);
    }

    /**
     * Like {@link #start(ServerOptions, Router, ServerObserver)}, running {@code warmup} instead of
     * the one provided when {@code server.warmup} is on.
     */
    public static HttpServer start(ServerOptions options, Router router, ServerObserver observer, Warmup warmup) throws IOException {
        return new HttpServer(options, router, observer, java.util.Objects.requireNonNull(warmup, "warmup"), null, true);
    }

    /**
     * Like {@link #start(ServerOptions, Router, ServerObserver)}, with the access log (when
     * {@code log.access} is on) written to {@code accessLogSink}, by the access log's thread, instead
     * of standard output or {@code log.access-file}; the server never closes it. Its start is not on
     * the {@link StartupTimeline}: the application's own server's is.
     */
    public static HttpServer start(ServerOptions options, Router router, ServerObserver observer, OutputStream accessLogSink)
            throws IOException {
        return new HttpServer(options, router, observer, null, java.util.Objects.requireNonNull(accessLogSink, "accessLogSink"), false);
    }

    public ServerOptions options() {
        return options;
    }

    public InetSocketAddress address() {
        try {
            return transport.address();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bound port (useful with port 0). */
    public int port() {
        return address().getPort();
    }

    public int openConnections() {
        return transport.openConnections();
    }

    /** The event loops of the nio transport (empty for the blocking transport). */
    public List<EventLoop> loops() {
        return loops == null ? List.of() : loops.loops();
    }

    /** One lag probe per event loop (empty when the guard is off or on the blocking transport). */
    public List<LagProbe> lagProbes() {
        return guard == null ? List.of() : guard.probes();
    }

    /** How many times the watchdog caught an event loop stuck. */
    public long blockedLoopEvents() {
        return guard == null ? 0 : guard.blockedEvents();
    }

    /**
     * Access log lines dropped so far, never written: the log's queue ({@code log.access-queue}) was
     * full, or its file or stream failed. 0 when the access log is off.
     */
    public long accessLogDropped() {
        return accessLog == null ? 0 : accessLog.dropped();
    }

    /** Platform threads of the worker pool running a handler now. */
    public int workerActive() {
        return dispatcher.offLoop().workerActive();
    }

    /** Requests waiting for a worker thread. */
    public int workerQueued() {
        return dispatcher.offLoop().workerQueued();
    }

    /** Requests running on virtual threads now. */
    public int virtualThreadsInFlight() {
        return dispatcher.offLoop().virtualThreadsInFlight();
    }

    /** Every route with its settings as they apply, where each came from, where it runs now and what the guard saw of it. */
    public List<RouteInfo> routes() {
        return dispatcher.routes().routes().stream().map(route -> {
            Execution declared = route.executionOr(dispatcher.defaultExecution());
            boolean offloaded = dispatcher.isOffloaded(route);
            var sources = new RouteInfo.Sources(offloaded ? RouteInfo.Source.GUARD : source(route, Route.Setting.EXECUTION),
                    source(route, Route.Setting.LIMIT), source(route, Route.Setting.DEADLINE), source(route, Route.Setting.MAX_BODY_SIZE));
            return new RouteInfo(route.method(), route.path(), declared, offloaded ? Execution.VIRTUAL_THREAD : declared,
                    offloaded, guard == null ? 0 : guard.blockedEvents(route), route.maxConcurrent(),
                    route.deadlineOr(options.timeouts().handlerDeadline()), route.maxBodySizeOr(options.limits().maxBodySize()), sources);
        }).toList();
    }

    private static RouteInfo.Source source(Route route, Route.Setting setting) {
        if (route.configured().contains(setting)) return RouteInfo.Source.CONFIGURATION;
        return route.isSet(setting) ? RouteInfo.Source.CODE : RouteInfo.Source.DEFAULT;
    }

    /** {@link #stop(Duration)} with the configured grace period ({@code timeouts.grace}). */
    public void stop() {
        stop(options.timeouts().grace());
    }

    /**
     * True once {@link #stop} has begun: a health route answers 503 from then on, so that a load
     * balancer takes the server out during the health grace ({@code timeouts.health-grace}), while it
     * still serves as before. Any thread.
     */
    public boolean isStopping() {
        return stopping;
    }

    /**
     * Stops gracefully: first {@link #isStopping()} turns true and the server serves as before for
     * the health grace ({@code timeouts.health-grace}, none by default), a load balancer's time to
     * see its health check fail and stop sending; then no new connections; idle connections close;
     * requests in flight finish within {@code grace}, and their responses (and any request that
     * arrives meanwhile) carry {@code Connection: close}; whatever is still open after the grace
     * period is closed. The access log then writes its last lines and flushes. Idempotent.
     */
    public synchronized void stop(Duration grace) {
        if (stopped.getCount() == 0) return;
        stopping = true;
        try {
            awaitHealthGrace();
            transport.stop(grace);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            stopLoops();
            dispatcher.close();
            if (accessLog != null) accessLog.close();
            stopped.countDown();
        }
    }

    /** Ends the nio transport's loops, their guard first: a stopped loop would look stuck to it. */
    private void stopLoops() {
        if (guard != null) guard.close();
        if (loops == null) return;
        try {
            loops.shutdown(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void awaitHealthGrace() {
        Duration healthGrace = options.timeouts().healthGrace();
        if (healthGrace.isZero()) return;
        LOG.info("health_grace", "seconds", healthGrace.toMillis() / 1000.0);
        try {
            Thread.sleep(healthGrace);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop at once: the caller wants it over
        }
    }

    /** Blocks until {@link #stop()} has run. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    @Override
    public void close() {
        stop();
    }
}
