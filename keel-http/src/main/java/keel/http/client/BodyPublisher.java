package keel.http.client;

import keel.core.loop.EventLoop;

import keel.http.codec.GzipDecoder;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.zip.ZipException;

/**
 * A response body as it is read ({@link HttpClient#streamAsync}): a {@link Flow.Publisher} of byte
 * arrays for exactly one subscriber. The connection reads only while the subscriber has demand, so a
 * slow subscriber slows the server down through TCP flow control instead of filling memory: at most
 * one read buffer plus the parts of one read wait here.
 *
 * <p>A gzip body the client decodes is decoded here, on demand: the parts wait as they arrived, and
 * each item delivered is at most {@value #PIECE} decoded bytes, so a body that inflates a
 * thousandfold costs no more memory than one that does not; it only takes longer to read.
 *
 * <p>The subscriber's methods run on the client's event loop and must not block. {@code request}
 * and {@code cancel} may be called from any thread. Cancelling before the end closes the connection.
 */
final class BodyPublisher implements Flow.Publisher<byte[]>, Flow.Subscription {
    private static final int PIECE = 16 * 1024;

    private final ClientConnection connection;
    private final EventLoop loop;
    private final ArrayDeque<byte[]> parts = new ArrayDeque<>();
    /** Decodes a gzip body, or null: the parts go out as they arrived. */
    private final GzipDecoder gzip;
    /** True once the decoder gave all it could from the parts that arrived (always true without one). */
    private boolean decoderDrained = true;
    /** Where the decoder writes the next piece. */
    private byte[] piece;
    private Flow.Subscriber<? super byte[]> subscriber;
    private boolean subscribed;
    private long demand;
    private boolean complete;
    private Throwable failure;
    private boolean finished;

    /** {@code gzip}: decode the body, which arrives gzip-encoded. */
    BodyPublisher(ClientConnection connection, boolean gzip) {
        this.connection = connection;
        this.loop = connection.loop();
        this.gzip = gzip ? new GzipDecoder() : null;
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
                abandonConnection();
                drain();
                return;
            }
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            drain();
            if (parts.isEmpty() && decoderDrained) connection.resumeReading();
        });
    }

    @Override
    public void cancel() {
        onLoop(() -> {
            if (finished) return;
            finish();
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
        while (demand > 0 && failure == null) {
            byte[] next = nextItem();
            if (next == null) break;
            demand--;
            subscriber.onNext(next);
            if (finished) return;
        }
        if (finished) return; // a decoding failure already ended the body (it fails the connection, which reports back here)
        if (failure == null && complete && parts.isEmpty() && decoderDrained && gzip != null && !gzip.isComplete()) {
            failure = new HttpClientException("gzip response body cut short");
        }
        if (failure != null) {
            finish();
            subscriber.onError(failure);
        } else if (complete && parts.isEmpty() && decoderDrained) {
            finish();
            subscriber.onComplete();
        }
    }

    /** The next item to deliver: a part as it arrived, or the next piece of the decoded body; null when none is ready. */
    private byte[] nextItem() {
        if (gzip == null) return parts.pollFirst();
        if (piece == null) piece = new byte[PIECE];
        try {
            while (true) {
                int n = gzip.read(piece, 0, PIECE);
                if (n > 0) {
                    decoderDrained = false;
                    if (n < PIECE) return Arrays.copyOf(piece, n);
                    byte[] full = piece;
                    piece = null; // handed over whole: the next piece gets a new array
                    return full;
                }
                byte[] part = parts.pollFirst();
                if (part == null) {
                    decoderDrained = true;
                    return null;
                }
                gzip.feed(part, 0, part.length);
            }
        } catch (ZipException e) {
            failure = new HttpClientException("invalid gzip response body: " + e.getMessage(), e);
            abandonConnection();
            return null;
        }
    }

    /** Nothing more goes to the subscriber: the parts and the decoder's memory are released. */
    private void finish() {
        finished = true;
        parts.clear();
        if (gzip != null) gzip.close();
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
