package keel.http.server.nio;

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
import keel.http.execution.DiscardingSubscriber;
import keel.http.execution.Dispatch;
import keel.http.execution.Dispatcher;
import keel.http.execution.HandlerCall;
import keel.http.execution.PipelineRun;
import keel.http.Rejection;
import keel.http.execution.Responses;
import keel.http.router.Route;
import keel.http.server.exchange.BodyRate;
import keel.http.server.exchange.ExchangeObserver;
import keel.http.server.exchange.ResponsePlan;
import keel.http.server.exchange.Wait;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import javax.net.ssl.SSLSession;

/**
 * The HTTP/1.1 server exchange on a {@link Channel} of the nio transport, all of it on the channel's
 * loop. A request goes to the {@link Dispatcher} in two calls that return ({@link Dispatch}): route
 * it, then run it. An answer made at once is written at once; one made later or on another thread
 * comes back through the connection's inbox ({@link AnswerHandoff}) in one loop task. The exchange
 * alone reserves that task's place, arms the handler's deadline, times the answer and writes the
 * access line.
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
 * requests wait in the channel's input (which it stops offering while a handler runs). One exception:
 * the safe requests (GET, HEAD, no body) pipelined behind a synchronous handler run off the loop may
 * join its {@link PipelineRun}; their answers are written as each one's turn comes. Parsing stops
 * while the channel is over its high water mark, so a client that does not read cannot grow server
 * memory; the channel answers all the responses one batch of input produced with one write.
 */
final class Http1Protocol implements Protocol {
    private static final Log LOG = Log.of(Http1Protocol.class);

    private enum State {
        READING, HANDLING, STREAMING, CLOSING, UPGRADED, CLOSED;

        /** Whether the exchange may move to this state from {@code from} (the diagram above). */
        boolean follows(State from) {
            return switch (this) {
                case READING -> from == HANDLING || from == STREAMING;
                case HANDLING -> from == READING || from == HANDLING || from == STREAMING; // the next request, or one run ahead
                case STREAMING, UPGRADED -> from == HANDLING;
                case CLOSING -> from != CLOSED && from != UPGRADED;
                case CLOSED -> true;
            };
        }
    }

    /**
     * A request whose answer comes later, through the inbox: the current one, or one run ahead of its
     * turn behind it; and its answer once it came, while the requests before it are answered.
     */
    private static final class Pending {
        final Request request;
        /** Its handler's run: the gate of its answer, and its deadline. */
        final HandlerCall call;
        final Execution execution;
        final String pattern;
        /** The loop's clock when it was parsed: its start for the observer and the access log. */
        final long start;
        Response answer;

