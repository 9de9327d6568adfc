package keel.http.warmup;

import keel.core.startup.StartupTimeline;
import keel.core.tls.Pem;
import keel.core.tls.TlsContexts;
import keel.http.Execution;
import keel.http.Response;
import keel.http.client.ClientObserver;
import keel.http.client.ClientOptions;
import keel.http.client.ClientRequest;
import keel.http.client.HttpClient;
import keel.http.router.Router;
import keel.http.server.HttpServer;
import keel.http.server.ServerObserver;
import keel.http.server.ServerOptions;
import keel.http.server.Warmup;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.SocketFactory;
import javax.net.ssl.SSLContext;

/**
 * The warm-up of Keel's request path ({@code server.warmup}; its size decides what it buys: see {@link Warmup}).
 * Handed to {@link HttpServer#start(ServerOptions, Router, ServerObserver, Warmup)}, it makes the first real
 * request meet loaded classes, compiled hot methods, started thread pools and filled buffer pools instead of
 * paying for them; {@link #client} warms a client the same way.
 *
 * <p>It starts a throwaway server on loopback, configured like the real one (same transport,
 * execution, loops), whose routes cover every path a request can take: each execution, sync and
 * async handlers, fixed, JSON and streamed bodies, gzip both ways, request bodies, path parameters,
 * 404 and 405. An {@link HttpClient} sends it requests, a few at a time, until {@code requests} were
 * answered or {@code budget} ran out; then some come one per connection, and the server stops. User
 * routes never run: warm-up has no side effects.
 */
public final class RequestPathWarmup implements Warmup {
    private static final Duration DEFAULT_BUDGET = Duration.ofSeconds(5);
    private static final int IN_FLIGHT = 8;
    private static final int ACCESS_LOG_QUEUE = 1024;
    /**
     * The most requests that come on a connection of their own (a quarter of the warm-up's size): every
     * new connection runs the accept, set-up and close paths, which a first request pays for in full.
     */
    private static final int MAX_CONNECTION_PER_REQUEST = 200;
    private static final long QUIET_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_SETTLE_NANOS = TimeUnit.SECONDS.toNanos(2);
    private static final byte[] PAYLOAD = "{\"warm\":true,\"items\":[1,2,3]}".getBytes(StandardCharsets.UTF_8);
    /** Large enough to be compressed (over the default compression.min-size). */
    private static final byte[] LARGE_PAYLOAD = ("[" + "{\"warm\":true,\"items\":[1,2,3]},".repeat(80) + "{}]").getBytes(StandardCharsets.UTF_8);
    private static final byte[] GZIP_PAYLOAD = keel.http.codec.GzipEncoder.gzipIfSmaller(LARGE_PAYLOAD, 6);

    /** Set once a warm-up ran in this JVM: compiled code is shared by every server and client, so one is enough. */
    private static volatile boolean ran;

    /**
     * With a warm-up that waits for the JIT, {@code observer}'s hot paths first (the settling then
     * covers their compilations and garbage; a first touch does not: with the observer's classes loaded
     * by then, the metrics' throwaway registry opened the port about 30 ms later on one CPU, for a first
     * request about 0.5 ms faster). Then the bind address is resolved and {@link #run} runs.
     */
    @Override
    public Report warmUp(ServerOptions options, ServerObserver observer) throws IOException {
        if (options.warmupRequests() >= JIT_REQUESTS) {
            observer.warmup(options.warmupRequests());
            StartupTimeline.mark("warm-up: the server's observer (metrics)");
        }
        InetAddress.getByName(options.host());
        ClientOptions.Builder clientOptions = ClientOptions.builder().loops(1);
        // Over TLS the warm-up client trusts the server's own certificate, on 127.0.0.1 whatever names it holds.
        if (options.tls().enabled()) clientOptions.sslContext(trustingOwnCertificate(options.tls())).verifyHostname(false);
        try (HttpClient client = HttpClient.create(clientOptions.build())) {
            StartupTimeline.mark("warm-up: resolver and client");
            return run(options, client, options.warmupRequests(), DEFAULT_BUDGET);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("warm-up interrupted");
        }
    }

    /** A client context that trusts the server's own certificate chain, to call the warm-up server over TLS. */
    private static SSLContext trustingOwnCertificate(ServerOptions.Tls options) throws IOException {
        List<X509Certificate> chain = options.keystore() != null
                ? TlsContexts.chain(options.keystore(), options.keystorePassword() == null ? null : options.keystorePassword().toCharArray())
                : Pem.certificates(options.certificate());
        return TlsContexts.trusting(chain);
    }

