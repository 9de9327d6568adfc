package keel.http.server;

import keel.core.log.Log;
import keel.core.net.Channel;
import keel.core.net.Protocol;
import keel.core.tls.Tls;
import keel.http.Request;
import keel.http.Response;
import keel.http.codec.Http1Parser;
import keel.http.codec.Http1Writer;
import keel.http.codec.ParseResult;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import javax.net.ssl.SSLSession;

/**
 * The HTTP/1.1 server exchange on a {@link Channel} of the nio transport: every method runs on the
 * channel's loop, except {@link #onResponseFromAnyThread}, which hops onto it.
 *
 * <pre>
 *            ┌──────────── keep-alive: next (pipelined) request ───────────┐
 *            ▼                                                             │
 *   ──► READING ──request──► HANDLING ──fixed response──────────────────────┤
 *         │   ▲                  │                                         │
 *         │   └─ 100-continue    └──streamed response──► STREAMING ──end───┘
 *         │ bad input, timeout,           │ (close requested)
 *         │ connection limit              ▼
 *         └──────error response────────► CLOSING (the channel's lingering close) ──► CLOSED
 *
 *   HANDLING ──a WebSocket route accepted the handshake: 101, channel.switchTo(WsConnection)──► UPGRADED
 * </pre>
 *
 * Responses leave in request order because the exchange handles one request at a time: pipelined
 * requests wait in the channel's input (which it stops offering while a handler runs). Parsing stops
 * while the channel is over its high water mark, so a client that does not read cannot grow server
 * memory; the channel answers all the responses one batch of input produced with one write.
 */
final class Http1Protocol implements Protocol, Dispatcher.Exchange {
    private static final Log LOG = Log.of(Http1Protocol.class);

    private enum State { READING, HANDLING, STREAMING, CLOSING, UPGRADED, CLOSED }

    private final long id;
    private final LoopConnections home;
    private final Http1Parser parser;
    private final BodyRate bodyRate;
    /** Answered instead of any request (past the connection limit), or null. */
    private final Response refusal;
    /** Created once: a method reference made per request would allocate on every request. */
    private final Consumer<Response> onResponse = this::onResponseFromAnyThread;
    private Channel channel;
    private State state = State.READING;
    private Wait wait = Wait.NONE;
    private Request current;
    /** The handler run of the current request while it has a deadline, else null. */
    private HandlerCall handlerCall;
    private long handlerDeadlineNanos;
    /** True from {@link #reserveAnswer} until the answer takes (or gives back) its place in the loop's task queue. */
    private boolean answerReserved;
    private ResponseStream stream;
    /** The client's certificate chain (TLS with client authentication), or null. */
    private List<X509Certificate> peerCertificates;
    /** The access log's view of the exchanges; null when the access log is off. */
    private AccessRecorder access;

    Http1Protocol(long id, LoopConnections home, Response refusal) {
        this.id = id;
        this.home = home;
        this.parser = new Http1Parser(home.context().parserLimits());
        this.bodyRate = new BodyRate(home.context().options().timeouts());
        this.refusal = refusal;
    }

    // ---- channel events --------------------------------------------------------------------------

    @Override
    public void onAttach(Channel attached) {
        this.channel = attached;
        this.access = AccessRecorder.onLoop(home.context().accessLog(), home.accessLines());
    }

    @Override
    public void onOpen(Channel open) {
        SSLSession session = channel.tlsSession();
        if (session != null) peerCertificates = Tls.peerCertificates(session);
        if (refusal != null) respondAndClose(refusal);
        else waitFor(Wait.IDLE, false);
    }

    /** Parses buffered requests while the exchange reads and the channel can take their answers. */
    @Override
    public void onInput(Channel from, ByteBuffer in) {
        while (state == State.READING && channel.isWritable()) {
            boolean inBody = !parser.isReadingHead();
            int before = in.position();
            ParseResult result = parser.parse(in);
            if (inBody) bodyRate.onBytes(channel.loop().nanoTime(), in.position() - before);
            switch (result) {
                case ParseResult.NeedMore needMore -> {
                    waitFor(Wait.forReading(parser, in.hasRemaining()), true); // a body's deadline restarts with progress
                    return;
                }
                case ParseResult.ContinueExpected c -> Http1Writer.writeContinue(channel.out());
                case ParseResult.Failed failed -> respondAndClose(Responses.error(failed.status(), failed.reason()));
                case ParseResult.Parsed parsed -> onRequest(parsed.request());
            }
        }
        if (state == State.READING) waitFor(Wait.forReading(parser, in.hasRemaining()), false); // stopped by the water mark
    }