        Pending(Request request, HandlerCall call, Execution execution, String pattern, long start) {
            this.request = request;
            this.call = call;
            this.execution = execution;
            this.pattern = pattern;
            this.start = start;
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
    private final boolean observing;
    private Channel channel;
    private State state = State.READING;
    private Wait wait = Wait.NONE;
    private Request current;
    /** The current request while its answer comes later, else null. */
    private Pending pending;
    /** Answers made later or on other threads, on their way here: a burst of them in one task ({@link #takeAnswers}). */
    private AnswerHandoff inbox;
    /** While {@link #takeAnswers} hands on a burst: its answers not handed on yet. */
    private int answersInHand;
    /** The requests that joined the current one's run, in order; at most {@code server.pipeline-run}. Small until pipelining needs more. */
    private final ArrayDeque<Pending> ahead = new ArrayDeque<>(3);
    /** What was parsed behind them and could not join (another execution, an error, a 100-continue): handled in its turn. */
    private ParseResult held;
    private ResponseStream stream;
    /** The access log's view of the exchanges; null when the access log is off. */
    private AccessRecorder access;

    /** {@code remote}, {@code local}: the connection's ends, which each of its requests carries. */
    Http1Protocol(long id, LoopConnections home, Response refusal, InetSocketAddress remote, InetSocketAddress local) {
        this.id = id;
        this.home = home;
        this.parser = new Http1Parser(home.context().parserLimits(), remote, local);
        this.bodyRate = new BodyRate(home.context().settings().timeouts());
        this.refusal = refusal;
        this.observing = home.context().observing();
    }

    // ---- channel events --------------------------------------------------------------------------

    @Override
    public void onAttach(Channel attached) {
        this.channel = attached;
        this.access = AccessRecorder.onLoop(home.context().accessLog(), home.accessLines());
        this.inbox = new AnswerHandoff(1 + home.context().settings().pipelineRun(), attached, this::takeAnswers,
                home.context().observer());
    }

    @Override
    public void onOpen(Channel open) {
        SSLSession session = channel.tlsSession();
        if (session != null) parser.peerCertificates(Tls.peerCertificates(session));
        if (refusal != null) respondAndClose(refusal);
        else waitFor(Wait.IDLE, false);
    }

    /** Parses buffered requests while the exchange reads and the channel can take their answers. */
    @Override
    public void onInput(Channel from, ByteBuffer in) {
        inputSinceSweep = true;
        readingInput = true;
        try {
            while (state == State.READING && channel.isWritable()) {
                boolean inBody = !parser.isReadingHead();
                int before = in.position();
                ParseResult result = parser.parse(in);
                if (inBody) bodyRate.onBytes(channel.loop().lastNanoTime(), in.position() - before);
                if (result instanceof ParseResult.NeedMore) {
                    waitFor(Wait.forReading(parser, in.hasRemaining()), true); // a body's deadline restarts with progress
                    return;
                }
                onParsed(result, in);
            }
            if (state == State.READING) waitFor(Wait.forReading(parser, in.hasRemaining()), false); // stopped by the water mark
        } finally {
            readingInput = false;
            reportUntimed();
        }
    }

    /** {@code in}: the input behind it, which pipelined requests may join its run from; null when it was held. */
    private void onParsed(ParseResult result, ByteBuffer in) {
        switch (result) {
            case ParseResult.ContinueExpected c -> Http1Writer.writeContinue(channel.out());
            case ParseResult.Failed failed -> respondAndClose(Responses.error(failed.status(), failed.reason()));
            case ParseResult.Parsed parsed -> onRequest(parsed.request(), in);
            case ParseResult.NeedMore needMore -> throw new IllegalArgumentException("nothing parsed");
        }
    }

    /**
     * As a synchronous handler waits to go off the loop: the complete requests buffered behind its
     * request join its {@code run} while they can; the first that cannot is held for its turn, and so
     * is a request that stops the run (one that is not safe to run ahead: it has a body, or asks to
     * close). Only here, before the run goes to its thread: it takes no step after that.
     */
    private void parseAhead(PipelineRun run, ByteBuffer in) {
        int most = home.context().settings().pipelineRun();
        while (ahead.size() < most && in.hasRemaining() && channel.isWritable()) {
            long start = channel.loop().lastNanoTime();
            ParseResult result = parser.parse(in);
            if (result instanceof ParseResult.NeedMore) return; // the rest of it is read in its turn
            Pending joined = result instanceof ParseResult.Parsed parsed && runsAhead(parsed.request())
                    ? join(run, parsed.request(), start) : null;
            if (joined == null) {
                held = result;
                return;
            }
            ahead.add(joined);
        }
    }

    /** {@code request} joins {@code run} when it can run there as it would have alone, with a place for its answer; else null. */
    private Pending join(PipelineRun run, Request request, long start) {
        Dispatcher dispatcher = home.context().dispatcher();
        if (!(dispatcher.route(request) instanceof Dispatch.Ready ready) || !dispatcher.canJoin(run, ready)
                || !channel.loop().tryReserveTask()) {
            return null;
        }
        return new Pending(request, dispatcher.join(run, ready, inbox), run.execution(), ready.pattern(), start);
    }

    /** A request another may be run ahead of the answers before it: safe, without a body, and keeping the connection. */
    private static boolean runsAhead(Request request) {
        String method = request.method();
        return (method.equals("GET") || method.equals("HEAD")) && request.body().length == 0 && request.keepAlive();
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
        moveTo(State.CLOSING);
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
            case HEAD, BODY, IDLE -> {
                Response answer = home.context().expired(expired, bodyRate, channel.loop().nanoTime());
                if (answer != null) {
                    respondAndClose(answer);
                } else {
                    moveTo(State.CLOSING);
                    channel.closeLingering();
                }
            }
            case HANDLER -> {
                if (state == State.HANDLING && pending != null) expire(pending);
            }
            case STREAM -> {
                dropped(ExchangeObserver.Cut.STREAM_STALLED);
                LOG.warn("response_stream_stalled", "id", id, "timeout_ms", home.context().settings().timeouts().streamStall().toMillis());
                channel.close(); // a truncated body, never a false end; onClosed cancels the subscription
            }
            case NONE, WRITE, LINGER -> channel.close();
        }
    }

