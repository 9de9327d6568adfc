package keel.http.server.nio;

import keel.core.log.Log;
import keel.core.net.Channel;
import keel.http.Response;
import keel.http.server.exchange.ExchangeObserver;
import keel.http.server.exchange.ResponsePlan;
import keel.http.server.exchange.Wait;

import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;

/**
 * Sends a streamed response body on the nio transport: one chunk per item, pulled one at a time and
 * only while the connection is writable, so a slow client holds at most the high water mark of
 * output. Every subscriber callback hops onto the connection's loop. Each item asked for restarts the
 * stream-stall deadline ({@link Wait#STREAM}): a publisher that goes quiet has its body cut short.
 */
final class ResponseStream implements Flow.Subscriber<byte[]> {
    private static final Log LOG = Log.of(ResponseStream.class);

    private final Http1Protocol exchange;
    private final Channel connection;
    private final Response response;
    private final ResponsePlan plan;
    private final CharSequence requestId;
    private Flow.Subscription subscription;
    private boolean demanded;
    private boolean done;
    private boolean requesting;
    private boolean requestAgain;

    /**
     * {@code plan} streams the body: chunked, or until the connection closes for an HTTP/1.0 client;
     * {@code requestId} (or null) goes back as {@code X-Request-Id}.
     */
    ResponseStream(Http1Protocol exchange, Channel connection, Response response, ResponsePlan plan, CharSequence requestId) {
        this.exchange = exchange;
        this.connection = connection;
        this.response = response;
        this.plan = plan;
        this.requestId = requestId;
    }

    void start() {
        plan.write(connection.out(), response, requestId, connection.loop().lastNanoTime());
        connection.flush();
        response.stream().subscribe(this);
        if (!done && subscription == null) exchange.awaitingItem(true); // a publisher that never subscribes stalls too
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        onLoop(s, () -> {
            if (done || subscription != null) {
                s.cancel();
                return;
            }
            subscription = s;
            resume();
        });
    }

    @Override
    public void onNext(byte[] item) {
        onLoop(null, () -> {
            if (done) return;
            demanded = false;
            plan.writeItem(connection.out(), item);
            connection.flush();
            resume();
        });
    }

    @Override
    public void onError(Throwable failure) {
        onLoop(null, () -> {
            if (done) return;
            done = true;
            exchange.dropped(ExchangeObserver.Cut.STREAM_FAILED);
            LOG.warn("response_stream_failed", "connection", connection, "cause", failure);
            connection.close(); // a truncated body, never a false end
        });
    }

    @Override
    public void onComplete() {
        onLoop(null, () -> {
            if (done) return;
            done = true;
            exchange.awaitingItem(false);
            plan.writeEnd(connection.out());
            exchange.finishExchange(plan.close());
        });
    }

    /** Requests the next item if none is outstanding and the connection can take more; loop thread. */
    void resume() {
        if (requesting) {
            requestAgain = true; // a synchronous publisher: loop here instead of recursing
            return;
        }
        requesting = true;
        boolean asked = false;
        try {
            do {
                requestAgain = false;
                if (!done && subscription != null && !demanded && connection.isWritable()) {
                    demanded = true;
                    asked = true;
                    subscription.request(1);
                }
            } while (requestAgain);
        } finally {
            requesting = false;
        }
        if (done || subscription == null) return; // before onSubscribe, the deadline armed at the start holds
        if (asked && demanded) exchange.awaitingItem(true);
        else if (!demanded) exchange.awaitingItem(false);
    }

    void cancel() {
        done = true;
        if (subscription != null) subscription.cancel();
    }

    /**
     * Runs a subscriber signal on the connection's loop. If the loop refuses it (overloaded or
     * stopped), the body is cut short, counted: the connection is closed from here (the loop's sweep
     * then cleans it up) and the subscription, when this signal carries it, is cancelled:
     * {@code subscription} itself is loop-only and cannot be read from this thread.
     */
    private void onLoop(Flow.Subscription carried, Runnable action) {
        if (connection.loop().inEventLoop()) {
            action.run();
            return;
        }
        try {
            connection.loop().execute(action);
        } catch (RejectedExecutionException e) {
            exchange.dropped(connection.loop().isStopping() ? ExchangeObserver.Cut.LOOP_STOPPED : ExchangeObserver.Cut.LOOP_QUEUE_FULL);
            LOG.warn("response_stream_dropped", "connection", connection, "cause", e.getMessage());
            if (carried != null) carried.cancel();
            connection.closeFromAnyThread();
        }
    }
}