    /** The client closed its side: finish what is being written (over TLS, then close_notify), then close. */
    @Override
    public void onEndOfInput(Channel from) {
        state = State.CLOSING;
        channel.closeAfterFlush();
    }

    @Override
    public void onWritten(Channel from) {
        if (!channel.isWritable()) return;
        if (state == State.READING) channel.resumeInput();
        else if (state == State.STREAMING) stream.resume();
    }

    @Override
    public void onDeadline(Channel from) {
        Wait expired = wait;
        wait = Wait.NONE;
        switch (expired) {
            case HEAD -> {
                home.context().observer().onTimeout(expired.timeout());
                respondAndClose(expired.onExpiry(home.context().options().timeouts()));
            }
            case BODY -> {
                if (bodyRate.isTooSlow(channel.loop().nanoTime())) {
                    home.context().observer().onTimeout(ServerObserver.Timeout.BODY_TOO_SLOW);
                    respondAndClose(bodyRate.tooSlow());
                } else {
                    home.context().observer().onTimeout(expired.timeout());
                    respondAndClose(expired.onExpiry(home.context().options().timeouts()));
                }
            }
            case HANDLER -> {
                HandlerCall call = handlerCall;
                handlerCall = null;
                // Answers 503 through onResponse (here, on the loop) when the handler has not answered yet.
                if (state == State.HANDLING && call != null) home.context().dispatcher().expire(call, handlerDeadlineNanos);
            }
            case IDLE -> {
                home.context().observer().onTimeout(expired.timeout());
                state = State.CLOSING;
                channel.closeLingering();
            }
            case NONE, WRITE, LINGER -> channel.close();
        }
    }

    @Override
    public void onClosed(Channel from, Throwable cause) {
        if (cause != null) LOG.debug("connection_failed", "id", id, "state", state, "cause", cause);
        if (access != null && state == State.STREAMING) access.finish(handedOver()); // a body cut short: what was sent
        state = State.CLOSED;
        wait = Wait.NONE;
        handlerCall = null;
        if (stream != null) {
            try {
                stream.cancel();
            } catch (RuntimeException e) {
                LOG.warn("stream_cancel_failed", e, "id", id);
            }
        }
    }

    // ---- the request path ------------------------------------------------------------------------

    /** Hands the request to the dispatcher, which answers through {@link #onResponseFromAnyThread}. */
    private void onRequest(Request request) {
        if (peerCertificates != null) request = request.withPeerCertificates(peerCertificates);
        current = request;
        if (access != null) access.begin(request);
        state = State.HANDLING;
        channel.pauseInput(); // pipelined requests wait until this one is answered
        waitFor(Wait.NONE, false);
        home.context().dispatcher().dispatch(request, onResponse, channel.loop(), this);
    }

    /**
     * A handler that may answer from another thread is about to run: the place of its answer in the
     * loop's task queue is taken now, while a refusal can still be answered here.
     */
    @Override
    public boolean reserveAnswer() {
        answerReserved = channel.loop().tryReserveTask();
        return answerReserved;
    }

    /** The dispatcher's callback: moves the response onto the channel's loop, in the place {@link #reserveAnswer} took. */
    private void onResponseFromAnyThread(Response response) {
        if (channel.loop().inEventLoop()) {
            if (answerReserved) {
                answerReserved = false;
                channel.loop().cancelReservedTask();
            }
            onResponseOrClose(response);
            return;
        }
        try {
            channel.loop().executeReserved(() -> {
                answerReserved = false;
                onResponseOrClose(response);
            });
        } catch (RejectedExecutionException stopped) {
            // Only a stopped loop refuses a reserved place: it closed its channels, this one included.
            home.context().observer().onDropped(ServerObserver.Drop.LOOP_STOPPED);
            LOG.warn("response_dropped", "id", id, "cause", stopped.getMessage());
            if (response.isStreamed()) DiscardingSubscriber.discard(response.stream());
            channel.closeFromAnyThread();
        }
    }

    /** A response that cannot be written (a bad value, a publisher that throws) ends the connection, never strands it. */
    private void onResponseOrClose(Response response) {
        try {
            onResponse(response);
        } catch (RuntimeException e) {
            home.context().observer().onDropped(ServerObserver.Drop.RESPONSE_FAILED);
            LOG.warn("response_failed", e, "id", id);
            channel.close();
        }
    }