    @Override
    public void onClosed(Channel from, Throwable cause) {
        if (cause != null) LOG.debug("connection_failed", "id", id, "state", state, "cause", cause);
        if (access != null && state == State.STREAMING) access.finish(handedOver()); // a body cut short: what was sent
        moveTo(State.CLOSED);
        wait = Wait.NONE;
        pending = null;
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

    /**
     * Routes the request, then runs what is ready ({@code in}: the input behind it, or null). A
     * handler whose answer comes later first takes the place of that answer in the loop's task queue,
     * while a refusal can still be answered here; a synchronous one going off the loop takes the
     * requests pipelined behind it along before it starts.
     */
    private void onRequest(Request request, ByteBuffer in) {
        current = request;
        if (access != null) access.begin(request);
        moveTo(State.HANDLING);
        channel.pauseInput(); // pipelined requests wait until this one is answered
        waitFor(Wait.NONE, false);
        long start = channel.loop().lastNanoTime(); // taken up as the loop read the input: the request's start
        Dispatcher dispatcher = home.context().dispatcher();
        Dispatch.Routed routed = dispatcher.route(request);
        Dispatch.Ready ready = routed instanceof Dispatch.Ready found ? found : null;
        boolean reserved = ready != null && ready.answersLater() && channel.loop().tryReserveTask();
        if (ready != null && access != null && !ready.upgrades()) access.runsOn(ready.execution());
        Dispatch.Started started;
        if (ready == null) started = (Dispatch.Answered) routed;
        else if (ready.answersLater() && !reserved) started = new Dispatch.Answered(
                dispatcher.refusal(Rejection.LOOP_QUEUE_FULL, "event loop task queue is full"), ready.pattern());
        else started = dispatcher.run(ready, channel.loop(), inbox);
        switch (started) {
            case Dispatch.Answered answered -> {
                if (reserved) channel.loop().cancelReservedTasks(1);
                if (observing) answeredOnLoop(request.method(), answered.pattern(), answered.response().status(), start);
                respond(answered.response());
            }
            case Dispatch.Running running -> {
                pending = new Pending(request, running.call(), ready.execution(), ready.pattern(), start);
                if (ready.deadlineNanos() > 0) deadline(running.call());
                PipelineRun run = running.run();
                if (run == null) return;
                if (in != null && ready.route().endpoint() instanceof Route.Sync) parseAhead(run, in);
                run.start();
            }
            case Dispatch.Upgrade upgrade -> upgrade(upgrade, ready.pattern(), start);
        }
    }

    /** The current request's deadline passed: unless its handler answered first, it is answered 503 now. */
    private void expire(Pending expired) {
        Response timeout = home.context().dispatcher().expire(expired.call);
        if (timeout == null) return; // the handler's answer is on its way here
        channel.loop().cancelReservedTasks(1); // the handler's answer, dropped when it comes, needs no place
        if (observing) {
            long now = System.nanoTime();
            home.untimedAnswers().report(home.context(), now); // the answers held before it are reported before it
            observe(expired, timeout.status(), now);
        }
        respond(timeout);
    }

    /**
     * On the loop: hands on the answers that came through the inbox since the last burst, in order.
     * The burst came in the task of its first answer: the places reserved for the others go back here,
     * in one step (not one by one on the threads that answered).
     */
    private void takeAnswers() {
        int count = inbox.take();
        if (count > 1) channel.loop().cancelReservedTasks(count - 1);
        for (int i = 0; i < count; i++) {
            answersInHand = count - 1 - i;
            onAnswer(inbox.call(i), inbox.response(i));
        }
        answersInHand = 0;
    }

    /** An answer taken from the inbox: the current request's is written, one run ahead waits for its turn. */
    private void onAnswer(HandlerCall call, Response response) {
        Pending answered = pendingOf(call);
        if (answered == null) { // its connection has moved on: closed
            if (response.isStreamed()) DiscardingSubscriber.discard(response.stream());
            return;
        }
        // The loop read its clock as the task before this one ended: the answer is timed as it is taken up.
        if (observing) observe(answered, response.status(), channel.loop().lastNanoTime());
        if (answered == pending) respond(response);
        else answered.answer = response;
    }

    private Pending pendingOf(HandlerCall call) {
        if (pending != null && pending.call == call) return pending;
        for (Pending waiting : ahead) {
            if (waiting.call == call) return waiting;
        }
        return null;
    }

    /** Reports an answer to the observer, and for the request being answered now, its time to the access log. */
    private void observe(Pending answered, int status, long nanoTime) {
        home.context().answered(answered.request.method(), answered.pattern, status, nanoTime - answered.start);
        if (answered == pending) answeredAt(nanoTime);
    }

    /**
     * An answer made on the loop (or a WebSocket upgrade accepted): timed for the observer, from
     * {@code start}, and for the access log. Answers made while the exchange reads one burst of input
     * are timed together, before any of them can leave (see {@link UntimedAnswers}); the others, and
     * every answer while the access log is on, now.
     */
    private void answeredOnLoop(String method, String pattern, int status, long start) {
        if (readingInput && access == null && home.untimedAnswers().hold(method, pattern, status, start)) return;
        long now = System.nanoTime();
        home.untimedAnswers().report(home.context(), now); // those held before it, when full
        home.context().answered(method, pattern, status, now - start);
        answeredAt(now);
    }

    /** Times the answers {@link #answeredOnLoop} held, before any of them can leave (a clock read only when some are). */
    private void reportUntimed() {
        UntimedAnswers untimed = home.untimedAnswers();
        if (!untimed.isEmpty()) untimed.report(home.context(), System.nanoTime());
    }

    /** The access log's time of the request being answered now. */
    private void answeredAt(long nanoTime) {
        if (access != null && state == State.HANDLING) access.answeredAt(nanoTime);
    }

    /**
     * Writes the current request's answer (or starts streaming its body). A response that cannot be
     * written (a bad value, a publisher that throws) ends the connection, never strands it.
     */
    private void respond(Response response) {
        if (state != State.HANDLING) {
            if (response.isStreamed()) DiscardingSubscriber.discard(response.stream()); // closed while the handler ran
            return;
        }
        pending = null;
        waitFor(Wait.NONE, false); // the handler's deadline, if any, is over
        try {
            ResponsePlan plan = ResponsePlan.of(current, response, home.context().isStopping());
            current = null;
            if (access != null) access.responding(response.status(), handedOver());
            if (plan.streamsBody()) {
                reportUntimed(); // a stream may write at once
                if (access != null) access.streaming();
                stream = new ResponseStream(this, channel, response, plan, AccessRecorder.requestIdOf(access));
                moveTo(State.STREAMING);
                stream.start();
            } else {
                plan.write(channel.out(), response, AccessRecorder.requestIdOf(access), channel.loop().lastNanoTime());
                finishExchange(plan.close());
            }
        } catch (RuntimeException e) {
            home.context().observer().onCut(ExchangeObserver.Cut.RESPONSE_FAILED);
            LOG.warn("response_failed", e, "id", id);
            channel.close();
        }
    }

    /**
     * A WebSocket route accepted the handshake: the 101 is queued and the channel goes to the
     * WebSocket session, with the input read past the request.
     */
    private void upgrade(Dispatch.Upgrade upgrade, String pattern, long start) {
        if (observing) answeredOnLoop(current.method(), pattern, 101, start);
        if (access != null) access.responding(101, handedOver());
        WsHandshake.writeSwitchingProtocols(channel.out(), upgrade.accepted());
        if (access != null) access.finish(handedOver());
        current = null;
        moveTo(State.UPGRADED);
        reportUntimed(); // the session may write at once
        channel.switchTo(WsConnection.server(id, upgrade.binding(), home.context().settings().webSocket(), upgrade.release()));
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
            moveTo(State.CLOSING);
            dropAhead(); // their answers, when they come, are dropped like any answer after the end
            channel.closeAfterFlush();
            return;
        }
        Pending next = ahead.poll();
        if (next != null) {
            takeTurn(next);
            return;
        }
        moveTo(State.READING);
        if (held != null) {
            ParseResult turn = held;
            held = null;
            onParsed(turn, null);
            if (state != State.READING) return;
        }
        channel.resumeInput();
        if (state == State.READING && !channel.hasBufferedInput()) waitFor(Wait.IDLE, false);
    }

