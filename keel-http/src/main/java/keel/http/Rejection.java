package keel.http;

/** Why a request or connection was answered 503: every 503 the server writes is reported with one. */
public enum Rejection {
    WORKER_POOL_FULL, VIRTUAL_THREAD_LIMIT, ROUTE_LIMIT, CONNECTION_LIMIT, BLOCKING_THREADS_BUSY, SHUTTING_DOWN,
    /** The connection's event loop had no place left in its task queue for the answer to come back (nio). */
    LOOP_QUEUE_FULL,
    /** The route's handler answered 503 itself (a gateway without its broker, a health check that is down). */
    HANDLER,
    /** The handler did not answer within its deadline ({@code timeouts.handler-deadline}, or the route's). */
    DEADLINE;

    /** The label value: {@code worker_pool_full}, … */
    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
