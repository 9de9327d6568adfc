package keel.http.server;

import keel.core.log.Log;
import keel.core.net.Channel;
import keel.core.net.Protocol;
import keel.core.tls.Tls;
import keel.http.Execution;
import keel.http.Request;
import keel.http.Response;
import keel.http.accesslog.AccessRecorder;
import keel.http.codec.Http1Parser;
import keel.http.codec.Http1Writer;
import keel.http.codec.ParseResult;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

import java.nio.ByteBuffer;
import java.security.cert.X509Certificate;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import javax.net.ssl.SSLSession;

/**
 * The HTTP/1.1 server exchange on a {@link Channel} of the nio transport: every method runs on the
 * channel's loop, except {@link #answer}, which hops onto it.
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
 * Responses leave in request order because the exchange answers one request at a time: pipelined
 * requests wait in the channel's input (which it stops offering while a handler runs). One exception
 * saves a thread hop per request: while a synchronous handler runs off the loop, the safe requests
 * (GET, HEAD, no body) pipelined behind it that would run on the same kind of thread join its
 * {@link PipelineRun}, up to {@code server.pipeline-run} of them (16), and run after it on its
 * thread; their answers come back in order (those that come together in one loop task,
 * {@link AnswerHandoff}) and are written as each one's turn comes, all of them with one write when
 * they come together. Parsing stops while the channel is over its high water mark, so a client that
 * does not read cannot grow server memory; the channel answers all the responses one batch of input
 * produced with one write.
 */
final class Http1Protocol implements Protocol, Exchange {
    private static final Log LOG = Log.of(Http1Protocol.class);

    private enum State { READING, HANDLING, STREAMING, CLOSING, UPGRADED, CLOSED }

    /** A request parsed while another was handled, in a run behind it, and its answer once it came. */
    private static final class Ahead {
        final Request request;
        /** Its handler's run: the gate of its answer, and its deadline. */
        final HandlerCall call;
        final Execution execution;
        final long parsedNanos;
        Response answer;

        Ahead(Request request, HandlerCall call, Execution execution, long parsedNanos) {
            this.request = request;
            this.call = call;
            this.execution = execution;
            this.parsedNanos = parsedNanos;
        }
    }

