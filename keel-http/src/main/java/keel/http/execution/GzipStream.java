package keel.http.execution;

import keel.http.codec.GzipEncoder;

import java.util.concurrent.Flow;

/**
 * A streamed body gzip-encoded item by item: each item the source publishes is compressed and
 * flushed ({@link GzipEncoder#encode}) on the thread that publishes it, so the client can decode it
 * before the next one exists. When the source completes, one more item carries the end of the gzip
 * member (its trailer), sent on the next demand.
 *
 * <p>Demand passes through one for one: each source item becomes one item here, and the trailer uses
 * a demand the source left unmet by completing. Nothing is buffered besides the encoder's state,
 * created with the first item, so a body nobody reads (HEAD) costs no encoder.
 */
final class GzipStream implements Flow.Publisher<byte[]> {
    private final Flow.Publisher<byte[]> source;
    private final int level;

    GzipStream(Flow.Publisher<byte[]> source, int level) {
        this.source = source;
        this.level = level;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super byte[]> subscriber) {
        source.subscribe(new Relay(subscriber));
    }

    /**
     * Source signals arrive one at a time (Reactive Streams §1.3), requests and cancels from the
     * subscriber's side at any time: the encoder and the counts are guarded by the relay's lock, and
     * whoever ends the stream (the source's completion or a later request) sends the trailer once.
     */
    private final class Relay implements Flow.Subscriber<byte[]>, Flow.Subscription {
        private final Flow.Subscriber<? super byte[]> downstream;
        private Flow.Subscription upstream;
        private GzipEncoder encoder;
        /** Items requested downstream and not delivered yet. */
        private long unmet;
        /** The source completed; the trailer waits for demand. */
        private boolean completed;
        /** The trailer went, or the stream failed or was cancelled: nothing more is sent. */
        private boolean ended;

        Relay(Flow.Subscriber<? super byte[]> downstream) {
            this.downstream = downstream;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            upstream = subscription;
            downstream.onSubscribe(this);
        }

        @Override
        public void onNext(byte[] item) {
            byte[] encoded;
            RuntimeException failure = null;
            synchronized (this) {
                if (ended) return;
                unmet--;
                try {
                    encoded = encoder().encode(item);
                } catch (RuntimeException e) {
                    end();
                    encoded = null;
                    failure = e;
                }
            }
            if (encoded != null) {
                downstream.onNext(encoded);
            } else {
                upstream.cancel();
                downstream.onError(failure); // a truncated body, never a false end
            }
        }

        @Override
        public void onError(Throwable failure) {
            synchronized (this) {
                if (ended) return;
                end();
            }
            downstream.onError(failure);
        }

        @Override
        public void onComplete() {
            byte[] trailer;
            synchronized (this) {
                if (ended) return;
                completed = true;
                trailer = unmet > 0 ? finish() : null;
            }
            if (trailer != null) sendTrailer(trailer);
        }

        @Override
        public void request(long n) {
            byte[] trailer = null;
            synchronized (this) {
                if (ended) return;
                if (completed) trailer = finish();
                else if (n > 0) unmet = unmet + n < 0 ? Long.MAX_VALUE : unmet + n;
            }
            if (trailer != null) sendTrailer(trailer);
            else upstream.request(n); // n <= 0 too: the source signals the error (Reactive Streams §3.9)
        }

        @Override
        public void cancel() {
            synchronized (this) {
                if (ended) return;
                end();
            }
            upstream.cancel();
        }

        private void sendTrailer(byte[] trailer) {
            downstream.onNext(trailer);
            downstream.onComplete();
        }

        /** Under the lock: the last bytes of the member, and the stream ends. */
        private byte[] finish() {
            ended = true;
            byte[] trailer = encoder().finish();
            encoder = null;
            return trailer;
        }

        /** Under the lock: ends without a trailer and releases the encoder. */
        private void end() {
            ended = true;
            if (encoder != null) encoder.close();
            encoder = null;
        }

        private GzipEncoder encoder() {
            if (encoder == null) encoder = new GzipEncoder(level);
            return encoder;
        }
    }
}
