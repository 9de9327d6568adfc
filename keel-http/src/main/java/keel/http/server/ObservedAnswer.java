package keel.http.server;

import keel.core.log.Log;
import keel.http.Response;

import java.util.function.Consumer;

/**
 * One answer on its way to the server's observer, with when its request began. On a nio connection it
 * goes through {@link Exchange#answer}, which times it on the connection's loop (the loop then records
 * it into cells of its own, without reading the clock for an answer made elsewhere); on the blocking
 * transport it is timed here, on the thread that answered.
 */
final class ObservedAnswer implements Consumer<Response>, Exchange.Timing {
    private static final Log LOG = Log.of(ObservedAnswer.class);
    private final ServerObserver observer;
    private final Consumer<Response> done;
    private final String method;
    private final String pattern;
    private final long start;
    private final Exchange exchange;

    /**
     * @param done     where the answer goes without an exchange
     * @param pattern  the route's pattern, or null when no route matched
     * @param exchange the nio connection's exchange, or null (the blocking transport)
     */
    ObservedAnswer(ServerObserver observer, Consumer<Response> done, String method, String pattern, long start, Exchange exchange) {
        this.observer = observer;
        this.done = done;
        this.method = method;
        this.pattern = pattern;
        this.start = start;
        this.exchange = exchange;
    }

    @Override
    public void accept(Response response) {
        if (exchange != null) {
            exchange.answer(response, this);
            return;
        }
        answeredAt(response, System.nanoTime());
        done.accept(response);
    }

    @Override
    public void answeredAt(Response response, long nanoTime) {
        report(observer, method, pattern, response.status(), nanoTime - start);
    }

    /** Tells {@code observer} of a response; a failing observer is logged, never costs the response. */
    static void report(ServerObserver observer, String method, String pattern, int status, long nanos) {
        try {
            observer.onResponse(method, pattern, status, nanos);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "response");
        }
    }
}