    /**
     * Prepares {@code client} before its first real call: every loop runs and fills its buffer pool; the
     * request and response paths run against a throwaway server on loopback, each a few times (unless
     * a warm-up already did in this JVM: compiled code is shared); then each of {@code upstreams} is
     * resolved and gets one open connection per loop in its pool (a {@code HEAD} request from each
     * loop). Blocks; call it at start-up, not on an event loop.
     */
    public static Report client(HttpClient client, URI... upstreams) throws IOException, InterruptedException {
        return client(client, DEFAULT_REQUESTS, upstreams);
    }

    /** {@link #client(HttpClient, URI...)} with a warm-up of {@code requests} (see {@link Warmup#JIT_REQUESTS}). */
    public static Report client(HttpClient client, int requests, URI... upstreams) throws IOException, InterruptedException {
        long start = System.nanoTime();
        client.prefillBuffers();
        Report report = new Report(0, 0, Duration.ZERO);
        if (!ran) {
            ServerOptions server = ServerOptions.builder().host("127.0.0.1").port(0).loops(1).build();
            // The throwaway server's calls are nobody's traffic: an observed client sends them through an
            // unobserved one on the same loops, so no metric keeps a series for that server.
            ClientOptions options = client.options();
            try (HttpClient unobserved = options.observer() == ClientObserver.NONE ? null
                    : HttpClient.create(options.toBuilder().observer(ClientObserver.NONE).build(), client.loops())) {
                report = run(server, unobserved == null ? client : unobserved, requests, DEFAULT_BUDGET);
            }
        }
        int failures = report.failures();
        for (URI upstream : upstreams) failures += client.warmUpstream(upstream);
        return new Report(report.requests() + client.loops().size() * upstreams.length, failures,
                Duration.ofNanos(System.nanoTime() - start));
    }

    /** Serves the warm-up routes with options like {@code like} on a free loopback port and drives them with {@code client}. */
    public static Report run(ServerOptions like, HttpClient client, int requests, Duration budget) throws IOException, InterruptedException {
        long start = System.nanoTime();
        // Over TLS too, with the real certificate (the handshake is on the path of every new connection),
        // but without asking for client certificates: the warm-up client presents none. No health grace:
        // nothing balances the throwaway server, so its stop need not answer 503 for a while first. No
        // more worker threads than requests in flight: the pool starts them all, and the real server its own.
        // An access-log queue for a few lines: its ring's slots are allocated whole (256 KiB at the default).
        ServerOptions options = like.toBuilder().host("127.0.0.1").port(0).warmup(false).clearRoutes()
                .workerThreads(Math.min(like.pools().workerThreads(), IN_FLIGHT)).accessLogQueue(ACCESS_LOG_QUEUE)
                .tlsClientAuth(keel.core.tls.ClientAuth.NONE).tlsClientTrust(null).healthGrace(Duration.ZERO).build();
        SSLContext tls = options.tls().enabled() ? client.options().tls().context() : null;
        if (options.tls().enabled() && tls == null) throw new IllegalArgumentException("a TLS warm-up needs a client with an SSL context that trusts the server");
        // An observer that records nothing, so the reporting path (one lambda per response) runs too; the
        // access log, when on, formats its lines as usual and writes them nowhere.
        HttpServer server = HttpServer.start(options, routes(), new ServerObserver() {
        }, OutputStream.nullOutputStream());
        StartupTimeline.mark("warm-up: throwaway server");
        try {
            List<ClientRequest> mix = mix((tls == null ? "http" : "https") + "://127.0.0.1:" + server.port());
            Semaphore window = new Semaphore(IN_FLIGHT);
            AtomicInteger answered = new AtomicInteger();
            AtomicInteger failed = new AtomicInteger();
            long deadline = start + budget.toNanos();
            for (int i = 0; i < requests && System.nanoTime() - deadline < 0; i++) {
                if (!window.tryAcquire(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) break;
                client.sendAsync(mix.get(i % mix.size())).whenComplete((response, failure) -> {
                    (failure == null ? answered : failed).incrementAndGet();
                    window.release();
                });
            }
            if (!window.tryAcquire(IN_FLIGHT, Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                failed.addAndGet(IN_FLIGHT - window.availablePermits()); // still unanswered when the budget ran out
            }
            StartupTimeline.mark("warm-up: " + answered.get() + " requests, " + IN_FLIGHT + " in flight");
            int connections = Math.min(MAX_CONNECTION_PER_REQUEST, Math.max(1, requests / 4));
            Closing closing = connectionPerRequest(server.port(), tls, connections, deadline);
            StartupTimeline.mark("warm-up: " + closing.sent() + " connections of one request");
            ran |= failed.get() == 0 && answered.get() > 0;
            return new Report(answered.get() + closing.answered(), failed.get() + closing.sent() - closing.answered(),
                    Duration.ofNanos(System.nanoTime() - start));
        } finally {
            server.stop(Duration.ofSeconds(1));
            StartupTimeline.mark("warm-up: throwaway server stopped");
            // A smaller warm-up makes few methods hot: the compilers' queue then holds the start's own
            // methods, not worth the wait, and its garbage is not worth a full collection.
            if (requests >= JIT_REQUESTS) {
                settle();
                StartupTimeline.mark("warm-up: settle (JIT queue, GC)");
            }
        }
    }

    /**
     * Lets the JIT compile what the warm-up made hot (on threads that share the server's CPUs), then
     * collects its garbage, which would otherwise be collected in the middle of the first requests.
     */
    private static void settle() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit != null && jit.isCompilationTimeMonitoringSupported()) {
            long deadline = System.nanoTime() + MAX_SETTLE_NANOS;
            long total = jit.getTotalCompilationTime();
            long quietSince = System.nanoTime();
            while (System.nanoTime() - deadline < 0 && System.nanoTime() - quietSince < QUIET_NANOS) {
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                long now = jit.getTotalCompilationTime();
                if (now != total) {
                    total = now;
                    quietSince = System.nanoTime();
                }
            }
        }
        System.gc();
    }

