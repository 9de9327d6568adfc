package keel.http.client;

import keel.core.loop.EventLoop;
import keel.core.loop.LoopGroup;
import keel.http.Response;
import keel.http.server.ServerOptions;
import keel.http.server.Warmup;

import java.io.IOException;
import java.net.URI;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A non-blocking HTTP/1.1 client on Keel's event loops, with a connection pool per host.
 *
 * <pre>{@code
 * HttpClient client = HttpClient.create(ClientOptions.defaults(), server.loops()); // share the server's loops
 * client.sendAsync(ClientRequest.post("http://upstream:8080/refine", json))
 *       .thenApply(response -> Response.json(response.body()));
 * }</pre>
 *
 * <p>A call made on one of the client's loops runs on that loop, start to end, with no thread hop;
 * a call from any other thread goes to the next loop in turn. Callbacks chained on the returned stage
 * run on that loop unless given an executor, so they must not block. {@link #send} is the blocking
 * form for virtual threads and worker threads; it refuses to run on an event loop.
 */
public final class HttpClient implements AutoCloseable {
    private final ClientOptions options;
    private final LoopGroup ownLoops;
    private final List<EventLoop> loops;
    private final Map<EventLoop, LoopPools> pools = new IdentityHashMap<>();
    private final Resolver resolver = new Resolver();
    private final AtomicInteger turn = new AtomicInteger();
    private volatile boolean closed;

    private HttpClient(ClientOptions options, LoopGroup ownLoops, List<EventLoop> loops) {
        this.options = options;
        this.ownLoops = ownLoops;
        this.loops = List.copyOf(loops);
        if (this.loops.isEmpty()) throw new IllegalArgumentException("a client needs at least one event loop");
        for (EventLoop loop : this.loops) pools.put(loop, new LoopPools(loop, options, resolver));
    }

    public static HttpClient create() {
        return create(ClientOptions.defaults());
    }

    /** A client with its own {@code options.loops()} event loops, stopped by {@link #close}. */
    public static HttpClient create(ClientOptions options) {
        LoopGroup group = new LoopGroup(options.loops(), "keel-client");
        return new HttpClient(options, group, group.loops());
    }

    /** A client on existing loops (a server's: {@code server.loops()}); close it before they stop. */
    public static HttpClient create(ClientOptions options, List<EventLoop> loops) {
        return new HttpClient(options, null, loops);
    }

    public ClientOptions options() {
        return options;
    }

    /** Sends {@code request} and reads the whole response body (up to {@code max-response-body-size}). */
    public CompletionStage<Response> sendAsync(ClientRequest request) {
        return call(request, false);
    }

    /**
     * Sends {@code request} and completes at the response head; {@link Response#stream()} publishes the
     * body as it is read, only as fast as its subscriber asks. Retries apply until the head arrives.
     */
    public CompletionStage<Response> streamAsync(ClientRequest request) {
        return call(request, true);
    }

    /**
     * Sends and waits: for handlers on {@code VIRTUAL_THREAD} or {@code WORKER_POOL}. On an event loop
     * thread it throws {@link IllegalStateException} instead of blocking the loop.
     *
     * @throws IOException the call failed ({@link ClientTimeoutException}, {@link PoolFullException},
     *                     {@link HttpClientException}, or the connection's own failure)
     */
    public Response send(ClientRequest request) throws IOException, InterruptedException {
        EventLoop current = EventLoop.current();
        if (current != null) {
            throw new IllegalStateException("HttpClient.send blocks and was called on event loop thread '" + current.name()
                    + "': use sendAsync there, or run the route on Execution.VIRTUAL_THREAD or WORKER_POOL");
        }
        try {
            return sendAsync(request).toCompletableFuture().get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            if (e.getCause() instanceof RuntimeException runtime) throw runtime;
            throw new HttpClientException(request + " failed", e.getCause());
        }
    }

    private CompletionStage<Response> call(ClientRequest request, boolean streaming) {
        CompletableFuture<Response> result = new CompletableFuture<>();
        if (closed) {
            result.completeExceptionally(new HttpClientException("client closed"));
            return result;
        }
        EventLoop loop = pick();
        Call call = new Call(pools.get(loop), request, streaming, result);
        if (loop.inEventLoop()) {
            call.start();
        } else {
            try {
                loop.execute(call::start);
            } catch (RejectedExecutionException e) {
                result.completeExceptionally(new HttpClientException("event loop " + loop.name() + " refused the call", e));
            }
        }
        return result;
    }

    /** The caller's own loop when it is one of ours (no hop), else the next in turn. */
    private EventLoop pick() {
        EventLoop current = EventLoop.current();
        if (current != null && pools.containsKey(current)) return current;
        return loops.get(Math.floorMod(turn.getAndIncrement(), loops.size()));
    }

    /**
     * Prepares the client before its first real call: every loop runs and fills its buffer pool; the
     * request and response paths run against a throwaway server on loopback until the JIT compiled
     * them (skipped when a warm-up pass already completed in this JVM); then each of {@code upstreams}
     * is resolved and gets one open connection per loop in the pool. Blocks; call it at start-up, not
     * on an event loop.
     */
    public Warmup.Report warmup(URI... upstreams) throws IOException, InterruptedException {
        if (EventLoop.current() != null) throw new IllegalStateException("warmup blocks: call it at start-up, not on an event loop");
        onEveryLoop(pools -> pools.prefillBuffers(16));
        ServerOptions server = ServerOptions.builder().host("127.0.0.1").port(0).loops(1).build();
        // Compiled code is per JVM: after HttpServer.warmup (or another client's) a second pass only
        // competes with real traffic, as in the lab app, whose client warms up after the port opened.
        Warmup.Report report = Warmup.completedInThisJvm() ? new Warmup.Report(0, 0, java.time.Duration.ZERO)
                : Warmup.run(server, this, Warmup.DEFAULT_REQUESTS, Warmup.DEFAULT_BUDGET);
        int upstreamFailures = 0;
        for (URI upstream : upstreams) {
            resolver.resolveNow(upstream.getHost());
            // One HEAD per loop, sent from the loop itself: each loop's pool keeps one open connection.
            List<CompletableFuture<Response>> heads = new java.util.ArrayList<>();
            for (EventLoop loop : loops) {
                CompletableFuture<Response> head = new CompletableFuture<>();
                loop.execute(() -> sendAsync(ClientRequest.of("HEAD", upstream.toString())).whenComplete((response, failure) -> {
                    if (failure != null) head.completeExceptionally(failure);
                    else head.complete(response);
                }));
                heads.add(head);
            }
            for (CompletableFuture<Response> head : heads) {
                try {
                    head.get(options.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    upstreamFailures++;
                }
            }
        }
        report = report.plusFailures(upstreamFailures);
        return report;
    }

    private void onEveryLoop(java.util.function.Consumer<LoopPools> action) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(loops.size());
        for (EventLoop loop : loops) {
            loop.execute(() -> {
                try {
                    action.accept(pools.get(loop));
                } finally {
                    done.countDown();
                }
            });
        }
        done.await(5, TimeUnit.SECONDS);
    }

    /** Connections open on every loop and host (for tests and gauges; waits for each loop to answer). */
    public int openConnections() throws InterruptedException {
        AtomicInteger count = new AtomicInteger();
        onEveryLoop(pools -> count.addAndGet(pools.openConnections()));
        return count.get();
    }

    /** Idle pooled connections on every loop and host. */
    public int idleConnections() throws InterruptedException {
        AtomicInteger count = new AtomicInteger();
        onEveryLoop(pools -> count.addAndGet(pools.idleConnections()));
        return count.get();
    }

    /**
     * Refuses new calls, fails calls waiting for a connection and closes idle connections. A client on
     * loops it was given lets exchanges in progress finish, then closes their connections; a client with
     * its own loops stops them, which fails what is still in progress.
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        for (EventLoop loop : loops) {
            try {
                loop.execute(() -> pools.get(loop).close());
            } catch (RejectedExecutionException e) {
                // the loop already stopped, and closed its connections as it did
            }
        }
        if (ownLoops != null) {
            try {
                ownLoops.shutdown(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
