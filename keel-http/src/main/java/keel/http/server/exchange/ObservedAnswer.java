package keel.http.server.exchange;

import keel.core.log.Log;

/**
 * Tells the server's observer of an answer: the request's method, the route's pattern (null when no
 * route matched), the status and the time from the request's start to its answer. The protocol that
 * answered times it, on its own thread.
 */
public final class ObservedAnswer {
    private static final Log LOG = Log.of(ObservedAnswer.class);

    private ObservedAnswer() {
    }

    /** Tells {@code observer} of a response; a failing observer is logged, never costs the response. */
    public static void report(ExchangeObserver observer, String method, String pattern, int status, long nanos) {
        try {
            observer.onResponse(method, pattern, status, nanos);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "response");
        }
    }
}
