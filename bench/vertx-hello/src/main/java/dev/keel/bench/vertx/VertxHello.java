package dev.keel.bench.vertx;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Minimal Vert.x 5 HTTP/1.1 server, a reference point for Keel's throughput runs: one event loop,
 * one verticle instance, the native (epoll) transport. It answers GET /benchmark/hello and
 * /benchmark/json with the body and headers Keel's routes send (Content-Type, Content-Length, Date).
 * Vert.x writes the responses produced while it handles one read and flushes them when the read
 * completes, so a burst of pipelined requests is answered with a single write.
 */
public final class VertxHello extends VerticleBase {
    private static final CharSequence TEXT_PLAIN = HttpHeaders.createOptimized("text/plain; charset=utf-8");
    private static final CharSequence APPLICATION_JSON = HttpHeaders.createOptimized("application/json");
    private static final CharSequence HELLO_LENGTH = HttpHeaders.createOptimized("13");
    private static final Buffer HELLO = Buffer.buffer("Hello, World!");

    private final int port;
    /** RFC 1123 date, replaced once per second by a timer on the verticle's event loop. */
    private CharSequence date = formatNow();

    private VertxHello(int port) {
        this.port = port;
    }

    private static CharSequence formatNow() {
        return HttpHeaders.createOptimized(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC)));
    }

    public static void main(String[] args) {
        int port = 8082;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--port") && i + 1 < args.length) {
                port = Integer.parseInt(args[++i]);
            } else {
                System.err.println("usage: vertx-hello [--port N]");
                System.exit(2);
            }
        }
        Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true).setEventLoopPoolSize(1));
        String transport = vertx.isNativeTransportEnabled() ? "native transport (epoll)"
                : "NIO: the native transport did not load (" + vertx.unavailableNativeTransportCause() + ")";
        int bound = port;
        vertx.deployVerticle(new VertxHello(port), new DeploymentOptions().setInstances(1))
                .onSuccess(id -> System.out.println("vertx-hello listening on port " + bound + " with one event loop, " + transport))
                .onFailure(e -> {
                    e.printStackTrace();
                    System.exit(1);
                });
    }

    @Override
    public Future<?> start() {
        vertx.setPeriodic(1000, id -> date = formatNow());
        return vertx.createHttpServer(new HttpServerOptions().setTcpNoDelay(true).setAcceptBacklog(1024))
                .requestHandler(this::handle)
                .listen(port);
    }

    private void handle(HttpServerRequest req) {
        if (req.method() == HttpMethod.GET && "/benchmark/hello".equals(req.path())) {
            req.response().headers()
                    .add(HttpHeaders.CONTENT_TYPE, TEXT_PLAIN)
                    .add(HttpHeaders.CONTENT_LENGTH, HELLO_LENGTH)
                    .add(HttpHeaders.DATE, date);
            req.response().end(HELLO);
        } else if (req.method() == HttpMethod.GET && "/benchmark/json".equals(req.path())) {
            Buffer body = Buffer.buffer("{\"status\":\"ok\",\"timestamp\":" + System.currentTimeMillis()
                    + ",\"data\":{\"message\":\"Hello, World!\",\"server\":\"vertx\",\"version\":\"5.2\"}}");
            req.response().headers()
                    .add(HttpHeaders.CONTENT_TYPE, APPLICATION_JSON)
                    .add(HttpHeaders.CONTENT_LENGTH, String.valueOf(body.length()))
                    .add(HttpHeaders.DATE, date);
            req.response().end(body);
        } else {
            req.response().setStatusCode(404).putHeader(HttpHeaders.CONTENT_TYPE, TEXT_PLAIN).end("Not Found");
        }
    }
}
