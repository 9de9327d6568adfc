package keel.http.server;

import keel.http.Execution;
import keel.http.Response;
import keel.http.ws.WsConnection;
import keel.http.ws.WsHandshake;

/**
 * What the {@link Dispatcher} tells the exchange of a nio connection about its request, all of it on
 * the connection's loop unless said otherwise: where the handler runs, the place of its answer in
 * the loop's task queue, its deadline, the run pipelined requests may join, a WebSocket upgrade.
 */
interface Exchange {
    /**
     * On the connection's loop, before {@code dispatch} returns: answer 101 for {@code accepted}
     * and hand the socket to a {@link WsConnection} with {@code binding}; {@code release} runs
     * once when that connection closes. {@code done} is not called for this request.
     */
    void upgrade(WsHandshake.Accepted accepted, WsConnection.Binding binding, Runnable release);

    /**
     * On the connection's loop, before the handler runs: the execution it runs under (not called
     * when the router answers by itself, 404 or 405, on the loop).
     */
    void runsOn(Execution execution);

    /**
     * On the connection's loop, before a handler whose answer may come later or from another
     * thread runs (any execution but a synchronous handler on the loop): reserves the place of
     * that answer in the loop's task queue, so it can always come back. False when the queue is
     * full: the request is then answered 503 at once, on the loop.
     */
    boolean reserveAnswer();

    /**
     * On the connection's loop, after {@link #reserveAnswer}: once {@code nanos} pass without an
     * answer, the exchange calls {@link Dispatcher#expire(HandlerCall, long)} there.
     */
    void deadline(HandlerCall call, long nanos);

    /**
     * On the connection's loop, before {@code dispatch} returns and before {@code run} goes to its
     * thread: the request runs as the first step of {@code run}, which takes the pipelined requests
     * behind it here, in this call, or never ({@link Dispatcher#follow}).
     */
    void runs(PipelineRun run);

    /**
     * On any thread, in place of the {@code done} given with the request when the answer is observed:
     * hands {@code response} to the connection like {@code done}, and on the connection's loop first
     * gives {@code timing} the moment it was answered. That is the clock read then when the answer is
     * made on the loop, or the loop's last clock read as it takes up an answer made elsewhere: the
     * handler's thread reads no clock, and the observer records on the loop.
     */
    void answer(Response response, Timing timing);

    /**
     * On the connection's loop, as a synchronous handler there hands its answer to {@code done} (or a
     * WebSocket route accepts its handshake): times it for the observer, from {@code start}, and for
     * the access log. Answers made while the exchange reads one burst of input are timed together,
     * before any of them can leave (see {@link UntimedAnswers}); the others, and every answer while
     * the access log is on, now.
     */
    void answeredOnLoop(String method, String pattern, int status, long start);

    /** What learns, on the connection's loop, when an answer was made. */
    interface Timing {
        void answeredAt(Response response, long nanoTime);
    }
}
