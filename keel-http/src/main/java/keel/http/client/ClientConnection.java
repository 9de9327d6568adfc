package keel.http.client;

import keel.core.log.Log;
import keel.core.loop.EventLoop;
import keel.core.net.Channel;
import keel.core.net.Protocol;
import keel.http.codec.Http1ResponseParser;
import keel.http.codec.ResponseEvent;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;

/**
 * The client exchange on one {@link Channel} to a host: a pooled connection, owned by one event loop
 * for life (every method runs on that loop).
 *
 * <pre>
 *   CONNECTING ──connected──► IDLE ──exchange──► BUSY ──response ended, keep-alive, nothing left over──┐
 *       │                      ▲                   │                                                   │
 *       │                      └───────────────────┼───────────────── back to the pool ◄───────────────┘
 *       │                                          │ failure, timeout, no keep-alive, bytes left over
 *       └──refused, timeout────────────────────────┴──────────────────────────────────────────► CLOSED
 * </pre>
 *
 * While idle it keeps reading: a server that closes an idle connection (its keep-alive timeout) is
 * seen at once and the connection leaves the pool; {@link #isReusable} checks once more on acquire.
 */
final class ClientConnection implements Protocol {
    private static final Log LOG = Log.of(ClientConnection.class);

    private enum State { CONNECTING, IDLE, BUSY, CLOSED }

    private final HostPool pool;
    private final Http1ResponseParser parser;
    private final long createdAt;
    private Channel channel;
    private State state = State.CONNECTING;
    private Call.Attempt exchange;
    private int exchanges;
    private long idleSince;
    /** True while a streamed body's subscriber wants no more bytes: reading pauses. */
    private boolean readPaused;

    ClientConnection(HostPool pool, Http1ResponseParser.Limits limits) {
        this.pool = pool;
        this.parser = new Http1ResponseParser(limits);
        this.createdAt = pool.loop().nanoTime();
    }

    /** The one place the state changes; each state has the predecessors the diagram allows. */
    private void moveTo(State next) {
        assert switch (next) {
            case CONNECTING -> false;
            case IDLE -> state == State.CONNECTING || state == State.BUSY;
            case BUSY -> state == State.IDLE;
            case CLOSED -> true;
        } : state + " -> " + next;
        state = next;
    }

    /** Starts connecting, over TLS when {@code engine} is given; {@code attempt} gets the connection, or the failure. */
    void connect(InetSocketAddress address, Channel.Settings settings, SSLEngine engine, Call.Attempt attempt) {
        exchange = attempt;
        Channel.connect(address, pool.loop(), settings, engine, this, closed -> { });
    }

    @Override
    public void onAttach(Channel attached) {
        channel = attached;
        channel.deadlineAfter(pool.options().connectTimeout().toNanos());
    }

    @Override
    public void onOpen(Channel open) {
        channel.clearDeadline();
        Call.Attempt attempt = exchange;
        exchange = null;
        moveTo(State.IDLE);
        idleSince = pool.loop().nanoTime();
        pool.onConnected(this, attempt);
    }

    @Override
    public void onDeadline(Channel from) {
        if (state == State.CONNECTING) {
            fail(new ClientTimeoutException(ClientTimeoutException.Kind.CONNECT, pool.options().connectTimeout(), pool.name()));
        }
    }

