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
        boolean queued = onLoop(() -> {
            if (subscribed) {
                refuse(candidate, new IllegalStateException("a response body can be read once"));
                return;
            }
            subscribed = true;
            subscriber = candidate;
            candidate.onSubscribe(this);
            drain();
        });
        if (!queued) refuse(candidate, new HttpClientException("event loop " + loop.name() + " stopped"));
    }

    /** Reactive Streams §1.9: even a refused subscriber gets onSubscribe before onError. */
    private static void refuse(Flow.Subscriber<? super byte[]> subscriber, Throwable why) {
        subscriber.onSubscribe(new Flow.Subscription() {
            public void request(long n) { }
            public void cancel() { }
        });
        subscriber.onError(why);
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

    /**
     * A body nobody reads to its end leaves the connection unusable: it fails (closing it and ending the
     * call's timers). Once the body has ended the connection is back in the pool and left alone.
     */
    private void abandonConnection() {
        if (!complete) connection.fail(new HttpClientException("response body cancelled by its subscriber"));
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

    /** Runs {@code action} on the loop; false (and the socket closed) when the loop has stopped. */
    private boolean onLoop(Runnable action) {
        if (loop.inEventLoop()) {
            action.run();
            return true;
        }
        try {
            loop.execute(action);
            return true;
        } catch (RejectedExecutionException e) {
            connection.closeFromAnyThread();
            return false;
        }
    }
}
