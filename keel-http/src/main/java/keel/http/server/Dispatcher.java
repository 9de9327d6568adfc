package keel.http.server;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.http.Execution;
import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Route;
import keel.http.router.RouteMatch;
import keel.http.router.RouteTable;
import keel.http.ws.WsConnection;
import keel.http.ws.WsEndpoint;
import keel.http.ws.WsHandshake;
import keel.http.ws.WsOptions;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Routes a request and runs its handler under the route's {@link Execution}. The answer goes to a
 * callback exactly once, on whatever thread produced it; the transport moves it to the connection's
 * own thread. Every place off the loop is bounded ({@link OffLoop}) and refuses at once with 503
 * when full. Every 503, its own or a handler's, is reported to the observer with its
 * {@link ServerObserver.Rejection reason}. Content codings are handled here for both transports: a
 * request body's before the handler runs ({@link RequestCoding}), a handler's answer as it leaves
 * the handler, on its thread ({@link ResponseCompression}). A handler runs under its route's deadline ({@link HandlerCall}):
 * past it the client gets 503, counted as {@link ServerObserver.Rejection#DEADLINE}.
 */
final class Dispatcher implements AutoCloseable {
    private static final Log LOG = Log.of(Dispatcher.class);
    private final RouteTable routes;
    private final Execution defaultExecution;
    private final WsOptions webSocketOptions;
    private final ServerObserver observer;
    private final boolean observing;
    private final ResponseCompression compression;
    private final long maxBodySize;
    private final Duration handlerDeadline;
    private final OffLoop offLoop;
    /** Routes with a concurrency limit of their own; built once, read without locks. */
    private final Map<Route, Semaphore> routeLimits = new IdentityHashMap<>();
    /** Routes the guard moved off the event loop; {@code anyOffloaded} keeps the check off the fast path. */
    private final Set<Route> offloaded = ConcurrentHashMap.newKeySet();
    private volatile boolean anyOffloaded;

    Dispatcher(ServerOptions options, RouteTable routes, ServerObserver observer) {
        this.routes = routes;
        this.defaultExecution = options.execution();
        this.webSocketOptions = options.webSocket();
        this.observer = observer;
        this.observing = observer != ServerObserver.NONE;
        this.compression = new ResponseCompression(options.compression());
        this.maxBodySize = options.limits().maxBodySize();
        this.handlerDeadline = options.timeouts().handlerDeadline();
        this.offLoop = new OffLoop(options.pools(),
                routes.routes().stream().anyMatch(r -> r.executionOr(defaultExecution) == Execution.WORKER_POOL));
        for (Route route : routes.routes()) {
            if (route.maxConcurrent() > 0) routeLimits.put(route, new Semaphore(route.maxConcurrent()));
        }
    }

    RouteTable routes() {
        return routes;
    }

    /**
     * Routes {@code request} and answers through {@code done}, possibly before this method returns.
     * {@code loop} is the connection's event loop: an {@code EVENT_LOOP} handler runs on it, labelled
     * with its route for the watchdog. A handshake a WebSocket route accepts goes to {@code exchange}.
     */
    void dispatch(Request request, Consumer<Response> done, EventLoop loop, Exchange exchange) {
        resolve(request, done, loop, false, exchange);
    }

    /** For the blocking transport: routes and runs the handler on the calling thread, waiting for an async one. */
    Response respond(Request request) {
        CompletableFuture<Response> answer = new CompletableFuture<>();
        resolve(request, answer::complete, null, true, null);
        try {
            return answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            rejected(ServerObserver.Rejection.SHUTTING_DOWN);
            return Responses.overloaded("server is stopping");
        } catch (ExecutionException e) {
            return Responses.forException(e, request); // not reached: invoke always completes normally
        }
    }

    private void resolve(Request request, Consumer<Response> done, EventLoop loop, boolean onCallingThread, Exchange exchange) {
        long start = observing ? startTime(loop) : 0;
        RouteMatch match;
        try {
            match = routes.match(request.method(), request.path());
        } catch (HttpStatusException badPath) {
            recorded(done, request, null, start, exchange).accept(Responses.forException(badPath, request));
            return;
        }
        switch (match) {
            case RouteMatch.NotFound notFound -> recorded(done, request, null, start, exchange).accept(Responses.notFound());
            case RouteMatch.MethodNotAllowed notAllowed ->
                    recorded(done, request, null, start, exchange).accept(Responses.methodNotAllowed(notAllowed.allowed()));
            case RouteMatch.Found found -> {
                Route route = found.route();
                if (exchange != null && route.endpoint() instanceof Route.Sync sync && executionOf(route) == Execution.EVENT_LOOP
                        && !routeLimits.containsKey(route) && RequestCoding.unsupported(request) == null) {
                    exchange.runsOn(Execution.EVENT_LOOP);
                    answerOnLoop(route, sync, routed(request, found, route), start, done, exchange, loop);
                    return;
                }
                Consumer<Response> answer = recorded(done, request, route, start, exchange);
                if (exchange != null && route.endpoint() instanceof Route.WebSocket webSocket) {
                    upgrade(route, webSocket.endpoint(), request.withPathParams(found.pathParams()), answer, exchange, start);
                    return;
                }
                String unsupportedCoding = RequestCoding.unsupported(request);
                if (unsupportedCoding != null) {
                    answer.accept(Responses.unsupportedContentCoding(unsupportedCoding));
                    return;
                }
                Execution execution = executionOf(route);
                // A synchronous handler on the loop answers before dispatch returns: no place to reserve,
                // and no deadline (nothing could answer while it holds the loop; the guard watches it).
                boolean answersLater = execution != Execution.EVENT_LOOP || route.endpoint() instanceof Route.Async;
                if (exchange != null) {
                    exchange.runsOn(execution);
                    if (answersLater && !exchange.reserveAnswer()) {
                        reject(ServerObserver.Rejection.LOOP_QUEUE_FULL, "event loop task queue is full", answer);
                        return;
                    }
                }
                HandlerCall call = new HandlerCall(answer);
                Semaphore limit = routeLimits.isEmpty() ? null : routeLimits.get(route);
                if (limit != null) {
                    if (!limit.tryAcquire()) {
                        reject(ServerObserver.Rejection.ROUTE_LIMIT, "route concurrency limit reached (" + route.maxConcurrent() + ")", answer);
                        return;
                    }
                    call.releasesWithAnswer(limit::release);
                }
                long deadline = route.deadlineOr(handlerDeadline).toNanos();
                if (deadline > 0 && exchange == null) {
                    call.runsUnder(deadline);
                    call.expireAfter(deadline, deadlineResponse(deadline), () -> rejected(ServerObserver.Rejection.DEADLINE));
                } else if (deadline > 0 && answersLater) {
                    call.runsUnder(deadline);
                    exchange.deadline(call, deadline);
                }
                Request routed = routed(request, found, route);
                if (onCallingThread) invoke(route, routed, call);
                else run(execution, route, routed, call, loop, exchange);
            }
        }
    }

    /** The request as its handler sees it: with the route's path parameters, and its body decoded on reading (under the route's limit). */
    private Request routed(Request request, RouteMatch.Found found, Route route) {
        return RequestCoding.decoding(request.withPathParams(found.pathParams()), route.maxBodySizeOr(maxBodySize));
    }

    /**
     * The common case, a synchronous handler on its connection's loop (on a route without a
     * concurrency limit), answered without an object of its own: it answers before this returns, and
     * nothing can answer for it meanwhile (it has no deadline: the guard watches the loop instead),
     * so it needs no {@link HandlerCall} to keep a second answer out; and its exchange times its
     * answer, for the observer and the access log ({@link Exchange#answeredOnLoop}).
     */
    private void answerOnLoop(Route route, Route.Sync sync, Request request, long start, Consumer<Response> done, Exchange exchange,
                              EventLoop loop) {
        loop.markActivity(route);
        try {
            Response response;
            try {
                response = responseOf(sync, request);
            } catch (Throwable failure) {
                response = Responses.forException(failure, request);
            }
            if (response.status() == 503) rejected(ServerObserver.Rejection.HANDLER);
            response = compression.answer(request, response);
            if (observing) exchange.answeredOnLoop(request.method(), route.path(), response.status(), start);
            done.accept(response);
        } finally {
            loop.markActivity(null);
        }
    }

    /** What a synchronous handler answers; null is a failure of the handler's. */
    private static Response responseOf(Route.Sync sync, Request request) throws Exception {
        Response response = sync.handler().handle(request);
        if (response == null) throw new IllegalStateException("handler returned null");
        return response;
    }

    /**
     * On the connection's loop {@code loop}, before {@code run} goes to its thread: appends
     * {@code request}, pipelined behind the run's, as its next step, when it can run there as it would
     * have alone: a synchronous handler under the run's execution, on a route without a concurrency
     * limit, with a place for its answer in the loop's task queue. It takes no place of its own under
     * the pool's (or the virtual threads') limit: it runs on the run's thread, under the run's place.
     * Returns its call (its answer's gate, with its {@link HandlerCall#deadlineNanos deadline}), or
     * null, with nothing taken, when it cannot: the connection dispatches it afresh later. The
     * request's deadline is the exchange's to arm once the answers before it are written.
     */
    HandlerCall follow(PipelineRun run, Request request, Consumer<Response> done, EventLoop loop, Exchange exchange) {
        RouteMatch match;
        try {
            match = routes.match(request.method(), request.path());
        } catch (HttpStatusException badPath) {
            return null;
        }
        if (!(match instanceof RouteMatch.Found found)) return null;
        Route route = found.route();
        if (!(route.endpoint() instanceof Route.Sync) || executionOf(route) != run.execution() || routeLimits.containsKey(route)
                || RequestCoding.unsupported(request) != null || !exchange.reserveAnswer()) {
            return null;
        }
        HandlerCall call = new HandlerCall(recorded(done, request, route, observing ? startTime(loop) : 0, exchange));
        long deadline = route.deadlineOr(handlerDeadline).toNanos();
        if (deadline > 0) call.runsUnder(deadline); // armed at its turn, which may come while it runs
        run.append(step(route, routed(request, found, route), call));
        return call;
    }

    private PipelineRun.Step step(Route route, Request request, HandlerCall call) {
        return new Invocation(this, route, request, call);
    }

    /** A handler's run off the loop: skipped when its call was answered before it could start (its deadline passed). */
    private record Invocation(Dispatcher dispatcher, Route route, Request request, HandlerCall call) implements PipelineRun.Step {
        @Override
        public void run() {
            if (!call.isAnswered()) dispatcher.invoke(route, request, call);
        }
    }

    private void run(Execution execution, Route route, Request request, HandlerCall call, EventLoop loop, Exchange exchange) {
        // A synchronous handler off the loop runs as the first step of a run the pipelined requests behind it may join.
        PipelineRun run = execution != Execution.EVENT_LOOP && exchange != null && route.endpoint() instanceof Route.Sync
                ? new PipelineRun(execution, step(route, request, call)) : null;
        switch (execution) {
            case EVENT_LOOP -> {
                loop.markActivity(route);
                try {
                    invoke(route, request, call);
                } finally {
                    loop.markActivity(null);
                }
            }
            case WORKER_POOL -> {
                boolean queued;
                try {
                    // The place goes back as the answer goes to the loop (or as the deadline answers), a
                    // run's with its last answer: a client that has read its answers never finds its own
                    // requests still holding a place.
                    queued = offLoop.runOnWorker(release -> {
                        call.releasesWithAnswer(release);
                        if (run == null) return step(route, request, call);
                        exchange.runs(run); // the pipelined requests behind join before the run starts
                        return run;
                    });
                } catch (RejectedExecutionException stopped) {
                    queued = false;
                }
                if (queued) return;
                if (offLoop.isShutdown()) {
                    refuse(ServerObserver.Rejection.SHUTTING_DOWN, "server is stopping", call, run);
                } else {
                    reject(ServerObserver.Rejection.WORKER_POOL_FULL, "worker pool is full", call);
                }
            }
            case VIRTUAL_THREAD -> {
                if (!offLoop.tryAdmitVirtualThread()) {
                    reject(ServerObserver.Rejection.VIRTUAL_THREAD_LIMIT, "virtual-thread concurrency limit reached", call);
                    return;
                }
                call.releasesWithAnswer(offLoop.virtualThreadRelease());
                if (run != null) exchange.runs(run); // the pipelined requests behind join before the run starts
                boolean offloaded = route.executionOr(defaultExecution) == Execution.EVENT_LOOP; // moved here by the guard
                TurnStarts.start(offLoop.newVirtualThread(run != null ? run : step(route, request, call), offloaded),
                        () -> refuse(ServerObserver.Rejection.VIRTUAL_THREAD_LIMIT, "a virtual thread could not start", call, run));
            }
        }
    }

    /** Answers {@code call}, and the requests that joined its {@code run} (when there is one), with 503 for {@code reason}. */
    private void refuse(ServerObserver.Rejection reason, String why, HandlerCall call, PipelineRun run) {
        reject(reason, why, call);
        if (run != null) run.refuse(joined -> reject(reason, why, joined));
    }

    /** On the connection's loop: the deadline of {@code call} passed; true when that answered it (503, counted). */
    boolean expire(HandlerCall call, long nanos) {
        return call.expire(deadlineResponse(nanos), () -> rejected(ServerObserver.Rejection.DEADLINE));
    }

    private static Response deadlineResponse(long nanos) {
        return Responses.overloaded("handler deadline of " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms passed");
    }

    /** Checks the handshake (its hooks run here, on the loop) and hands an accepted one to the connection. */
    private void upgrade(Route route, WsEndpoint endpoint, Request request, Consumer<Response> refuse, Exchange exchange, long start) {
        WsHandshake.Outcome outcome;
        try {
            outcome = WsHandshake.check(request, endpoint, webSocketOptions);
        } catch (Throwable failure) {
            refuse.accept(Responses.forException(failure, request));
            return;
        }
        switch (outcome) {
            case WsHandshake.Refused refused -> refuse.accept(refused.response());
            case WsHandshake.Accepted accepted -> {
                // A WebSocket route's limit counts open sessions: the permit is held until the session closes.
                Semaphore limit = routeLimits.isEmpty() ? null : routeLimits.get(route);
                if (limit != null && !limit.tryAcquire()) {
                    reject(ServerObserver.Rejection.ROUTE_LIMIT, "route concurrency limit reached (" + route.maxConcurrent() + ")", refuse);
                    return;
                }
                if (observing) exchange.answeredOnLoop(request.method(), route.path(), 101, start);
                var binding = new WsConnection.Binding(endpoint.listener(), request, accepted.subprotocol(), accepted.deflate(),
                        listenerExecutor(route), route);
                exchange.upgrade(accepted, binding, limit == null ? () -> { } : limit::release);
            }
        }
    }

    /**
     * Where a WebSocket route's callbacks run: null for inline on the loop; otherwise an executor
     * that throws {@link RejectedExecutionException} when its pool or limit is full.
     */
    private Executor listenerExecutor(Route route) {
        return switch (executionOf(route)) {
            case EVENT_LOOP -> null;
            case WORKER_POOL -> task -> {
                if (!offLoop.runOnWorker(release -> task)) throw new RejectedExecutionException("worker pool is full");
            };
            case VIRTUAL_THREAD -> offLoop::runOnVirtualThread;
        };
    }

    private void reject(ServerObserver.Rejection reason, String text, Consumer<Response> done) {
        rejected(reason);
        done.accept(Responses.overloaded(text));
    }

    private void rejected(ServerObserver.Rejection reason) {
        try {
            observer.onRejected(reason);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "rejected");
        }
    }

    /**
     * Hands on what the handler answered, compressed when it qualifies; a 503 it chose itself is
     * counted as such (not when its deadline answered first).
     */
    private void answer(HandlerCall call, Request request, Response response) {
        if (response.status() == 503 && !call.isAnswered()) rejected(ServerObserver.Rejection.HANDLER);
        call.accept(compression.answer(request, response));
    }

    /** Reports each response to the observer ({@link ObservedAnswer}); allocates nothing when nobody observes. */
    private Consumer<Response> recorded(Consumer<Response> done, Request request, Route route, long start, Exchange exchange) {
        if (!observing) return done;
        return new ObservedAnswer(observer, done, request.method(), route == null ? null : route.path(), start, exchange);
    }

    /**
     * When a request's time starts for its observer: on its loop, the loop's last clock read, made as it
     * took up the connection's input (free, and the moment the request began to be served there).
     */
    private static long startTime(EventLoop loop) {
        return loop != null && loop.inEventLoop() ? loop.lastNanoTime() : System.nanoTime();
    }

    /** Where {@code route} runs now: its own execution or the server's, on virtual threads once offloaded. */
    private Execution executionOf(Route route) {
        Execution execution = route.executionOr(defaultExecution);
        if (execution == Execution.EVENT_LOOP && anyOffloaded && offloaded.contains(route)) return Execution.VIRTUAL_THREAD;
        return execution;
    }

    /** From now on {@code route} runs on virtual threads instead of the event loop; true the first time. */
    boolean offload(Route route) {
        if (route.executionOr(defaultExecution) != Execution.EVENT_LOOP || !offloaded.add(route)) return false;
        anyOffloaded = true;
        return true;
    }

    boolean isOffloaded(Route route) {
        return offloaded.contains(route);
    }

    Execution defaultExecution() {
        return defaultExecution;
    }

    int virtualThreadsInFlight() {
        return offLoop.virtualThreadsInFlight();
    }

    /**
     * Calls the handler here; failures of any kind become a response, so {@code call} is always answered
     * once. The answer is compressed (when it qualifies) before it reaches {@code call}, on the thread
     * that produced it: for the worker pool, before the worker's place goes back.
     */
    private void invoke(Route route, Request request, HandlerCall call) {
        switch (route.endpoint()) {
            case Route.Sync sync -> {
                Response response;
                call.enter();
                try {
                    response = responseOf(sync, request);
                } catch (Throwable failure) {
                    response = call.isAnswered() ? null : Responses.forException(failure, request); // interrupted by its deadline: dropped
                } finally {
                    call.leave();
                }
                if (response != null) answer(call, request, response);
            }
            case Route.WebSocket webSocket -> answer(call, request, Responses.error(501,
                    "WebSocket routes need the nio transport (server.transport: nio)"));
            case Route.Async async -> {
                CompletionStage<Response> stage;
                call.enter();
                try {
                    stage = async.handler().handle(request);
                    if (stage == null) throw new IllegalStateException("async handler returned null");
                } catch (Throwable failure) {
                    if (!call.isAnswered()) answer(call, request, Responses.forException(failure, request));
                    return;
                } finally {
                    call.leave();
                }
                stage.whenComplete((response, failure) -> {
                    if (call.isAnswered()) {
                        if (response != null && response.isStreamed()) DiscardingSubscriber.discard(response.stream());
                    } else if (failure != null) answer(call, request, Responses.forException(failure, request));
                    else if (response == null) answer(call, request, Responses.forException(new IllegalStateException("async handler completed with null"), request));
                    else answer(call, request, response);
                });
            }
        }
    }

    int workerActive() {
        return offLoop.workerActive();
    }

    int workerQueued() {
        return offLoop.workerQueued();
    }

    @Override
    public void close() {
        offLoop.close();
    }
}
