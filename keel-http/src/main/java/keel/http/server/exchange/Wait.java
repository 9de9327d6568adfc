package keel.http.server.exchange;

import keel.http.Response;
import keel.http.codec.Http1Parser;
import keel.http.execution.Responses;

/**
 * What a connection waits for, and so which timeout applies and how its expiry is answered; the
 * same for both transports.
 */
public enum Wait {
    /** Nothing: a handler without a deadline runs, or the connection is closed. No deadline. */
    NONE,
    /** A handler's answer: its route's deadline; on expiry 503 (the handler's late answer is dropped) and the connection goes on. */
    HANDLER,
    /** The first byte of the next request: the idle timeout; on expiry a lingering close, no response. */
    IDLE,
    /** The rest of a head that started: the head-read timeout from its first byte; on expiry a 408. */
    HEAD,
    /**
     * A request body: the idle timeout, restarted by every read that makes progress, and the body's
     * minimum data rate ({@link BodyRate}), whichever ends first; on expiry a 408.
     */
    BODY,
    /**
     * A streamed response body's next item, asked of its publisher: the stream-stall timeout, restarted
     * by each item asked for ({@code none}: no deadline); on expiry the body is cut short.
     */
    STREAM,
    /** The client to take queued output: the write-stall timeout, restarted by progress; on expiry the connection closes. */
    WRITE,
    /** The client's FIN during a lingering close: the drain time; on expiry the connection closes. */
    LINGER;

    /**
     * The wait while the connection reads a request.
     *
     * @param inputBuffered true when unparsed bytes of the next request are held (a head has started)
     */
    public static Wait forReading(Http1Parser parser, boolean inputBuffered) {
        if (!parser.isReadingHead()) return BODY;
        if (!inputBuffered && parser.isBetweenRequests()) return IDLE;
        return HEAD;
    }

    /** True for a wait whose deadline starts again with each step of progress (a body's bytes, a streamed item asked for). */
    public boolean restartsWithProgress() {
        return this == BODY || this == STREAM;
    }

    /** The wait's timeout; 0 for none (only a stream-stall of {@code none}). */
    public long timeoutNanos(ServerContext.Timeouts timeouts) {
        return switch (this) {
            case NONE -> throw new IllegalStateException("no deadline without a wait");
            case HANDLER -> throw new IllegalStateException("a handler's deadline is its route's");
            case IDLE, BODY -> timeouts.idle().toNanos();
            case WRITE -> timeouts.writeStall().toNanos();
            case STREAM -> timeouts.streamStall().toNanos();
            case HEAD -> timeouts.headRead().toNanos();
            case LINGER -> timeouts.lingerDrain().toNanos();
        };
    }

    /**
     * The 408 that answers an expired wait for a head or a stalled body (a body too slow for its rate is
     * {@link BodyRate#tooSlow}); the other waits end without a response.
     */
    public Response onExpiry(ServerContext.Timeouts timeouts) {
        return switch (this) {
            case HEAD -> Responses.error(408, "request head not received within " + timeouts.headRead().toMillis() + " ms");
            case BODY -> Responses.error(408, "request body stalled for " + timeouts.idle().toMillis() + " ms");
            case NONE, HANDLER, IDLE, STREAM, WRITE, LINGER -> throw new IllegalStateException("no response answers an expired " + this + " wait");
        };
    }
}