    /** Sends {@code attempt}'s request on this idle connection. */
    void exchange(Call.Attempt attempt) {
        moveTo(State.BUSY);
        exchange = attempt;
        exchanges++;
        parser.expect(attempt.request().method().equals("HEAD"));
        try {
            attempt.request().encode(channel.out());
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        channel.flush();
        onWritten(channel);
    }

    /** The request is written once nothing waits in the channel. */
    @Override
    public void onWritten(Channel from) {
        if (exchange != null && !channel.hasPendingOutput()) exchange.onRequestWritten();
    }

    @Override
    public void onInput(Channel from, ByteBuffer in) {
        if (state != State.BUSY) {
            // A server must not answer what was not asked: the connection can no longer be trusted.
            LOG.debug("unexpected_bytes", "host", pool.name(), "bytes", in.remaining());
            close();
            return;
        }
        while (state == State.BUSY && !readPaused) {
            ResponseEvent event = parser.parse(in);
            switch (event) {
                case ResponseEvent.NeedMore needMore -> {
                    return;
                }
                case ResponseEvent.Head head -> exchange.onHead(head, this);
                case ResponseEvent.Body body -> exchange.onBody(body.bytes());
                case ResponseEvent.End end -> onEnd();
                case ResponseEvent.Failed failed -> fail(new HttpClientException("invalid response from " + pool.name() + ": " + failed.reason()));
            }
        }
    }

    /**
     * The response is complete. The connection goes back to the pool first, so a follow-up call can
     * reuse it, but only if nothing is left over: bytes after the response would be read as the next
     * call's answer, and request bytes still unsent would delay it.
     */
    private void onEnd() {
        Call.Attempt attempt = exchange;
        exchange = null;
        boolean clean = !channel.hasBufferedInput() && !channel.hasPendingOutput();
        if (attempt.keepAlive() && clean && !pool.isClosed()) {
            moveTo(State.IDLE);
            idleSince = pool.loop().nanoTime();
            pool.release(this);
        } else {
            close();
        }
        attempt.onEnd();
    }

    @Override
    public void onEndOfInput(Channel from) {
        if (state != State.BUSY) {
            close();
            return;
        }
        ResponseEvent event = parser.endOfInput();
        if (event instanceof ResponseEvent.End) {
            Call.Attempt attempt = exchange;
            exchange = null;
            close();
            attempt.onEnd();
            return;
        }
        String reason = event instanceof ResponseEvent.Failed failed ? failed.reason() : "connection closed";
        fail(new ConnectionFailedException(reason + " (" + pool.name() + ")", null));
    }

    /** Closed by the channel (an I/O error, a refused connect, a failed TLS handshake, a stopped loop). */
    @Override
    public void onClosed(Channel from, Throwable cause) {
        if (state == State.CLOSED) return;
        fail(cause != null ? cause : new ConnectionFailedException("connection closed (" + pool.name() + ")", null));
    }

    // ---- flow control for streamed bodies ---------------------------------------------------------

    /** The subscriber of a streamed body has no demand: stop reading (the peer slows down by TCP flow control). */
    void pauseReading() {
        readPaused = true;
        channel.pauseInput();
    }

    /** Demand is back: parse what is buffered, then read again. */
    void resumeReading() {
        if (!readPaused || state != State.BUSY) return;
        readPaused = false;
        channel.resumeInput();
    }

    // ---- pool checks -----------------------------------------------------------------------------

    /**
     * An idle connection is reused only if it is young enough and the server has not closed it: a
     * read now sees the FIN (or stray bytes) that the poller may not have reported yet.
     */
    boolean isReusable(long now) {
        if (state != State.IDLE || isExpired(now)) return false;
        if (now - idleSince >= pool.options().pool().maxIdleTime().toNanos()) return false;
        return channel.readNow() && state == State.IDLE;
    }

    boolean isExpired(long now) {
        long maxLife = pool.options().pool().maxLifeTime().toNanos();
        return maxLife > 0 && now - createdAt >= maxLife;
    }

    boolean isIdleLongerThan(long nanos, long now) {
        return state == State.IDLE && now - idleSince >= nanos;
    }

    /** True once the connection carried a request: only then can the server have closed it under a new one. */
    boolean hasCarriedRequests() {
        return exchanges > 0;
    }

    // ---- closing ---------------------------------------------------------------------------------

    /** Fails the exchange in progress (if any) and closes. */
    void fail(Throwable failure) {
        Call.Attempt attempt = exchange;
        boolean beforeResponse = parser.isBeforeResponse();
        boolean wasConnecting = state == State.CONNECTING;
        exchange = null;
        close();
        if (attempt == null) return;
        Throwable reported = failure;
        if (!(failure instanceof HttpClientException)) { // the channel's failure, told as the client's own
            if (wasConnecting) reported = new ConnectionFailedException("cannot connect to " + pool.name() + ": " + failure.getMessage(), failure);
            else if (failure instanceof IOException) reported = new ConnectionFailedException(failure.getMessage() + " (" + pool.name() + ")", failure);
        }
        attempt.onFailed(reported, beforeResponse);
    }

    /** Closes at once: a client connection has nothing to drain (a response in progress is abandoned). */
    void close() {
        if (state == State.CLOSED) return;
        boolean wasConnecting = state == State.CONNECTING;
        moveTo(State.CLOSED);
        channel.close();
        pool.onClosed(this, wasConnecting);
    }

    /** For a task that could not reach the loop (it stopped): the socket closes, the loop's shutdown does the rest. */
    void closeFromAnyThread() {
        channel.closeFromAnyThread();
    }

    EventLoop loop() {
        return pool.loop();
    }

    @Override
    public String toString() {
        return "client connection to " + pool.name() + " (" + state + ")";
    }
}
