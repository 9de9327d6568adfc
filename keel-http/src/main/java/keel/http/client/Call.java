package keel.http.client;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.Timer;
import keel.http.Response;
import keel.http.codec.ResponseEvent;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One {@link HttpClient} call on one event loop: its attempts, the retries between them (on the loop's
 * timers), redirects, and the result. Confined to the loop.
 *
 * <p>Two kinds of retry. A request that failed on a <em>reused</em> connection before any response byte
 * arrived met a connection the server had closed while it sat in the pool; an idempotent request is
 * sent once more at once, and the user never sees that failure. Then the {@link RetryPolicy} decides
 * about everything else.
 */
final class Call {
    private static final Log LOG = Log.of(Call.class);
    private static final int INITIAL_BODY_CAPACITY = 16 * 1024;

    private final LoopPools home;
    private final EventLoop loop;
    private final boolean streaming;
    private final RetryPolicy retry;
    private final Duration timeout;
    private final CompletableFuture<Response> result;
    private ClientRequest request;
    private int retries;
    private boolean staleRetried;
    private int redirects;

    Call(LoopPools home, ClientRequest request, boolean streaming, CompletableFuture<Response> result) {
        this.home = home;
        this.loop = home.loop();
        this.request = request;
        this.streaming = streaming;
        this.result = result;
        this.retry = request.retry() != null ? request.retry() : home.options().retry();
        this.timeout = request.timeout() != null ? request.timeout() : home.options().requestTimeout();
    }

    void start() {
        new Attempt().start();
    }

    /** The retry's wait is over: try again. */
    void retryNow() {
        new Attempt().start();
    }

    /** The client closed while this call waited to retry. */
    void abandon(Throwable failure) {
        result.completeExceptionally(failure);
    }

    /** What one attempt ended with: a response (its body read, or streaming), or a failure. */
    private void onAttemptEnded(Response response, Throwable failure, boolean beforeResponse, boolean reused) {
        if (result.isDone()) return;
        if (failure != null && reused && beforeResponse && isStaleConnection(failure) && request.isIdempotent() && !staleRetried) {
            staleRetried = true;
            LOG.debug("stale_connection_retried", "request", request, "cause", failure.getMessage());
            new Attempt().start();
            return;
        }
        int status = response == null ? 0 : response.status();
        boolean retryable = !(streaming && response != null); // a streamed body already went to the caller
        if (retryable && retry.allows(retries + 1, request.isIdempotent(), failure, status)) {
            retries++;
            LOG.debug("retry_scheduled", "request", request, "retry", retries, "status", status, "cause", failure);
            home.waitForRetry(this, retry.delayNanos(retries));
            return;
        }
        if (response != null && followsRedirect(response)) return;
        if (failure != null) result.completeExceptionally(failure);
        else result.complete(response);
    }

    /** Timeouts and a full pool are answers in themselves; a closed or reset connection is what a stale one looks like. */
    private static boolean isStaleConnection(Throwable failure) {
        return failure instanceof java.io.IOException && !(failure instanceof ClientTimeoutException)
                && !(failure instanceof PoolFullException);
    }

    /** RFC 9110 §15.4: follows 301, 302, 303, 307 and 308 for GET and HEAD, up to {@code max-redirects}. */
    private boolean followsRedirect(Response response) {
        int status = response.status();
        boolean redirect = status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
        String location = response.headers().get("Location");
        if (!redirect || location == null || redirects >= home.options().maxRedirects() || streaming
                || !(request.method().equals("GET") || request.method().equals("HEAD"))) {
            return false;
        }
        URI next = request.uri().resolve(location);
        if (!"http".equalsIgnoreCase(next.getScheme())) return false;
        redirects++;
        request = new ClientRequest(request.method(), next, request.headers(), request.body(), request.timeout(),
                request.retry(), request.idempotent());
        new Attempt().start();
        return true;
    }

    /**
     * One try: a connection from the pool, the request written, the response read. Its timers (the
     * whole attempt, and the wait for the first response byte) run on the loop.
     */
    final class Attempt {
        private final HostPool pool = home.pool(request.uri().getHost(), request.port());
        private Timer deadline;
        private Timer responseTimer;
        private ClientConnection connection;
        private boolean reused;
        private boolean ended;
        private ResponseEvent.Head head;
        private byte[] body;
        private int bodyLength;
        private BodyPublisher publisher;

