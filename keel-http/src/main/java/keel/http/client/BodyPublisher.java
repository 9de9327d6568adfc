package keel.http.client;

import keel.core.loop.EventLoop;

import java.util.ArrayDeque;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;

/**
 * A response body as it is read ({@link HttpClient#streamAsync}): a {@link Flow.Publisher} of byte
 * arrays for exactly one subscriber. The connection reads only while the subscriber has demand, so a
 * slow subscriber slows the server down through TCP flow control instead of filling memory: at most
 * one read buffer plus the parts of one read wait here.
 *
 * <p>The subscriber's methods run on the client's event loop and must not block. {@code request}
 * and {@code cancel} may be called from any thread. Cancelling before the end closes the connection.
 */
final class BodyPublisher implements Flow.Publisher<byte[]>, Flow.Subscription {
    private final ClientConnection connection;
    private final EventLoop loop;
    private final ArrayDeque<byte[]> parts = new ArrayDeque<>();
    private Flow.Subscriber<? super byte[]> subscriber;
    private boolean subscribed;
    private long demand;
    private boolean complete;
    private Throwable failure;
    private boolean finished;

    BodyPublisher(ClientConnection connection) {
        this.connection = connection;
        this.loop = connection.loop();
    }

    @Override
    public void subscribe(Flow.Subscriber<? super byte[]> candidate) {
        onLoop(() -> {
            if (subscribed) {
                candidate.onSubscribe(new Flow.Subscription() {
                    public void request(long n) { }
                    public void cancel() { }
                });
                candidate.onError(new IllegalStateException("a response body can be read once"));
                return;
            }
            subscribed = true;
            subscriber = candidate;
            candidate.onSubscribe(this);
            drain();
        });
    }

    @Override
    public void request(long n) {
        onLoop(() -> {
            if (finished) return;
            if (n <= 0) {
                // Reactive Streams §3.9.
                failure = new IllegalArgumentException("request(" + n + "): demand must be positive");
                parts.clear();
                abandonConnection();
                drain();
                return;
            }
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            drain();
            if (parts.isEmpty()) connection.resumeReading();
        });
    }

    @Override
    public void cancel() {
        onLoop(() -> {
            if (finished) return;
            finished = true;
            parts.clear();
            subscriber = null;
            abandonConnection();
        });
    }

    /** A part of the body arrived; loop thread. */
    void push(byte[] bytes) {
        if (finished) return;
        parts.addLast(bytes);
        drain();
        if (demand == 0) connection.pauseReading();
    }

    /** The body ended; loop thread. */
    void complete() {
        complete = true;
        drain();
    }

    /** The body cannot be read to its end; loop thread. */
    void fail(Throwable cause) {
        if (failure == null) failure = cause;
        drain();
    }

    /** A body nobody reads to its end leaves the connection unusable; once the body has ended it is back in the pool. */
    private void abandonConnection() {
        if (!complete) connection.close();
    }

    private void drain() {
        if (finished || subscriber == null) return;
        while (demand > 0 && !parts.isEmpty()) {
            demand--;
            subscriber.onNext(parts.pollFirst());
            if (finished) return;
        }
        if (failure != null) {
            finished = true;
            parts.clear();
            subscriber.onError(failure);
        } else if (complete && parts.isEmpty()) {
            finished = true;
            subscriber.onComplete();
        }
    }

    private void onLoop(Runnable action) {
        if (loop.inEventLoop()) {
            action.run();
            return;
        }
        try {
            loop.execute(action);
        } catch (RejectedExecutionException e) {
            connection.closeFromAnyThread();
        }
    }
}