    private void onResponse(Response response) {
        if (state != State.HANDLING) {
            if (response.isStreamed()) DiscardingSubscriber.discard(response.stream()); // closed while the handler ran
            return;
        }
        handlerCall = null;
        waitFor(Wait.NONE, false); // the handler's deadline, if any, is over
        ResponsePlan plan = ResponsePlan.of(current, response, home.context().isStopping(), access == null ? null : access.requestId());
        current = null;
        if (access != null) access.responding(response.status(), handedOver());
        if (plan.streamsBody()) {
            if (access != null) access.streaming();
            stream = new ResponseStream(this, channel, response, plan);
            state = State.STREAMING;
            stream.start();
        } else {
            plan.write(channel.out(), response);
            finishExchange(plan.close());
        }
    }

    /**
     * A WebSocket route accepted the handshake (inside {@code dispatch}): the 101 is queued and the
     * channel goes to the WebSocket session, with the input read past the request.
     */
    @Override
    public void upgrade(WsHandshake.Accepted accepted, WsConnection.Binding binding, Runnable release) {
        if (access != null) access.responding(101, handedOver());
        WsHandshake.writeSwitchingProtocols(channel.out(), accepted);
        if (access != null) access.finish(handedOver());
        current = null;
        state = State.UPGRADED;
        channel.switchTo(WsConnection.server(id, binding, home.context().webSocketSettings(), release));
    }

    /** After a response is fully queued: read the next request, or close once the bytes are out. */
    void finishExchange(boolean close) {
        stream = null;
        if (access != null) access.finish(handedOver());
        if (close) {
            if (access != null) access.handOver(); // the line is with the log before the client sees the end
            state = State.CLOSING;
            channel.closeAfterFlush();
            return;
        }
        state = State.READING;
        channel.resumeInput();
        if (state == State.READING && !channel.hasBufferedInput()) waitFor(Wait.IDLE, false);
    }

    private void respondAndClose(Response response) {
        if (access != null) access.beginUnparsed(response.status(), handedOver());
        ResponsePlan.closing(response, access == null ? null : access.requestId()).write(channel.out(), response);
        if (access != null) {
            access.finish(handedOver());
            access.handOver();
        }
        current = null;
        state = State.CLOSING;
        channel.closeAfterFlush();
    }

    /** For a stopping server: a connection between requests closes now; a busy one finishes its exchange first. */
    void closeIfIdle() {
        if (state == State.READING && !channel.hasBufferedInput() && parser.isBetweenRequests() && !channel.hasPendingOutput()) {
            state = State.CLOSING;
            channel.closeLingering();
        }
    }

    /** Counts a response cut short ({@link ResponseStream}); any thread. */
    void dropped(ServerObserver.Drop reason) {
        home.context().observer().onDropped(reason);
    }

    @Override
    public void runsOn(Execution execution) {
        if (access != null) access.runsOn(execution);
    }

    @Override
    public void deadline(HandlerCall call, long nanos) {
        handlerCall = call;
        handlerDeadlineNanos = nanos;
        wait = Wait.HANDLER;
        channel.deadlineAfter(nanos);
    }

    /** An answer made on this loop is handed over within the same turn: its time stands for the line's end. */
    @Override
    public void answeredAt(long nanoTime) {
        if (access != null && channel.loop().inEventLoop()) access.answeredAt(nanoTime);
    }

    /** The response bytes handed to the channel so far: written (or encrypted), and still queued. */
    private long handedOver() {
        return channel.bytesWritten() + channel.out().pendingBytes();
    }

    /**
     * Sets what the exchange waits for; the deadline restarts when the wait changes or on {@code refresh}.
     * A body's deadline is the stall timeout or its minimum rate's, whichever comes first.
     */
    private void waitFor(Wait next, boolean refresh) {
        if (next == wait && !(refresh && next == Wait.BODY)) return;
        Wait previous = wait;
        wait = next;
        var timeouts = home.context().options().timeouts();
        switch (next) {
            case NONE -> channel.clearDeadline();
            case BODY -> {
                long now = channel.loop().nanoTime();
                if (previous != Wait.BODY) bodyRate.start(now);
                channel.deadlineAfter(bodyRate.nanosLeft(now, next.timeoutNanos(timeouts)));
            }
            default -> channel.deadlineAfter(next.timeoutNanos(timeouts));
        }
    }

    @Override
    public String toString() {
        return "connection " + id + " (" + state + ")";
    }
}