        void start() {
            deadline = loop.schedule(timeout.toNanos(), TimeUnit.NANOSECONDS,
                    () -> onTimeout(ClientTimeoutException.Kind.REQUEST, timeout));
            pool.acquire(this);
        }

        ClientRequest request() {
            return request;
        }

        boolean isHead() {
            return request.method().equals("HEAD");
        }

        boolean isDone() {
            return ended;
        }

        boolean keepAlive() {
            return head != null && head.keepAlive();
        }

        void onConnection(ClientConnection connection, boolean reused) {
            if (ended) {
                pool.release(connection);
                return;
            }
            this.connection = connection;
            this.reused = reused;
            connection.exchange(this);
        }

        void onAcquireFailed(Throwable failure) {
            end(null, failure, true);
        }

        void onRequestWritten() {
            Duration responseTimeout = home.options().responseTimeout();
            if (responseTimer != null || head != null || responseTimeout.isZero()) return;
            responseTimer = loop.schedule(responseTimeout.toNanos(), TimeUnit.NANOSECONDS,
                    () -> onTimeout(ClientTimeoutException.Kind.RESPONSE, responseTimeout));
        }

        void onHead(ResponseEvent.Head head, ClientConnection connection) {
            this.head = head;
            if (responseTimer != null) responseTimer.cancel();
            if (streaming) {
                publisher = new BodyPublisher(connection);
                deliver(Response.of(head.status(), head.headers(), publisher), null, false);
            } else if (head.bodyLength() > home.options().maxResponseBodySize()) {
                connection.fail(tooLarge());
            } else {
                long expected = head.bodyLength() >= 0 ? head.bodyLength() : INITIAL_BODY_CAPACITY;
                body = new byte[(int) Math.min(expected, INITIAL_BODY_CAPACITY)];
            }
        }

        void onBody(byte[] bytes) {
            if (publisher != null) {
                publisher.push(bytes);
                return;
            }
            long needed = (long) bodyLength + bytes.length;
            if (needed > home.options().maxResponseBodySize()) {
                connection.fail(tooLarge());
                return;
            }
            if (needed > body.length) body = Arrays.copyOf(body, (int) Math.min(Math.max(needed, body.length * 2L), home.options().maxResponseBodySize()));
            System.arraycopy(bytes, 0, body, bodyLength, bytes.length);
            bodyLength += bytes.length;
        }

        void onEnd() {
            if (publisher != null) {
                publisher.complete();
                stopTimers();
                ended = true;
                return;
            }
            byte[] bytes = bodyLength == body.length ? body : Arrays.copyOf(body, bodyLength);
            end(Response.of(head.status(), head.headers(), bytes), null, false);
        }

        void onFailed(Throwable failure, boolean beforeResponse) {
            if (publisher != null) {
                publisher.fail(failure);
                stopTimers();
                ended = true;
                return;
            }
            end(null, failure, beforeResponse);
        }

        private void onTimeout(ClientTimeoutException.Kind kind, Duration after) {
            ClientTimeoutException failure = new ClientTimeoutException(kind, after, request.toString());
            if (connection != null) {
                connection.fail(failure); // reports back through onFailed
            } else {
                pool.cancel(this);
                end(null, failure, true);
            }
        }

        private HttpClientException tooLarge() {
            return new HttpClientException("response body larger than " + home.options().maxResponseBodySize()
                    + " bytes (max-response-body-size): " + request);
        }

        /** A streamed response is handed over at its head; the attempt lives on until its body ends. */
        private void deliver(Response response, Throwable failure, boolean beforeResponse) {
            onAttemptEnded(response, failure, beforeResponse, reused);
        }

        private void end(Response response, Throwable failure, boolean beforeResponse) {
            if (ended) return;
            ended = true;
            stopTimers();
            deliver(response, failure, beforeResponse);
        }

        private void stopTimers() {
            if (deadline != null) deadline.cancel();
            if (responseTimer != null) responseTimer.cancel();
        }
    }
}
