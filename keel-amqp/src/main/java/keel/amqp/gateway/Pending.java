package keel.amqp.gateway;

import keel.http.Response;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A message admitted by the async publisher, from the request until its outcome. It holds one of
 * the publisher's permits and gives it back exactly once, with the first outcome, which alone is
 * reported to the observer; later ones (a confirm arriving after the timeout answered) are ignored.
 */
final class Pending {
    final Message message;
    final long deadlineNanos;
    final CompletableFuture<Response> response = new CompletableFuture<>();
    private final Semaphore permits;
    private final GatewayObserver observer;
    private final AtomicBoolean finished = new AtomicBoolean();
    /** Set by the return listener before the confirm arrives: the broker could not route the message. */
    volatile String returned;

    Pending(Message message, long deadlineNanos, Semaphore permits, GatewayObserver observer) {
        this.message = message;
        this.deadlineNanos = deadlineNanos;
        this.permits = permits;
        this.observer = observer;
    }

    boolean isExpired(long nowNanos) {
        return nowNanos - deadlineNanos >= 0;
    }

    void finish(Outcome outcome) {
        if (!finished.compareAndSet(false, true)) return;
        permits.release();
        outcome.reportTo(observer); // before the answer: whoever reads the meters after it sees the outcome
        response.complete(outcome.toResponse());
    }

    void confirmed() {
        String reason = returned;
        finish(reason == null ? Outcome.confirmed(message) : Outcome.returned(reason));
    }
}
