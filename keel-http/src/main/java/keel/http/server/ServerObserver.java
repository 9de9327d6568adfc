package keel.http.server;

import keel.core.guard.BlockedLoop;

/**
 * Hears what a running server does, for metrics. Methods run on the thread where the event happens
 * (an event loop, a worker, a virtual thread, the watchdog): they must be cheap and never block.
 * Every method has an empty default, so an observer implements only what it needs.
 */
public interface ServerObserver {
    ServerObserver NONE = new ServerObserver() {
    };

    /** Why a request or connection was refused with 503. */
    enum Rejection {
        WORKER_POOL_FULL, VIRTUAL_THREAD_LIMIT, ROUTE_LIMIT, CONNECTION_LIMIT, BLOCKING_THREADS_BUSY, SHUTTING_DOWN;

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

    default void onRejected(Rejection reason) {
    }

    default void onBytesRead(long bytes) {
    }

    default void onBytesWritten(long bytes) {
    }

    /** The watchdog caught a loop stuck; {@code route} is the route it was running, or null. */
    default void onBlockedLoop(BlockedLoop event, String route) {
    }

    /**
     * A TLS connection ended before its handshake completed (the connection is closed). {@code reason}
     * is one of {@link keel.core.tls.HandshakeFailures#REASONS}: {@code timeout}, {@code plain_http},
     * {@code protocol_version}, {@code certificate}, {@code renegotiation} or {@code other}.
     */
    default void onTlsHandshakeFailed(String reason) {
    }
}
