package keel.http.client;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.Consumer;

/**
 * Reads a streamed body as a careful subscriber does: one item asked for at a time, the next only
 * once the last has arrived. {@link #body} completes with every byte, or with the failure.
 */
final class OneAtATime implements Flow.Subscriber<byte[]> {
    final CompletableFuture<byte[]> body = new CompletableFuture<>();
    private final ByteArrayOutputStream received = new ByteArrayOutputStream();
    private final Runnable beforeEachRequest;
    private final Consumer<byte[]> onEachItem;
    private Flow.Subscription subscription;

    /** {@code beforeEachRequest} runs just before each {@code request(1)}, {@code onEachItem} as each item arrives. */
    OneAtATime(Runnable beforeEachRequest, Consumer<byte[]> onEachItem) {
        this.beforeEachRequest = beforeEachRequest;
        this.onEachItem = onEachItem;
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        beforeEachRequest.run();
        s.request(1);
    }

    @Override
    public void onNext(byte[] item) {
        onEachItem.accept(item);
        received.writeBytes(item);
        beforeEachRequest.run();
        subscription.request(1);
    }

    @Override
    public void onError(Throwable failure) {
        body.completeExceptionally(failure);
    }

    @Override
    public void onComplete() {
        body.complete(received.toByteArray());
    }
}
