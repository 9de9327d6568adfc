package keel.http.server;

import keel.http.HttpStatusException;
import keel.http.Request;
import keel.http.Response;
import keel.http.router.Route;
import keel.http.router.RouteMatch;
import keel.http.router.RouteTable;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Routes a request and runs its handler under the route's {@link Execution}. The answer goes to a
 * callback exactly once, on whatever thread produced it; the transport moves it to the connection's
 * own thread. Every pool is bounded and refuses at once with 503 when full.
 */
final class Dispatcher implements AutoCloseable {
    private final RouteTable routes;
    private final Execution defaultExecution;
    private final ThreadPoolExecutor workers;
    private final Semaphore virtualPermits;
    private final ThreadFactory virtualThreads = Thread.ofVirtual().name("keel-vt-", 0).factory();

    Dispatcher(ServerOptions options, RouteTable routes) {
        this.routes = routes;
        this.defaultExecution = options.execution();
        int threads = options.pools().workerThreads();
        this.workers = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(options.pools().workerQueue()), platformThreads("keel-worker-"),
                new ThreadPoolExecutor.AbortPolicy());
        this.workers.allowCoreThreadTimeOut(true);
        this.virtualPermits = new Semaphore(options.pools().virtualThreadLimit());
    }

    RouteTable routes() {
        return routes;
    }

    /** Routes {@code request} and answers through {@code done}, possibly before this method returns. */
    void dispatch(Request request, Consumer<Response> done) {
        resolve(request, done, false);
    }

    /** For the blocking transport: routes and runs the handler on the calling thread, waiting for an async one. */
    Response respond(Request request) {
        CompletableFuture<Response> answer = new CompletableFuture<>();
        resolve(request, answer::complete, true);
        try {
            return answer.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Responses.overloaded("server is stopping");
        } catch (ExecutionException e) {
            return Responses.forException(e, request); // not reached: invoke always completes normally
        }
    }

    private void resolve(Request request, Consumer<Response> done, boolean onCallingThread) {
        RouteMatch match;
        try {
            match = routes.match(request.method(), request.path());
        } catch (HttpStatusException badPath) {
            done.accept(Responses.forException(badPath, request));
            return;
        }
        switch (match) {
            case RouteMatch.NotFound notFound -> done.accept(Responses.notFound());
            case RouteMatch.MethodNotAllowed notAllowed -> done.accept(Responses.methodNotAllowed(notAllowed.allowed()));
            case RouteMatch.Found found -> {
                Request routed = request.withPathParams(found.pathParams());
                if (onCallingThread) invoke(found.route(), routed, done);
                else run(found.route(), routed, done);
            }
        }
    }

    private void run(Route route, Request request, Consumer<Response> done) {
        switch (route.executionOr(defaultExecution)) {
            case EVENT_LOOP -> invoke(route, request, done);
            case WORKER_POOL -> {
                try {
                    workers.execute(() -> invoke(route, request, done));
                } catch (RejectedExecutionException full) {
                    done.accept(Responses.overloaded("worker pool is full"));
                }
            }
            case VIRTUAL_THREAD -> {
                if (!virtualPermits.tryAcquire()) {
                    done.accept(Responses.overloaded("virtual-thread concurrency limit reached"));
                    return;
                }
                Consumer<Response> releasing = response -> {
                    virtualPermits.release();
                    done.accept(response);
                };
                virtualThreads.newThread(() -> invoke(route, request, releasing)).start();
            }
        }
    }

    /** Calls the handler here; failures of any kind become a response, so {@code done} always runs once. */
    private static void invoke(Route route, Request request, Consumer<Response> done) {
        switch (route.endpoint()) {
            case Route.Sync sync -> {
                Response response;
                try {
                    response = sync.handler().handle(request);
                    if (response == null) throw new IllegalStateException("handler returned null");
                } catch (Throwable failure) {
                    response = Responses.forException(failure, request);
                }
                done.accept(response);
            }
            case Route.Async async -> {
                CompletionStage<Response> stage;
                try {
                    stage = async.handler().handle(request);
                    if (stage == null) throw new IllegalStateException("async handler returned null");
                } catch (Throwable failure) {
                    done.accept(Responses.forException(failure, request));
                    return;
                }
                stage.whenComplete((response, failure) -> {
                    if (failure != null) done.accept(Responses.forException(failure, request));
                    else if (response == null) done.accept(Responses.forException(new IllegalStateException("async handler completed with null"), request));
                    else done.accept(response);
                });
            }
        }
    }

    int workerActive() {
        return workers.getActiveCount();
    }

    int workerQueued() {
        return workers.getQueue().size();
    }

    @Override
    public void close() {
        workers.shutdown();
    }

    static ThreadFactory platformThreads(String prefix) {
        AtomicInteger counter = new AtomicInteger();
        return task -> Thread.ofPlatform().name(prefix + counter.getAndIncrement()).daemon(true).unstarted(task);
    }
}
