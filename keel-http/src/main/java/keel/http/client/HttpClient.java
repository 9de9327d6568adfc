package keel.http.client;

import keel.core.loop.EventLoop;
import keel.core.loop.LoopGroup;
import keel.http.Response;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Set;
import java.util.function.Consumer;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A non-blocking HTTP/1.1 client on Keel's event loops, with a connection pool per host and loop.
 *
 * <pre>{@code
 * HttpClient client = HttpClient.create();
 * router.with(Execution.EVENT_LOOP).postAsync("/refine", req ->
 *         client.sendAsync(ClientRequest.post("http://upstream:8080/refine", req.bodyText()))
 *               .thenApply(answer -> Response.json(answer.body())));
 * }</pre>
 *
 * <p>Where a call runs: a call made on any Keel event loop (a server's handler on
 * {@code EVENT_LOOP}, or a callback of an earlier call) runs on that very loop, start to end, with
 * no thread hop and no lock: each loop keeps its own pools. A call from any other thread goes to
 * the client's own loops in turn (or, for {@link #create(ClientOptions, List)}, the loops it was
 * given). Callbacks chained on the returned stage run on the call's loop unless given an executor,
 * so they must not block. {@link #send} is the blocking form for virtual threads and worker
 * threads; it refuses to run on an event loop.
 */
public final class HttpClient implements AutoCloseable {
    /** How long {@link #send} waits past a call's request timeout before it gives up on the call's completion. */
    private static final Duration SEND_GRACE = Duration.ofSeconds(1);
    private final ClientOptions options;
    private final LoopGroup ownLoops;
    private final List<EventLoop> loops;
    /** The pools of each loop a call ran on: the client's own, and those of callers' loops (a server's). */
    private final Map<EventLoop, LoopPools> pools = new ConcurrentHashMap<>();
    private final Resolver resolver = new Resolver();
    private final ClientTls tls;
    private final AtomicInteger turn = new AtomicInteger();
    private volatile boolean closed;

    private HttpClient(ClientOptions options, LoopGroup ownLoops, List<EventLoop> loops) {
        this.options = options;
        this.ownLoops = ownLoops;
        this.loops = List.copyOf(loops);
        if (this.loops.isEmpty()) throw new IllegalArgumentException("a client needs at least one event loop");
        this.tls = new ClientTls(options.tls());
    }

    public static HttpClient create() {
        return create(ClientOptions.defaults());
    }

    /** A client with its own {@code options.loops()} event loops, stopped by {@link #close}. */
    public static HttpClient create(ClientOptions options) {
        LoopGroup group = new LoopGroup(options.loops(), "keel-client");
        return new HttpClient(options, group, group.loops());
    }

    /**
     * A client with no loops of its own: calls from other threads go to {@code loops} (a server's:
     * {@code server.loops()}) in turn. Close it before they stop.
     */
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
        refuseOnEventLoop("send", "use sendAsync there, or run the route on Execution.VIRTUAL_THREAD or WORKER_POOL");
        // The call ends by its request timeout; the wait is bounded beyond it too, so a completion that
        // never comes (a loop that stopped in the instant the call was handed to it) cannot hang the caller.
        Duration timeout = request.timeout() != null ? request.timeout() : options.requestTimeout();
        try {
            return sendAsync(request).toCompletableFuture().get(timeout.plus(SEND_GRACE).toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new ClientTimeoutException(ClientTimeoutException.Kind.REQUEST, timeout.plus(SEND_GRACE), request.toString());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) throw io;
            if (e.getCause() instanceof RuntimeException runtime) throw runtime;
            throw new HttpClientException(request + " failed", e.getCause());
        }
    }

    private CompletionStage<Response> call(ClientRequest request, boolean streaming) {
        if (closed) return CompletableFuture.failedFuture(new HttpClientException("client closed"));
        CompletableFuture<Response> result = new CompletableFuture<>();
        EventLoop loop = pick();
        Call call = new Call(poolsOf(loop), request, streaming, result);
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

    /**
     * Runs tasks on an event loop: the caller's own when it runs on one, else the client's next loop.
     * Calls started from such a task complete on that loop, so a fan-out started there never has a
     * callback run on the starting thread.
     */
    public java.util.concurrent.Executor executor() {
        return task -> pick().execute(task);
    }

    /** The caller's own loop when it runs on one (no hop), else the next of ours in turn. */
    private EventLoop pick() {
        EventLoop current = EventLoop.current();
        return current != null ? current : loops.get(Math.floorMod(turn.getAndIncrement(), loops.size()));
    }

    private LoopPools poolsOf(EventLoop loop) {
        LoopPools existing = pools.get(loop);
        if (existing != null) return existing;
        pools.keySet().removeIf(other -> !other.thread().isAlive()); // the loops of servers that stopped
        return pools.computeIfAbsent(loop, key -> new LoopPools(key, options, resolver, tls));
    }

    /** The loops that calls from other threads go to in turn: the client's own, or those it was given. */
    public List<EventLoop> loops() {
        return loops;
    }

    /**
     * Runs every loop of the client, and every other loop it made calls on, and fills its buffer pool:
     * the first step of a client's warm-up (see {@code RequestPathWarmup.client}). Blocks; refused on an event loop.
     */
    public void prefillBuffers() throws InterruptedException {
        onEveryLoop("prefillBuffers", pools -> pools.prefillBuffers(16));
    }

    /**
     * Resolves {@code upstream}, and sends it one HEAD from each loop: each loop's pool keeps one open
     * connection. Returns the HEADs that failed. Blocks; call it at start-up, not on an event loop.
     */
    public int warmUpstream(URI upstream) throws IOException, InterruptedException {
        refuseOnEventLoop("warmUpstream", "call it from another thread");
        resolver.resolveNow(upstream.getHost());
        if ("https".equalsIgnoreCase(upstream.getScheme())) tls.get(); // the trust store loads here, not on a loop
        List<CompletableFuture<Response>> heads = new ArrayList<>();
        for (EventLoop loop : loops) {
            heads.add(CompletableFuture.supplyAsync(() -> sendAsync(ClientRequest.of("HEAD", upstream.toString())), loop)
                    .thenCompose(head -> head));
        }
        int failures = 0;
        for (CompletableFuture<Response> head : heads) {
            try {
                head.get(options.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | TimeoutException e) {
                failures++;
            }
        }
        return failures;
    }

    private static void refuseOnEventLoop(String what, String instead) {
        EventLoop current = EventLoop.current();
        if (current != null) {
            throw new IllegalStateException("HttpClient." + what + " blocks and was called on event loop thread '" + current.name()
                    + "': " + instead);
        }
    }

    /**
     * Runs {@code action} on each of the client's loops, and on every other loop it made calls on; waits
     * for them, so {@code what} (the public method) is refused on an event loop.
     */
    private void onEveryLoop(String what, Consumer<LoopPools> action) throws InterruptedException {
        refuseOnEventLoop(what, "call it from another thread");
        Set<EventLoop> every = Collections.newSetFromMap(new IdentityHashMap<>());
        every.addAll(loops);
        every.addAll(pools.keySet());
        every.removeIf(loop -> !loop.thread().isAlive());
        if (!LoopGroup.runOnEach(every, loop -> action.accept(poolsOf(loop)), Duration.ofSeconds(5))) {
            throw new IllegalStateException("an event loop did not answer within 5 s");
        }
    }

    /** Connections open on every loop and host (for tests and gauges; waits for each loop to answer, so not on a loop). */
    public int openConnections() throws InterruptedException {
        AtomicInteger count = new AtomicInteger();
        onEveryLoop("openConnections", pools -> count.addAndGet(pools.openConnections()));
        return count.get();
    }

    /** Idle pooled connections on every loop and host. */
    public int idleConnections() throws InterruptedException {
        AtomicInteger count = new AtomicInteger();
        onEveryLoop("idleConnections", pools -> count.addAndGet(pools.idleConnections()));
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
        pools.forEach((loop, loopPools) -> {
            try {
                loop.execute(loopPools::close);
            } catch (RejectedExecutionException e) {
                // the loop already stopped, and closed its connections as it did
            }
        });
        if (ownLoops == null) return;
        if (EventLoop.current() != null) {
            ownLoops.loops().forEach(EventLoop::shutdown); // a loop cannot wait for itself to stop
            return;
        }
        try {
            ownLoops.shutdown(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
