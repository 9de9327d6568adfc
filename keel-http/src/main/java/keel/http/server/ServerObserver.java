package keel.http.server;

import keel.core.guard.BlockedLoop;
import keel.core.net.ChannelObserver;
import keel.http.ws.WsObserver;

/**
 * Hears what a running server does, for metrics. Methods run on the thread where the event happens
 * (an event loop, a worker, a virtual thread, the watchdog): they must be cheap and never block.
 * Every method has an empty default, so an observer implements only what it needs.
 */
public interface ServerObserver extends ChannelObserver {
    ServerObserver NONE = new ServerObserver() {
    };

    /** Why a request or connection was answered 503: every 503 the server writes is reported with one. */
    enum Rejection {
        WORKER_POOL_FULL, VIRTUAL_THREAD_LIMIT, ROUTE_LIMIT, CONNECTION_LIMIT, BLOCKING_THREADS_BUSY, SHUTTING_DOWN,
        /** The route's handler answered 503 itself (a gateway without its broker, a health check that is down). */
        HANDLER,
        /** The handler did not answer within its deadline ({@code timeouts.handler-deadline}, or the route's). */
        DEADLINE;

        /** The label value: {@code worker_pool_full}, … */
        public String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * With warm-up on, once before the server starts: run the observer's own hot paths (on throwaway
     * state: nothing real may be recorded), so the first real response does not pay for them.
     */
    default void warmup() {
    }

    /** Once, just before the server opens its port: gauges may read {@code server} from now on. */
    default void onStart(HttpServer server) {
    }

    /**
     * A response left the handler (or the router, for 404/405).
     *
     * @param route the matched route's pattern ({@code /users/{id}}), or null when none matched
     * @param nanos from the request being parsed to the response being produced
     */
    default void onResponse(String method, String route, int status, long nanos) {
    }

    /** A 503 went (or goes) to a client, for {@code reason}. */
    default void onRejected(Rejection reason) {
    }

    /** What hears the server's WebSocket sessions; asked once, as the server starts. */
    default WsObserver webSockets() {
        return WsObserver.NONE;
    }

    /** The watchdog caught a loop stuck; {@code route} is the route it was running, or null. */
    default void onBlockedLoop(BlockedLoop event, String route) {
    }
}
