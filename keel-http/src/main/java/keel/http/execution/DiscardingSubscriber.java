package keel.http.execution;

import java.util.concurrent.Flow;

/**
 * Subscribes to a response stream whose body is not sent (HEAD, 204, 304) and cancels at once, so
 * the producer learns that nobody will read it instead of waiting for a subscriber forever.
 */
public final class DiscardingSubscriber implements Flow.Subscriber<byte[]> {
    public static void discard(Flow.Publisher<byte[]> stream) {
        stream.subscribe(new DiscardingSubscriber());
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.cancel();
    }

    @Override
    public void onNext(byte[] item) {
    }

    @Override
    public void onError(Throwable failure) {
    }

    @Override
    public void onComplete() {
    }
}
