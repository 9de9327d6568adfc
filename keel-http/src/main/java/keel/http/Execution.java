package keel.http;

/**
 * Where a handler body runs. Set per server, overridable per route; the response is always written
 * by the connection's own loop whichever execution produced it.
 */
public enum Execution {
    /** On the connection's event-loop thread: the cheapest, and the handler must never block. */
    EVENT_LOOP,
    /** On a bounded platform-thread pool with a bounded queue; full ⇒ 503 with {@code Retry-After}. */
    WORKER_POOL,
    /** On a new virtual thread per request, bounded by a concurrency limit; full ⇒ 503. */
    VIRTUAL_THREAD;

    /** The configuration word: {@code event-loop}, {@code worker-pool}, {@code virtual-thread}. */
    public String word() {
        return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}
