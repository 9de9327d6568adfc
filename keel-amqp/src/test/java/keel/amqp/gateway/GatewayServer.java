package keel.amqp.gateway;

import keel.amqp.AmqpOptions;
import keel.amqp.BrokerConnection;
import keel.amqp.HealthRoute;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerOptions;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/** A real server on 127.0.0.1 and a free port with the gateway route and {@code /keel/health}, and a JDK client. */
final class GatewayServer implements AutoCloseable {
    final Gateway gateway;
    final HttpServer server;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private GatewayServer(Gateway gateway, HttpServer server) {
        this.gateway = gateway;
        this.server = server;
    }

    static GatewayServer start(AmqpOptions options) throws Exception {
        return start(options, server -> { });
    }

    static GatewayServer start(AmqpOptions options, Consumer<ServerOptions.Builder> customize) throws Exception {
        return start(options, GatewayObserver.NONE, customize);
    }

    static GatewayServer start(AmqpOptions options, GatewayObserver observer, Consumer<ServerOptions.Builder> customize) throws Exception {
        Gateway gateway = Gateway.start(options, observer);
        Router router = new Router();
        gateway.register(router);
        HealthRoute.register(router, List.of(gateway.broker()));
        ServerOptions.Builder server = ServerOptions.builder().host("127.0.0.1").port(0).loops(2);
        customize.accept(server);
        return new GatewayServer(gateway, HttpServer.start(server.build(), router));
    }

    /** Waits for the gateway's first broker connection; fails the test if it does not come. */
    GatewayServer awaitBroker() throws InterruptedException {
        if (!gateway.broker().awaitConnected(Duration.ofSeconds(10))) {
            throw new AssertionError("the gateway did not connect to the broker: " + gateway.broker().json());
        }
        return this;
    }

    /** Waits until the broker connection is in {@code state} (recovery, loss). */
    void awaitState(BrokerConnection.State state, Duration timeout) throws InterruptedException {
        if (!reachesState(state, timeout)) throw new AssertionError("broker state stayed " + gateway.broker().json() + ", expected " + state);
    }

    /** Whether the broker connection is in {@code state} within {@code timeout}. */
    boolean reachesState(BrokerConnection.State state, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (gateway.broker().state() != state) {
            if (System.nanoTime() > deadline) return false;
            Thread.sleep(20);
        }
        return true;
    }

    CompletableFuture<HttpResponse<String>> publishAsync(String body, String routingKey) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(Gateway.PATH)).timeout(Duration.ofSeconds(30))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (routingKey != null) request.header("Routing-Key", routingKey);
        return client.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> publish(String body, String routingKey) {
        return publishAsync(body, routingKey).join();
    }

    HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return client.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> get(String path) throws Exception {
        return send(HttpRequest.newBuilder(uri(path)));
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    @Override
    public void close() {
        server.stop(Duration.ofSeconds(1));
        gateway.close();
    }
}
