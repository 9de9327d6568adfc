package keel.lab;

import keel.http.client.ClientOptions;
import keel.http.client.HttpClient;
import keel.http.router.Router;
import keel.http.server.AdminRoutes;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;
import keel.lab.fanout.FanOutRoutes;
import keel.lab.fanout.MockUpstream;
import keel.metrics.KeelMetrics;

import java.io.IOException;
import java.net.URI;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The lab app, running: the server with every lab route, and the HTTP client its scenarios call the
 * upstream with. The client shares the server's event loops (nio) or has loops of its own (the
 * blocking transport has none); with warm-up on it opens its upstream connections before
 * {@link #start} returns.
 */
public record LabApp(HttpServer server, HttpClient client, MockUpstream upstream) implements AutoCloseable {

    public static LabApp start(ServerOptions options, LabSettings lab) throws IOException, InterruptedException {
        AtomicReference<HttpServer> running = new AtomicReference<>();
        AtomicReference<FanOutRoutes.Scenarios> scenarios = new AtomicReference<>();
        Router router = BenchmarkRoutes.register(new Router());
        WsRoutes.register(router);
        MockUpstream upstream = MockUpstream.register(router, lab.upstreamDelay());
        FanOutRoutes.register(router, scenarios::get);
        AdminRoutes.register(router, running::get);
        KeelMetrics metrics = new KeelMetrics();
        metrics.register(router);
        HttpServer server = HttpServer.start(options, router, metrics);
        running.set(server);
        ClientOptions clientOptions = ClientOptions.builder().loops(options.pools().loops()).build();
        HttpClient client = server.loops().isEmpty() ? HttpClient.create(clientOptions) : HttpClient.create(clientOptions, server.loops());
        String upstreamUrl = lab.upstreamUrl().isEmpty() ? "http://127.0.0.1:" + server.port() : lab.upstreamUrl();
        if (options.warmup()) client.warmup(URI.create(upstreamUrl + "/upstream/refine-address"));
        scenarios.set(FanOutRoutes.Scenarios.create(client, upstreamUrl));
        return new LabApp(server, client, upstream);
    }

    /** Closes the client (it may run on the server's loops), then stops the server gracefully. */
    @Override
    public void close() {
        client.close();
        server.stop();
    }
}