    private final long id;
    private final LoopConnections home;
    private final Http1Parser parser;
    /** Input arrived since the loop's last sweep ({@link #trimIfQuiet}). */
    private boolean inputSinceSweep;
    /** True while {@link #onInput} runs: answers made on the loop then are timed as it ends ({@link UntimedAnswers}). */
    private boolean readingInput;
    private final BodyRate bodyRate;
    /** Answered instead of any request (past the connection limit), or null. */
    private final Response refusal;
    /** Created once: a method reference made per request would allocate on every request. */
    private final Consumer<Response> onResponse = response -> answer(response, null);
    private Channel channel;
    private State state = State.READING;
    private Wait wait = Wait.NONE;
    private Request current;
    /** The handler run of the current request while it has a deadline, else null. */
    private HandlerCall handlerCall;
    private long handlerDeadlineNanos;
    /** Answers with a place reserved ({@link #reserveAnswer}) in the loop's task queue, not yet taken or given back. */
    private int reservedAnswers;
    /** Answers made on other threads, on their way here: a burst of them in one task ({@link #takeAnswers}). */
    private final AnswerHandoff handoff;
    /** Created once: a method reference made per burst would allocate on every burst. */
    private final Runnable takeAnswers = this::takeAnswers;
    /** While {@link #takeAnswers} hands on a burst: its answers not handed on yet. */
    private int answersInHand;
    /** The requests that joined it, in order; at most {@code server.pipeline-run}. Small until pipelining needs more. */
    private final ArrayDeque<Ahead> ahead = new ArrayDeque<>(3);
    /** What was parsed behind them and could not join (another execution, an error, a 100-continue): handled in its turn. */
    private ParseResult held;
    /** The channel's input while {@link #onInput} hands a request over, else null. */
    private ByteBuffer input;
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
        this.handoff = new AnswerHandoff(1 + home.context().options().pools().pipelineRun());
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
        inputSinceSweep = true;
        readingInput = true;
        try {
            parseBuffered(in);
        } finally {
            readingInput = false;
            reportUntimed();
        }
    }

    private void parseBuffered(ByteBuffer in) {
        while (state == State.READING && channel.isWritable()) {
            boolean inBody = !parser.isReadingHead();
            int before = in.position();
            ParseResult result = parser.parse(in);
            if (inBody) bodyRate.onBytes(channel.loop().lastNanoTime(), in.position() - before);
            switch (result) {
                case ParseResult.NeedMore needMore -> {
                    waitFor(Wait.forReading(parser, in.hasRemaining()), true); // a body's deadline restarts with progress
                    return;
                }
                default -> {
                    input = in; // for the requests pipelined behind this one, should they join its run
                    try {
                        onParsed(result);
                    } finally {
                        input = null;
                    }
                }
            }
        }
        if (state == State.READING) waitFor(Wait.forReading(parser, in.hasRemaining()), false); // stopped by the water mark
    }

    private void onParsed(ParseResult result) {
        switch (result) {
            case ParseResult.ContinueExpected c -> Http1Writer.writeContinue(channel.out());
            case ParseResult.Failed failed -> respondAndClose(Responses.error(failed.status(), failed.reason()));
            case ParseResult.Parsed parsed -> onRequest(parsed.request());
            case ParseResult.NeedMore needMore -> throw new IllegalArgumentException("nothing parsed");
        }
    }

    /**
     * As a synchronous handler is handed off the loop: the complete requests buffered behind its
     * request join its {@code run} while they can; the first that cannot is held for its turn, and so
     * is a request that stops the run (one that is not safe to run ahead: it has a body, or asks to
     * close). Only here, before the run goes to its thread: it takes no step after that.
     */
    private void parseAhead(PipelineRun run, ByteBuffer in) {
        int most = home.context().options().pools().pipelineRun();
        while (ahead.size() < most && in.hasRemaining() && channel.isWritable()) {
            long parsedNanos = access == null ? 0 : channel.loop().lastNanoTime();
            ParseResult result = parser.parse(in);
            if (result instanceof ParseResult.NeedMore) return; // the rest of it is read in its turn
            Request request = result instanceof ParseResult.Parsed parsed && runsAhead(parsed.request()) ? withPeer(parsed.request()) : null;
            HandlerCall call = request == null ? null : home.context().dispatcher().follow(run, request, onResponse, channel.loop(), this);
            if (call == null) {
                held = result;
                return;
            }
            ahead.add(new Ahead(request, call, run.execution(), parsedNanos));
        }
    }

    /** A request another may be run ahead of the answers before it: safe, without a body, and keeping the connection. */
    private static boolean runsAhead(Request request) {
        String method = request.method();
        return (method.equals("GET") || method.equals("HEAD")) && request.body().length == 0 && request.keepAlive();
    }

    private Request withPeer(Request request) {
        return peerCertificates == null ? request : request.withPeerCertificates(peerCertificates);
    }

    /**
     * The loop's sweep, about once a second: a connection that received nothing since the last one
     * and waits for its next request gives up its parser's kept head ({@link Http1Parser#trim}).
     */
    void trimIfQuiet() {
        if (inputSinceSweep) {
            inputSinceSweep = false;
        } else if (state == State.READING && !channel.hasBufferedInput()) {
            parser.trim();
        }
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
            case STREAM -> {
                dropped(ServerObserver.Drop.STREAM_STALLED);
                LOG.warn("response_stream_stalled", "id", id, "timeout_ms", home.context().options().timeouts().streamStall().toMillis());
                channel.close(); // a truncated body, never a false end; onClosed cancels the subscription
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
        dropAhead();
        if (stream != null) {
            try {
                stream.cancel();
            } catch (RuntimeException e) {
                LOG.warn("stream_cancel_failed", e, "id", id);
            }
        }
    }

    // ---- the request path ------------------------------------------------------------------------

    /** Hands the request to the dispatcher, which answers through {@link #answer}. */
    private void onRequest(Request request) {
        request = withPeer(request);
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
        if (!channel.loop().tryReserveTask()) return false;
        reservedAnswers++;
        return true;
    }

    /** Gives back the place {@link #reserveAnswer} took, for an answer made here on the loop after all. */
    private void releaseAnswer() {
        reservedAnswers--;
        channel.loop().cancelReservedTasks(1);
    }

    @Override
    public void runs(PipelineRun started) {
        if (input != null) parseAhead(started, input);
    }

    /** The dispatcher's answer: moves the response onto the channel's loop, in the place {@link #reserveAnswer} took. */
    @Override
    public void answer(Response response, Exchange.Timing timing) {
        if (channel.loop().inEventLoop()) {
            // Made here: a refusal, a deadline, or a synchronous handler on the loop (which reserved nothing).
            if (timing != null) {
                long now = System.nanoTime();
                reportUntimed(now); // the answers held before it are reported before it
                answeredAt(timing, response, now);
            }
            if (reservedAnswers > 0) releaseAnswer();
            onResponseOrClose(response);
            return;
        }
        switch (handoff.add(response, timing)) {
            case FIRST -> {
                try {
                    channel.loop().executeReserved(takeAnswers);
                } catch (RejectedExecutionException stopped) {
                    // Only a stopped loop refuses a reserved place: it closed its channels, this one included.
                    Response[] refused = handoff.close();
                    channel.loop().cancelReservedTasks(refused.length - 1); // the places of those behind the first
                    for (Response dropped : refused) dropStopped(dropped, stopped.getMessage());
                    channel.closeFromAnyThread();
                }
            }
            case BEHIND -> { } // it goes in the task the first one queued; the loop gives its place back as it takes it
            case REFUSED -> dropStopped(response, "event loop stopped");
        }
    }

    /**
     * On the loop: hands on the answers that came from other threads since the last burst, in order.
     * The burst came in the task of its first answer: the places reserved for the others go back here,
     * in one step (not one by one on the threads that answered).
     */
    private void takeAnswers() {
        int count = handoff.take();
        if (count > 1) channel.loop().cancelReservedTasks(count - 1);
        for (int i = 0; i < count; i++) {
            reservedAnswers--;
            answersInHand = count - 1 - i;
            Response response = handoff.response(i);
            Exchange.Timing timing = handoff.timing(i);
            // The loop read its clock as the task before this one ended: the answer is timed as it is taken up.
            if (timing != null) answeredAt(timing, response, channel.loop().lastNanoTime());
            onResponseOrClose(response);
        }
        answersInHand = 0;
    }

    private void dropStopped(Response response, String cause) {
        home.context().observer().onDropped(ServerObserver.Drop.LOOP_STOPPED);
        LOG.warn("response_dropped", "id", id, "cause", cause);
        if (response.isStreamed()) DiscardingSubscriber.discard(response.stream());
    }

    @Override
    public void answeredOnLoop(String method, String pattern, int status, long start) {
        if (readingInput && access == null && home.untimedAnswers().hold(method, pattern, status, start)) return;
        long now = System.nanoTime();
        reportUntimed(now); // those held before it, when full
        ObservedAnswer.report(home.context().observer(), method, pattern, status, now - start);
        answeredAt(now);
    }

    /** Times the answers {@link #answeredOnLoop} held, before any of them can leave (a clock read only when some are). */
    private void reportUntimed() {
        UntimedAnswers untimed = home.untimedAnswers();
        if (!untimed.isEmpty()) untimed.report(home.context().observer(), System.nanoTime());
    }

    /** Reports the answers held as made at {@code now}. */
    private void reportUntimed(long now) {
        home.untimedAnswers().report(home.context().observer(), now);
    }

    /** The access log's time of the request being answered now. */
    private void answeredAt(long nanoTime) {
        if (access != null && state == State.HANDLING) access.answeredAt(nanoTime);
    }

    /** The answer's time goes to its observer and, for the request being answered now, to its access line. */
    private void answeredAt(Exchange.Timing timing, Response response, long nanoTime) {
        timing.answeredAt(response, nanoTime);
        answeredAt(nanoTime);
    }

    /** The access log's id of the request answered now, echoed as {@code X-Request-Id}; null when the log is off. */
    private CharSequence requestId() {
        return access == null ? null : access.requestId();
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
            Ahead waiting = state == State.STREAMING ? firstUnanswered() : null;
            if (waiting != null) waiting.answer = response; // a request ahead answered while the one before it streams
            else if (response.isStreamed()) DiscardingSubscriber.discard(response.stream()); // closed while the handler ran
            return;
        }
        handlerCall = null;
        waitFor(Wait.NONE, false); // the handler's deadline, if any, is over
        ResponsePlan plan = ResponsePlan.of(current, response, home.context().isStopping());
        current = null;
        if (access != null) access.responding(response.status(), handedOver());
        if (plan.streamsBody()) {
            reportUntimed(); // a stream may write at once
            if (access != null) access.streaming();
            stream = new ResponseStream(this, channel, response, plan, requestId());
            state = State.STREAMING;
            stream.start();
        } else {
            plan.write(channel.out(), response, requestId(), channel.loop().lastNanoTime());
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
        reportUntimed(); // the session may write at once
        channel.switchTo(WsConnection.server(id, binding, home.context().webSocketSettings(), release));
    }

    /**
     * After a response is fully queued: the next request run ahead takes its turn, or the one held,
     * or the next one is read; or the connection closes once the bytes are out.
     */
    void finishExchange(boolean close) {
        stream = null;
        if (access != null) access.finish(handedOver());
        if (close) {
            reportUntimed();
            if (access != null) access.handOver(); // the line is with the log before the client sees the end
            state = State.CLOSING;
            dropAhead(); // their answers, when they come, are dropped like any answer after the end
            channel.closeAfterFlush();
            return;
        }
        Ahead next = ahead.poll();
        if (next != null) {
            takeTurn(next);
            return;
        }
        state = State.READING;
        if (held != null) {
            ParseResult turn = held;
            held = null;
            onParsed(turn);
            if (state != State.READING) return;
        }
        channel.resumeInput();
        if (state == State.READING && !channel.hasBufferedInput()) waitFor(Wait.IDLE, false);
    }

    /** A request run ahead becomes the one answered next; what is written so far leaves with the loop's turn. */
    private void takeTurn(Ahead next) {
        current = next.request;
        state = State.HANDLING;
        if (access != null) {
            access.begin(next.request, next.parsedNanos);
            access.runsOn(next.execution);
        }
        channel.flushSoon();
        if (next.answer != null) {
            onResponseOrClose(next.answer);
        } else if (next.call.deadlineNanos() > 0 && answersInHand == 0) { // else its answer is the next in hand
            deadline(next.call, next.call.deadlineNanos());
        }
    }

    private Ahead firstUnanswered() {
        for (Ahead waiting : ahead) {
            if (waiting.answer == null) return waiting;
        }
        return null;
    }

    private void dropAhead() {
        for (Ahead dropped : ahead) {
            if (dropped.answer != null && dropped.answer.isStreamed()) DiscardingSubscriber.discard(dropped.answer.stream());
        }
        ahead.clear();
        held = null;
    }

    private void respondAndClose(Response response) {
        if (access != null) access.beginUnparsed(response.status(), handedOver());
        ResponsePlan.closing(response).write(channel.out(), response, requestId(), channel.loop().lastNanoTime());
        if (access != null) {
            access.finish(handedOver());
            access.handOver();
        }
        current = null;
        state = State.CLOSING;
        reportUntimed(); // the answers before it in the burst
        channel.closeAfterFlush();
    }

    /** For a stopping server: a connection between requests closes now; a busy one finishes its exchange first. */
    void closeIfIdle() {
        if (state == State.READING && !channel.hasBufferedInput() && parser.isBetweenRequests() && !channel.hasPendingOutput()) {
            state = State.CLOSING;
            channel.closeLingering();
        }
    }

    /**
     * A streamed body asked its publisher for the next item ({@code true}: the stream-stall deadline
     * starts again) or waits for nothing from it ({@code false}: the client is behind, or the body ended).
     */
    void awaitingItem(boolean awaiting) {
        if (awaiting) waitFor(Wait.STREAM, true);
        else if (wait == Wait.STREAM) waitFor(Wait.NONE, false);
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

    /** The response bytes handed to the channel so far: written (or encrypted), and still queued. */
    private long handedOver() {
        return channel.bytesWritten() + channel.out().pendingBytes();
    }

    /**
     * Sets what the exchange waits for; the deadline restarts when the wait changes or on {@code refresh}.
     * A body's deadline is the stall timeout or its minimum rate's, whichever comes first.
     */
    private void waitFor(Wait next, boolean refresh) {
        if (next == wait && !(refresh && next.restartsWithProgress())) return;
        Wait previous = wait;
        wait = next;
        var timeouts = home.context().options().timeouts();
        switch (next) {
            case NONE -> channel.clearDeadline();
            case BODY -> {
                // The channel's deadline counts from the loop's last clock reading, and so does the body's
                // rate (here and as bytes arrive): a deadline from another reading could pass before the
                // rate's due time and read as a stall.
                long now = channel.loop().lastNanoTime();
                if (previous != Wait.BODY) bodyRate.start(now);
                channel.deadlineAfter(bodyRate.nanosLeft(now, next.timeoutNanos(timeouts)));
            }
            default -> {
                long nanos = next.timeoutNanos(timeouts);
                if (nanos == 0) channel.clearDeadline(); // a timeout of none (stream-stall only)
                else channel.deadlineAfter(nanos);
            }
        }
    }

    @Override
    public String toString() {
        return "connection " + id + " (" + state + ")";
    }
}
