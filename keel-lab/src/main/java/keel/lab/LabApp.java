package keel.lab;

import keel.amqp.AmqpOptions;
import keel.amqp.HealthCheck;
import keel.amqp.HealthRoute;
import keel.amqp.gateway.Gateway;
import keel.amqp.gateway.GatewayMetrics;
import keel.amqp.ingest.Ingest;
import keel.amqp.ingest.IngestMetrics;
import keel.core.startup.StartupTimeline;
import keel.http.client.ClientObserver;
import keel.http.client.HttpClient;
import keel.http.router.Router;
import keel.http.server.AdminRoutes;
import keel.http.server.HttpServer;
import keel.http.server.ServerObserver;
import keel.http.server.ServerOptions;
import keel.http.warmup.RequestPathWarmup;
import keel.lab.fanout.FanOutRoutes;
import keel.lab.fanout.MockUpstream;
import keel.metrics.KeelMetrics;

import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The lab app, running: the server with every lab route, and the HTTP client its scenarios call the
 * upstream with ({@link LabSettings#client}). Calls made on the server's event loops run on them;
 * calls from other threads use the client's own loops. Everything is ready before the port opens: a
 * first request pays for nothing. The server, the client, the WebSocket routes, the gateway and the
 * ingest pipeline all report to the one registry that {@code GET /metrics} serves; with
 * {@code lab.metrics} off the server and the client report to no one and {@code GET /metrics} is not
 * served.
 */
public record LabApp(HttpServer server, HttpClient client, MockUpstream upstream, List<AutoCloseable> services)
        implements AutoCloseable {

    /** The lab app without the gateway and ingest routes (no broker connection is made). */
    public static LabApp start(ServerOptions options, LabSettings lab) throws IOException, InterruptedException {
        return start(options, lab, null);
    }

    /**
     * The lab app; with {@code amqp} also {@code POST /gateway/publish}, {@code /keel/health} and (when
     * enabled) the ingest pipeline. Broker and database connect in the background, from before the
     * warm-up on: without them the server still starts, and those routes answer 503 saying why.
     */
    public static LabApp start(ServerOptions options, LabSettings lab, AmqpOptions amqp) throws IOException, InterruptedException {
        KeelMetrics metrics = new KeelMetrics();
        StartupTimeline.mark("metrics registry");
        ClientObserver clientObserver = lab.metrics() ? metrics.client() : ClientObserver.NONE;
        HttpClient client = HttpClient.create(lab.client().toBuilder().observer(clientObserver).build());
        StartupTimeline.mark("HTTP client");
        if (options.warmup() && !lab.upstreamUrl().isEmpty()) {
            RequestPathWarmup.client(client, URI.create(lab.upstreamUrl() + "/"));
            StartupTimeline.mark("HTTP client warm-up");
        }
        AtomicReference<HttpServer> running = new AtomicReference<>();
        Router router = BenchmarkRoutes.register(new Router());
        WsRoutes.register(router);
        MockUpstream upstream = MockUpstream.register(router, lab.upstreamDelay());
        FanOutRoutes.register(router, new LazyScenarios(client, () -> lab.upstreamUrl().isEmpty()
                ? "http://127.0.0.1:" + running.get().port() : lab.upstreamUrl()));
        AdminRoutes.register(router, running::get);
        if (lab.metrics()) metrics.register(router);
        StartupTimeline.mark("routes");
        List<Runnable> connects = new ArrayList<>();
        List<AutoCloseable> services = amqp == null ? List.of() : services(router, amqp, metrics, connects, running::get);
        // The broker and database connections start now, on threads of their own, while the server warms
        // up: once its port opens they are often up already, and their set-up (the broker client's, the
        // logging of a refused attempt) does not compete with the first requests for the CPU.
        connects.forEach(Runnable::run);
        StartupTimeline.mark("broker and database connections started (in the background)");
        HttpServer server;
        try {
            // Opens its port last, warm when asked.
            server = HttpServer.start(options, router, lab.metrics() ? metrics : ServerObserver.NONE, new RequestPathWarmup());
        } catch (IOException | RuntimeException e) {
            client.close();
            // The broker client runs non-daemon threads: closed here, or the JVM would outlive the failure.
            closeAll(services);
            throw e;
        }
        running.set(server);
        return new LabApp(server, client, upstream, services);
    }

    /** The gateway and the ingest pipeline with their routes, not connected yet: their connections go to {@code connects}. */
    private static List<AutoCloseable> services(Router router, AmqpOptions amqp, KeelMetrics metrics, List<Runnable> connects,
                                                Supplier<HttpServer> running) {
        Gateway gateway = Gateway.create(amqp, new GatewayMetrics(metrics.registry()));
        gateway.register(router);
        connects.add(gateway::connect);
        StartupTimeline.mark("gateway");
        Ingest ingest = amqp.ingest().enabled() ? Ingest.create(amqp, new IngestMetrics(metrics.registry())) : null;
        if (ingest != null) {
            connects.add(ingest::connect);
            StartupTimeline.mark("ingest");
        }
        HealthCheck server = HealthCheck.server(running);
        HealthRoute.register(router, ingest == null ? List.of(server, gateway.broker()) : List.of(server, gateway.broker(), ingest));
        return ingest == null ? List.of(gateway) : List.of(ingest, gateway);
    }

    private static void closeAll(List<AutoCloseable> services) {
        for (AutoCloseable service : services) {
            try {
                service.close();
            } catch (Exception e) {
                System.getLogger(LabApp.class.getName()).log(System.Logger.Level.WARNING, "closing " + service + " failed", e);
            }
        }
    }

    /** The scenarios, made at their first call: the upstream's address may be this server's, known once it runs. */
    private static final class LazyScenarios implements Supplier<FanOutRoutes.Scenarios> {
        private final HttpClient client;
        private final Supplier<String> upstreamBase;
        private volatile FanOutRoutes.Scenarios scenarios;

        LazyScenarios(HttpClient client, Supplier<String> upstreamBase) {
            this.client = client;
            this.upstreamBase = upstreamBase;
        }

        @Override
        public FanOutRoutes.Scenarios get() {
            FanOutRoutes.Scenarios made = scenarios;
            if (made == null) scenarios = made = FanOutRoutes.Scenarios.create(client, upstreamBase.get());
            return made;
        }
    }

    /** Closes the client, stops the server gracefully, then closes the broker and database connections. */
    @Override
    public void close() {
        client.close();
        server.stop();
        closeAll(services);
    }
}