    /** A request run ahead becomes the one answered next; what is written so far leaves with the loop's turn. */
    private void takeTurn(Pending next) {
        current = next.request;
        pending = next;
        moveTo(State.HANDLING);
        if (access != null) {
            access.begin(next.request, next.start);
            access.runsOn(next.execution);
        }
        channel.flushSoon();
        if (next.answer != null) {
            respond(next.answer);
        } else if (next.call.deadlineNanos() > 0 && answersInHand == 0) { // else its answer is the next in hand
            deadline(next.call);
        }
    }

    private void dropAhead() {
        for (Pending dropped : ahead) {
            if (dropped.answer != null && dropped.answer.isStreamed()) DiscardingSubscriber.discard(dropped.answer.stream());
        }
        ahead.clear();
        held = null;
    }

    private void respondAndClose(Response response) {
        if (access != null) access.beginUnparsed(response.status(), handedOver());
        ResponsePlan.closing(response).write(channel.out(), response, AccessRecorder.requestIdOf(access), channel.loop().lastNanoTime());
        if (access != null) {
            access.finish(handedOver());
            access.handOver();
        }
        current = null;
        moveTo(State.CLOSING);
        reportUntimed(); // the answers before it in the burst
        channel.closeAfterFlush();
    }

    /** For a stopping server: a connection between requests closes now; a busy one finishes its exchange first. */
    void closeIfIdle() {
        if (state == State.READING && !channel.hasBufferedInput() && parser.isBetweenRequests() && !channel.hasPendingOutput()) {
            moveTo(State.CLOSING);
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
    void dropped(ExchangeObserver.Cut reason) {
        home.context().observer().onCut(reason);
    }

    /** The one place the exchange changes state: on its loop, along the diagram's edges. */
    private void moveTo(State next) {
        assert channel == null || channel.loop().inEventLoop() : "exchange state changed off its loop: " + next;
        assert next.follows(state) : "exchange " + id + ": " + state + " -> " + next;
        state = next;
    }

    /** Arms the deadline of the current request's handler. */
    private void deadline(HandlerCall call) {
        wait = Wait.HANDLER;
        channel.deadlineAfter(call.deadlineNanos());
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
        var timeouts = home.context().settings().timeouts();
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
