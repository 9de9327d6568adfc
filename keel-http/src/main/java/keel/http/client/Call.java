package keel.http.client;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.loop.Timer;
import keel.http.Headers;
import keel.http.Response;
import keel.http.codec.GzipDecoder;
import keel.http.codec.ResponseEvent;

import java.net.URI;
import java.time.Duration;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipException;

/**
 * One {@link HttpClient} call on one event loop: its attempts, the retries between them (on the loop's
 * timers), redirects, its deadline ({@code request-timeout}, for the whole call), and the result.
 * Confined to the loop.
 *
 * <p>Two kinds of retry. A request that failed on a <em>reused</em> connection before any response byte
 * arrived met a connection the server had closed while it sat in the pool; an idempotent request is
 * sent once more at once, and the user never sees that failure. Then the {@link RetryPolicy} decides
 * about everything else.
 *
 * <p>When the client has an observer, the call's end is reported to the host of its last attempt
 * with its {@link ClientObserver.Outcome} and time, and each retry before it.
 */
final class Call {
    private static final Log LOG = Log.of(Call.class);

    private final LoopPools home;
    private final EventLoop loop;
    private final boolean streaming;
    private final RetryPolicy retry;
    private final Duration timeout;
    private final CompletableFuture<Response> result;
    private final boolean observed;
    /** When the caller made the call; taken only when someone observes. */
    private final long startNanos;
    private ClientRequest request;
    private Timer deadline;
    private Attempt current;
    private boolean timedOut;
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
        this.observed = home.options().observer() != ClientObserver.NONE;
        this.startNanos = observed ? System.nanoTime() : 0;
    }

    /** Starts the call on its loop; whatever goes wrong here fails the call instead of the loop's task. */
    void start() {
        try {
            deadline = loop.schedule(timeout.toNanos(), TimeUnit.NANOSECONDS, this::onDeadline);
            attempt();
        } catch (RuntimeException e) {
            finish(null, e);
        }
    }

    /** The retry's wait is over: try again. */
    void attempt() {
        current = new Attempt();
        current.pool.acquire(current);
    }

    /** The call's whole time ran out: the attempt in progress ends, and so does a retry's wait. */
    private void onDeadline() {
        timedOut = true;
        ClientTimeoutException failure = new ClientTimeoutException(ClientTimeoutException.Kind.REQUEST, timeout, request.toString());
        if (current != null && !current.isDone()) current.onTimeout(failure);
        else if (home.cancelRetry(this)) finish(null, failure);
    }

    /** The client closed while this call waited to retry. */
    void abandon(Throwable failure) {
        finish(null, failure);
    }

    /** What one attempt ended with: a response (its body read, or streaming), or a failure. */
    private void onAttemptEnded(Response response, Throwable failure, boolean beforeResponse, boolean reused) {
        if (result.isDone()) return;
        try {
            // A stopping loop runs no more timers or I/O: nothing can be tried again on it.
            boolean canContinue = !timedOut && !loop.isStopping();
            // A closed or reset connection is what a stale pooled one looks like; a timeout or an invalid answer is not.
            if (canContinue && reused && beforeResponse && failure instanceof ConnectionFailedException
                    && request.isIdempotent() && !staleRetried) {
                staleRetried = true;
                LOG.debug("stale_connection_retried", "request", request, "cause", failure.getMessage());
                retried(ClientObserver.Retry.STALE_CONNECTION);
                attempt();
                return;
            }
            int status = response == null ? 0 : response.status();
            boolean streamedAlready = streaming && response != null; // its body already went to the caller
            if (canContinue && !streamedAlready && retry.allows(retries + 1, request.isIdempotent(), failure, status)) {
                retries++;
                LOG.debug("retry_scheduled", "request", request, "retry", retries, "status", status, "cause", failure);
                retried(ClientObserver.Retry.POLICY);
                home.waitForRetry(this, retry.delayNanos(retries));
                return;
            }
            if (canContinue && response != null && followsRedirect(response)) return;
            finish(response, failure);
        } catch (RuntimeException e) {
            finish(null, e);
        }
    }

    private void finish(Response response, Throwable failure) {
        // A streamed body is still arriving: the deadline keeps bounding it until it ends.
        if (deadline != null && !(streaming && response != null)) deadline.cancel();
        if (observed && !result.isDone()) report(failure);
        if (failure != null) result.completeExceptionally(failure);
        else result.complete(response);
    }

    private void retried(ClientObserver.Retry reason) {
        try {
            current.pool.observer().onRetry(reason);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "retry");
        }
    }

    /** The call's end, to the host its last attempt went to; a failing observer never fails the call. */
    private void report(Throwable failure) {
        try {
            ClientObserver.Host host = current != null ? current.pool.observer()
                    : home.options().observer().host(HostPool.name(request.uri().getHost(), request.port()));
            host.onCall(outcome(failure), System.nanoTime() - startNanos);
        } catch (RuntimeException e) {
            LOG.warn("observer_failed", e, "event", "call");
        }
    }

    private ClientObserver.Outcome outcome(Throwable failure) {
        if (failure == null) return ClientObserver.Outcome.OK;
        if (failure instanceof ClientTimeoutException) return ClientObserver.Outcome.TIMEOUT;
        if (failure instanceof PoolFullException) return ClientObserver.Outcome.POOL_FULL;
        if (current != null && current.connectFailed) return ClientObserver.Outcome.CONNECT_FAILED;
        return ClientObserver.Outcome.FAILED;
    }

    /**
     * RFC 9110 §15.4: follows 301, 302, 303, 307 and 308 for GET and HEAD, up to {@code max-redirects}.
     * A {@code Location} that is not a valid http(s) URI, or that leaves https for http, is not followed:
     * the caller gets the 3xx.
     */
    private boolean followsRedirect(Response response) {
        int status = response.status();
        boolean redirect = status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
        String location = response.headers().get("Location");
        if (!redirect || location == null || redirects >= home.options().maxRedirects() || streaming
                || !(request.method().equals("GET") || request.method().equals("HEAD"))) {
            return false;
        }
        ClientRequest next;
        try {
            URI uri = request.uri().resolve(location);
            // Credentials meant for one host are not sent to the host a redirect points at.
            Headers headers = request.uri().getHost().equalsIgnoreCase(uri.getHost()) ? request.headers()
                    : request.headers().without("Authorization").without("Cookie");
            // Refuses a URI that is not http(s) or has no host.
            next = new ClientRequest(request.method(), uri, headers, request.body(), request.timeout(), request.retry(),
                    request.idempotent());
        } catch (IllegalArgumentException e) {
            return false;
        }
        if (request.isSecure() && !next.isSecure()) return false; // no downgrade to clear text
        redirects++;
        request = next;
        attempt();
        return true;
    }

    /**
     * One try: a connection from the pool, the request written, the response read, with a timer for
     * the response's first byte.
     */
    final class Attempt {
        private final HostPool pool = home.pool(request.isSecure(), request.uri().getHost(), request.port());
        private Timer responseTimer;
        private ClientConnection connection;
        private boolean reused;
        private boolean ended;
        /** No connection could be made for this attempt (resolve, connect or TLS handshake failed). */
        private boolean connectFailed;
        private ResponseEvent.Head head;
        /** The response's fields as the caller sees them: without the content coding the client decoded. */
        private Headers headers;
        private WholeBody body;
        private BodyPublisher publisher;

        ClientRequest request() {
            return request;
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

        /** The host did not resolve, or no socket could be opened to it. */
        void onConnectFailed(Throwable failure) {
            connectFailed = true;
            end(null, failure, true);
        }

        void onRequestWritten() {
            Duration responseTimeout = home.options().responseTimeout();
            if (responseTimer != null || head != null || ended || responseTimeout.isZero()) return;
            responseTimer = loop.schedule(responseTimeout.toNanos(), TimeUnit.NANOSECONDS,
                    () -> onTimeout(new ClientTimeoutException(ClientTimeoutException.Kind.RESPONSE, responseTimeout, request.toString())));
        }

        void onHead(ResponseEvent.Head head, ClientConnection connection) {
            this.head = head;
            if (responseTimer != null) responseTimer.cancel();
            boolean gzip = decodesGzip(head);
            headers = gzip ? head.headers().without("Content-Encoding").without("Content-Length") : head.headers();
            if (head.status() == 101) {
                // The client never asks to switch protocols: what follows is not HTTP.
                connection.fail(new HttpClientException("unexpected 101 Switching Protocols from " + pool.name()));
            } else if (streaming) {
                publisher = new BodyPublisher(connection, gzip);
                onAttemptEnded(Response.of(head.status(), headers, publisher), null, false, reused);
            } else if (head.bodyLength() > home.options().maxResponseBodySize()) {
                connection.fail(tooLarge());
            } else {
                body = new WholeBody(home.options().maxResponseBodySize(), head.bodyLength(), gzip);
            }
        }

        /**
         * A gzip body the client asked for itself ({@link ClientRequest#asksForGzip}) is decoded; a
         * request with its own {@code Accept-Encoding}, or any other coding, gets the body as sent.
         */
        private boolean decodesGzip(ResponseEvent.Head head) {
            if (head.bodyLength() == 0 || !request.asksForGzip()) return false;
            List<String> codings = head.headers().all("Content-Encoding");
            if (codings.size() != 1) return false;
            String coding = codings.getFirst().strip();
            return coding.equalsIgnoreCase("gzip") || coding.equalsIgnoreCase("x-gzip");
        }

        void onBody(byte[] bytes) {
            if (publisher != null) {
                publisher.push(bytes);
                return;
            }
            try {
                body.add(bytes);
            } catch (GzipDecoder.TooLargeException e) {
                connection.fail(tooLarge());
            } catch (IOException e) {
                connection.fail(invalidGzip(e));
            }
        }

        void onEnd() {
            if (publisher != null) {
                publisher.complete();
                end(null, null, false);
                return;
            }
            try {
                end(Response.of(head.status(), headers, body.finish()), null, false);
            } catch (ZipException e) {
                end(null, invalidGzip(e), false);
            }
        }

        void onFailed(Throwable failure, boolean beforeResponse) {
            if (!ended) connectFailed = connection == null; // the connection opened for this attempt never connected
            if (publisher != null) {
                publisher.fail(failure);
                end(null, null, false);
                return;
            }
            end(null, failure, beforeResponse);
        }

        /** A timeout ends the attempt: its connection closes, so a late answer cannot reach another call. */
        void onTimeout(ClientTimeoutException failure) {
            if (connection != null) {
                connection.fail(failure); // reports back through onFailed
            } else {
                pool.cancel(this);
                end(null, failure, true);
            }
        }

        private HttpClientException tooLarge() {
            return new HttpClientException("response body larger than " + home.options().maxResponseBodySize()
                    + " bytes (max-response-body-size" + (body != null && body.isGzip() ? ", decoded" : "") + "): " + request);
        }

        private HttpClientException invalidGzip(IOException cause) {
            return new HttpClientException("invalid gzip response body from " + pool.name() + ": " + cause.getMessage(), cause);
        }

        /**
         * Ends the attempt once. A streamed response was handed over at its head, so its end only
         * stops the timer; otherwise the call decides what comes next.
         */
        private void end(Response response, Throwable failure, boolean beforeResponse) {
            if (ended) return;
            ended = true;
            if (responseTimer != null) responseTimer.cancel();
            if (body != null) body.close();
            if (publisher != null) {
                if (deadline != null) deadline.cancel();
                return;
            }
            onAttemptEnded(response, failure, beforeResponse, reused);
        }
    }
}