    /** Requests sent one per connection, and how many of them were answered with 200. */
    private record Closing(int sent, int answered) {
    }

    /**
     * Requests that each come on a new connection and end it ({@code Connection: close}), as health
     * checks and load balancers send them, until {@code count} or the budget runs out: the accept,
     * close and lingering paths (and, with {@code tls}, the full handshake) get warm too.
     */
    private static Closing connectionPerRequest(int port, SSLContext tls, int count, long deadline) {
        byte[] request = "GET /warmup/text HTTP/1.1\r\nHost: warmup\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        SocketFactory sockets = tls == null ? SocketFactory.getDefault() : tls.getSocketFactory();
        int sent = 0;
        int answered = 0;
        for (; sent < count && System.nanoTime() - deadline < 0; sent++) {
            try (Socket socket = sockets.createSocket(InetAddress.getLoopbackAddress(), port)) {
                socket.setSoTimeout(2_000);
                socket.getOutputStream().write(request);
                if (tls == null) socket.shutdownOutput(); // TLS 1.2 has no half-close: the server closes after its answer
                if (new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200")) answered++;
            } catch (IOException e) {
                // counted as unanswered
            }
        }
        return new Closing(sent, answered);
    }

    private static Router routes() {
        Router router = new Router()
                .get("/warmup/text", request -> Response.ok("warm"))
                .get("/warmup/param/{id}", request -> Response.ok(request.pathParam("id") + request.queryParam("q").orElse("")))
                .post("/warmup/echo", request -> Response.bytes(200, "application/json", request.body()))
                .getAsync("/warmup/async", request -> CompletableFuture.completedFuture(Response.json(PAYLOAD)))
                .get("/warmup/large", request -> Response.json(LARGE_PAYLOAD))
                .get("/warmup/stream", request -> Response.stream(200, "application/json", RequestPathWarmup::publishPayloadTwice));
        router.with(Execution.EVENT_LOOP).get("/warmup/event-loop", request -> Response.ok("loop"));
        router.with(Execution.WORKER_POOL).get("/warmup/worker-pool", request -> Response.ok("worker"));
        router.with(Execution.VIRTUAL_THREAD).get("/warmup/virtual-thread", request -> Response.ok("virtual"));
        return router;
    }

    private static List<ClientRequest> mix(String base) {
        return List.of(
                ClientRequest.get(base + "/warmup/text"),
                ClientRequest.get(base + "/warmup/param/7?q=x"),
                ClientRequest.of("POST", base + "/warmup/echo").body("application/json", PAYLOAD),
                ClientRequest.get(base + "/warmup/async"),
                ClientRequest.get(base + "/warmup/large"),
                ClientRequest.of("POST", base + "/warmup/echo").body("application/json", GZIP_PAYLOAD).header("Content-Encoding", "gzip"),
                ClientRequest.get(base + "/warmup/stream"),
                ClientRequest.get(base + "/warmup/event-loop"),
                ClientRequest.get(base + "/warmup/worker-pool"),
                ClientRequest.get(base + "/warmup/virtual-thread"),
                ClientRequest.of("HEAD", base + "/warmup/text"),
                ClientRequest.get(base + "/warmup/missing"),
                ClientRequest.of("DELETE", base + "/warmup/text"));
    }

    /** Two items on demand, then complete: the streamed-response path without a thread of its own. */
    private static void publishPayloadTwice(Flow.Subscriber<? super byte[]> subscriber) {
        subscriber.onSubscribe(new Flow.Subscription() {
            private int sent;
            private boolean done;

            @Override
            public void request(long n) {
                while (n-- > 0 && !done) {
                    subscriber.onNext(PAYLOAD);
                    if (++sent == 2) {
                        done = true;
                        subscriber.onComplete();
                    }
                }
            }

            @Override
            public void cancel() {
                done = true;
            }
        });
    }
}
