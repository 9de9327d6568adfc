package keel.http.execution;

import keel.core.loop.EventLoop;
import keel.http.Execution;
import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.Response;
import keel.http.Rejection;
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
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Routes a request and runs its handler under the route's {@link Execution}, for either transport,
 * in two steps that each return ({@link Dispatch}): {@link #route}, then {@link #run}. An answer made
 * on the calling thread is returned; one made later or elsewhere goes, exactly once, to the inbox the
 * protocol gave, which takes it to the connection's own thread. Every place off the loop is bounded ({@link OffLoop}) and refuses at once with 503
 * when full. Every 503, its own or a handler's, is reported with its
 * {@link Rejection reason}. Content codings are handled here for both transports: a
 * request body's before the handler runs ({@link RequestCoding}), a handler's answer as it leaves
 * the handler, on its thread ({@link ResponseCompression}). A handler runs under its route's deadline ({@link HandlerCall}):
 * past it the client gets 503, counted as {@link Rejection#DEADLINE}.
 */
public final class Dispatcher implements AutoCloseable {
    private final RouteTable routes;
    private final Execution defaultExecution;
    private final WsOptions webSocketOptions;
    private final Consumer<Rejection> rejections;
    private final ResponseCompression compression;
    private final long maxBodySize;
    private final Duration handlerDeadline;
    private final OffLoop offLoop;
    /** Routes with a concurrency limit of their own; built once, read without locks. */
    private final Map<Route, Semaphore> routeLimits = new IdentityHashMap<>();
    /** Routes the guard moved off the event loop; {@code anyOffloaded} keeps the check off the fast path. */
    private final Set<Route> offloaded = ConcurrentHashMap.newKeySet();
    private volatile boolean anyOffloaded;

    /**
     * Routes by {@code routes}, a route without an execution of its own under {@code defaultExecution};
     * a body decoded to at most {@code maxBodySize} bytes unless its route says otherwise, a handler
     * under {@code handlerDeadline} unless its route says otherwise (zero: none); off the loop in
     * {@code offLoop}'s places, which the dispatcher closes. Every 503 goes to {@code rejections}.
     */
    public Dispatcher(RouteTable routes, Execution defaultExecution, WsOptions webSocketOptions, ResponseCompression compression,
                      long maxBodySize, Duration handlerDeadline, OffLoop offLoop, Consumer<Rejection> rejections) {
        this.routes = routes;
        this.defaultExecution = defaultExecution;
        this.webSocketOptions = webSocketOptions;
        this.rejections = rejections;
        this.compression = compression;
        this.maxBodySize = maxBodySize;
        this.handlerDeadline = handlerDeadline;
        this.offLoop = offLoop;
        for (Route route : routes.routes()) {
            if (route.maxConcurrent() > 0) routeLimits.put(route, new Semaphore(route.maxConcurrent()));
        }
    }

    /** True when some route of {@code routes} runs on the worker pool, its own execution or {@code defaultExecution}. */
    public static boolean usesWorkers(RouteTable routes, Execution defaultExecution) {
        return routes.routes().stream().anyMatch(r -> r.executionOr(defaultExecution) == Execution.WORKER_POOL);
    }

    public RouteTable routes() {
        return routes;
    }

    /**
     * Finds the route of {@code request}: an answer of the router's own (400 for a bad path, 404, 405,
     * 415 for a body coding no handler can read), or the handler ready to run. Changes nothing: a
     * request routed and not run leaves no trace.
     */
    public Dispatch.Routed route(Request request) {
        RouteMatch match;
        try {
            match = routes.match(request.method(), request.path());
        } catch (HttpStatusException badPath) {
            return new Dispatch.Answered(Responses.forException(badPath, request), null);
        }
        return switch (match) {
            case RouteMatch.NotFound notFound -> new Dispatch.Answered(Responses.notFound(), null);
            case RouteMatch.MethodNotAllowed notAllowed -> new Dispatch.Answered(Responses.methodNotAllowed(notAllowed.allowed()), null);
            case RouteMatch.Found found -> ready(request, found);
        };
    }

    private Dispatch.Routed ready(Request request, RouteMatch.Found found) {
        Route route = found.route();
        Execution execution = executionOf(route);
        if (route.endpoint() instanceof Route.WebSocket) {
            return new Dispatch.Ready(route, request.withPathParams(found.pathParams()), execution, 0);
        }
        String unsupportedCoding = RequestCoding.unsupported(request);
        if (unsupportedCoding != null) return new Dispatch.Answered(Responses.unsupportedContentCoding(unsupportedCoding), route.path());
        // The body is decoded on reading, under the route's limit.
        Request routed = RequestCoding.decoding(request.withPathParams(found.pathParams()), route.maxBodySizeOr(maxBodySize));
        return new Dispatch.Ready(route, routed, execution, route.deadlineOr(handlerDeadline).toNanos());
    }

    /**
     * Runs the handler {@code ready} holds, under its route's limit and execution, on the connection's
     * event loop {@code loop} (an {@code EVENT_LOOP} handler runs here, labelled with its route for the
     * watchdog), or, with {@code loop} null, here on the calling thread (the blocking transport, which
     * waits for the inbox). An answer made later or elsewhere goes to {@code inbox}, once; a handler
     * off the loop waits in the {@link Dispatch.Running#run run} returned for the protocol to start it.
     * When {@link Dispatch.Ready#answersLater} the protocol has reserved the answer's place already.
     */
    public Dispatch.Started run(Dispatch.Ready ready, EventLoop loop, HandlerCall.Inbox inbox) {
        Route route = ready.route();
        Semaphore limit = routeLimits.isEmpty() ? null : routeLimits.get(route);
        if (limit != null && !limit.tryAcquire()) {
            return new Dispatch.Answered(refusal(Rejection.ROUTE_LIMIT, "route concurrency limit reached (" + route.maxConcurrent() + ")"),
                    ready.pattern());
        }
        switch (route.endpoint()) {
            case Route.WebSocket webSocket -> {
                if (loop != null) return upgrade(ready, webSocket.endpoint(), limit);
                if (limit != null) limit.release();
                return new Dispatch.Answered(Responses.error(501, "WebSocket routes need the nio transport (server.transport: nio)"),
                        ready.pattern());
            }
            case Route.Sync sync when loop != null && ready.execution() == Execution.EVENT_LOOP -> {
                try {
                    return new Dispatch.Answered(answerOnLoop(sync, ready.request(), loop, route), ready.pattern());
                } finally {
                    if (limit != null) limit.release();
                }
            }
            default -> {
            }
        }
        HandlerCall call = new HandlerCall(inbox);
        if (limit != null) call.releasesWithAnswer(limit::release);
        long deadline = ready.deadlineNanos();
        if (deadline > 0) call.runsUnder(deadline);
        if (loop == null) {
            if (deadline > 0) call.expireAfter(deadline, deadlineResponse(deadline), () -> rejections.accept(Rejection.DEADLINE));
            invoke(route, ready.request(), call);
            return new Dispatch.Running(call, null);
        }
        return switch (ready.execution()) {
            case EVENT_LOOP -> onLoop(ready, call, loop);
            case WORKER_POOL -> onWorker(ready, call);
            case VIRTUAL_THREAD -> onVirtualThread(ready, call);
        };
    }

    /**
     * A synchronous handler on its connection's loop, answered without a {@link HandlerCall}: it
     * answers before {@code run} returns, and nothing can answer for it meanwhile (it has no deadline:
     * the guard watches the loop instead).
     */
    private Response answerOnLoop(Route.Sync sync, Request request, EventLoop loop, Route route) {
        loop.markActivity(route);
        try {
            Response response;
            try {
                response = responseOf(sync, request);
            } catch (Throwable failure) {
                response = Responses.forException(failure, request);
            }
            if (response.status() == 503) rejections.accept(Rejection.HANDLER);
            return compression.answer(request, response);
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

    /** An async handler on the loop: answered now when its stage is already complete, else later through the inbox. */
    private Dispatch.Started onLoop(Dispatch.Ready ready, HandlerCall call, EventLoop loop) {
        Route.Async async = (Route.Async) ready.route().endpoint();
        CompletionStage<Response> stage;
        loop.markActivity(ready.route());
        try {
            stage = callAsync(async, ready.request(), call);
        } finally {
            loop.markActivity(null);
        }
        if (stage instanceof CompletableFuture<Response> future && future.isDone() && call.settle()) {
            Response response;
            try {
                response = asyncAnswer(future.join(), null, ready.request());
            } catch (CompletionException | CancellationException failure) { // a CompletionException stands for its cause
                response = Responses.forException(failure, ready.request());
            }
            if (response.status() == 503) rejections.accept(Rejection.HANDLER);
            return new Dispatch.Answered(compression.answer(ready.request(), response), ready.pattern());
        }
        awaitAsync(stage, ready.request(), call);
        return new Dispatch.Running(call, null);
    }

    /**
     * A handler on the worker pool, under an admission permit taken now (a full pool refuses at once).
     * The permit goes back as the answer goes to the loop (or as the deadline answers), a run's with
     * its last answer: a client that has read its answers never finds its own requests still holding one.
     */
    private Dispatch.Started onWorker(Dispatch.Ready ready, HandlerCall call) {
        Runnable release = offLoop.tryAdmitWorker();
        if (release == null) {
            Rejection reason = offLoop.isShutdown() ? Rejection.SHUTTING_DOWN : Rejection.WORKER_POOL_FULL;
            return refused(reason, reason == Rejection.SHUTTING_DOWN ? "server is stopping" : "worker pool is full", ready, call);
        }
        call.releasesWithAnswer(release);
        PipelineRun run = new PipelineRun(Execution.WORKER_POOL, step(ready, call), (work, failed) -> {
            try {
                offLoop.executeOnWorker(work, release);
            } catch (RejectedExecutionException stopped) {
                failed.run();
            }
        }, refused -> reject(Rejection.SHUTTING_DOWN, "server is stopping", refused));
        return new Dispatch.Running(call, run);
    }

    /** A handler on a virtual thread of its own, under a place of the virtual-thread limit taken now. */
    private Dispatch.Started onVirtualThread(Dispatch.Ready ready, HandlerCall call) {
        if (!offLoop.tryAdmitVirtualThread()) {
            return refused(Rejection.VIRTUAL_THREAD_LIMIT, "virtual-thread concurrency limit reached", ready, call);
        }
        call.releasesWithAnswer(offLoop.releaseVirtualPermit);
        boolean offloaded = ready.route().executionOr(defaultExecution) == Execution.EVENT_LOOP; // moved here by the guard
        PipelineRun run = new PipelineRun(Execution.VIRTUAL_THREAD, step(ready, call),
                (work, failed) -> TurnStarts.start(offLoop.newVirtualThread(work, offloaded), failed),
                refused -> reject(Rejection.VIRTUAL_THREAD_LIMIT, "a virtual thread could not start", refused));
        return new Dispatch.Running(call, run);
    }

    /**
     * True when {@code ready}, pipelined behind the first request of {@code run}, can join it and run
     * there as it would have alone: a synchronous handler under the run's execution, on a route
     * without a concurrency limit.
     */
    public boolean canJoin(PipelineRun run, Dispatch.Ready ready) {
        return ready.route().endpoint() instanceof Route.Sync && ready.execution() == run.execution()
                && !routeLimits.containsKey(ready.route());
    }

    /**
     * On the connection's loop, before {@code run} starts, with the answer's place reserved: appends
     * {@code ready} (which {@link #canJoin} it) as the run's next step. It takes no place of its own
     * under the pool's (or the virtual threads') limit: it runs on the run's thread, under the run's
     * place. Its deadline is the protocol's to arm once the answers before it are written.
     */
    public HandlerCall join(PipelineRun run, Dispatch.Ready ready, HandlerCall.Inbox inbox) {
        HandlerCall call = new HandlerCall(inbox);
        if (ready.deadlineNanos() > 0) call.runsUnder(ready.deadlineNanos()); // armed at its turn, which may come while it runs
        run.append(step(ready, call));
        return call;
    }

    private PipelineRun.Step step(Dispatch.Ready ready, HandlerCall call) {
        return new Invocation(this, ready.route(), ready.request(), call);
    }

    /** A handler's run off the loop: skipped when its call was answered before it could start (its deadline passed). */
    private record Invocation(Dispatcher dispatcher, Route route, Request request, HandlerCall call) implements PipelineRun.Step {
        @Override
        public void run() {
            if (!call.isAnswered()) dispatcher.invoke(route, request, call);
        }
    }

    /**
     * On the connection's loop: the deadline of {@code call} passed. Returns the 503 to answer
     * (counted), or null when the handler's answer came first.
     */
    public Response expire(HandlerCall call) {
        if (!call.expire(() -> rejections.accept(Rejection.DEADLINE))) return null;
        return deadlineResponse(call.deadlineNanos());
    }

    private static Response deadlineResponse(long nanos) {
        return Responses.overloaded("handler deadline of " + TimeUnit.NANOSECONDS.toMillis(nanos) + " ms passed");
    }

    /** Checks the handshake (its hooks run here, on the loop) under the route's limit, held by the session. */
    private Dispatch.Started upgrade(Dispatch.Ready ready, WsEndpoint endpoint, Semaphore limit) {
        Request request = ready.request();
        WsHandshake.Outcome outcome;
        try {
            outcome = WsHandshake.check(request, endpoint, webSocketOptions);
        } catch (Throwable failure) {
            outcome = new WsHandshake.Refused(Responses.forException(failure, request));
        }
        if (outcome instanceof WsHandshake.Accepted accepted) {
            var binding = new WsConnection.Binding(endpoint.listener(), request, accepted.subprotocol(), accepted.deflate(),
                    listenerExecutor(ready.route()), ready.route());
            return new Dispatch.Upgrade(accepted, binding, limit == null ? () -> { } : limit::release);
        }
        if (limit != null) limit.release();
        return new Dispatch.Answered(((WsHandshake.Refused) outcome).response(), ready.pattern());
    }

    /**
     * Where a WebSocket route's callbacks run: null for inline on the loop; otherwise an executor
     * that throws {@link RejectedExecutionException} when its pool or limit is full.
     */
    private Executor listenerExecutor(Route route) {
        return switch (executionOf(route)) {
            case EVENT_LOOP -> null;
            case WORKER_POOL -> task -> {
                Runnable release = offLoop.tryAdmitWorker();
                if (release == null) throw new RejectedExecutionException("worker pool is full");
                offLoop.executeOnWorker(task, release);
            };
            case VIRTUAL_THREAD -> offLoop::runOnVirtualThread;
        };
    }

    /** A 503 for {@code reason}, counted: for the transports' own refusals (a full loop task queue, the connection limit, …). */
    public Response refusal(Rejection reason, String text) {
        rejections.accept(reason);
        return Responses.overloaded(text);
    }

    /** Refuses a call before its handler ran: gives back what it holds (the route's limit). */
    private Dispatch.Answered refused(Rejection reason, String text, Dispatch.Ready ready, HandlerCall call) {
        call.settle();
        return new Dispatch.Answered(refusal(reason, text), ready.pattern());
    }

    /** Answers {@code call} with 503 for {@code reason} through its inbox (a run that could not start). */
    private void reject(Rejection reason, String text, HandlerCall call) {
        if (call.isAnswered()) return;
        rejections.accept(reason);
        call.answer(Responses.overloaded(text));
    }

    /**
     * Hands on what the handler answered, compressed when it qualifies; a 503 it chose itself is
     * counted as such (not when its deadline answered first).
     */
    private void answer(HandlerCall call, Request request, Response response) {
        if (response.status() == 503 && !call.isAnswered()) rejections.accept(Rejection.HANDLER);
        call.answer(compression.answer(request, response));
    }

    /**
     * For the blocking transport: runs {@code ready} on the calling thread, waiting for an async
     * handler's answer (or its deadline's).
     */
    public Response respond(Dispatch.Ready ready) {
        CompletableFuture<Response> answer = new CompletableFuture<>();
        if (run(ready, null, (call, response) -> answer.complete(response)) instanceof Dispatch.Answered answered) {
            return answered.response();
        }
        try {
            return answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            rejections.accept(Rejection.SHUTTING_DOWN);
            return Responses.overloaded("server is stopping");
        } catch (ExecutionException e) {
            return Responses.forException(e, ready.request()); // not reached: the inbox is always given a response
        }
    }

    /** Where {@code route} runs now: its own execution or the server's, on virtual threads once offloaded. */
    private Execution executionOf(Route route) {
        Execution execution = route.executionOr(defaultExecution);
        if (execution == Execution.EVENT_LOOP && anyOffloaded && offloaded.contains(route)) return Execution.VIRTUAL_THREAD;
        return execution;
    }

    /** From now on {@code route} runs on virtual threads instead of the event loop; true the first time. */
    public boolean offload(Route route) {
        if (route.executionOr(defaultExecution) != Execution.EVENT_LOOP || !offloaded.add(route)) return false;
        anyOffloaded = true;
        return true;
    }

    public boolean isOffloaded(Route route) {
        return offloaded.contains(route);
    }

    public Execution defaultExecution() {
        return defaultExecution;
    }

    /** The places handlers run off the loop, for their counts. */
    public OffLoop offLoop() {
        return offLoop;
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
            case Route.Async async -> awaitAsync(callAsync(async, request, call), request, call);
        }
    }

    /** Calls an async handler here; a failure to return a stage is a stage failed with it. */
    private static CompletionStage<Response> callAsync(Route.Async async, Request request, HandlerCall call) {
        call.enter();
        try {
            CompletionStage<Response> stage = async.handler().handle(request);
            return stage != null ? stage : CompletableFuture.failedFuture(new IllegalStateException("async handler returned null"));
        } catch (Throwable failure) {
            return CompletableFuture.failedFuture(failure);
        } finally {
            call.leave();
        }
    }

    /** Answers {@code call} with what {@code stage} completes with, on the thread that completes it. */
    private void awaitAsync(CompletionStage<Response> stage, Request request, HandlerCall call) {
        stage.whenComplete((response, failure) -> {
            if (call.isAnswered()) {
                if (response != null && response.isStreamed()) DiscardingSubscriber.discard(response.stream());
            } else {
                answer(call, request, asyncAnswer(response, failure, request));
            }
        });
    }

    private static Response asyncAnswer(Response response, Throwable failure, Request request) {
        if (failure != null) return Responses.forException(failure, request);
        if (response == null) return Responses.forException(new IllegalStateException("async handler completed with null"), request);
        return response;
    }

    @Override
    public void close() {
        offLoop.close();
    }
}
