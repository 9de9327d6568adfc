package keel.http.accesslog;

import keel.http.Execution;
import keel.http.Request;

/**
 * Measures one connection's exchanges for the {@link AccessLog}, on both transports: one per
 * connection, confined to its thread (its event loop, or its blocking thread), reused request after
 * request. The connection tells it when a request was parsed ({@link #begin}), where its handler runs
 * ({@link #runsOn}), when its response starts and ends being handed over ({@link #responding},
 * {@link #finish}, with the connection's count of output bytes); {@code finish} encodes the line into
 * the thread's {@link AccessLines}. A request costs no object; on a loop, it costs one clock read,
 * or none when the answer was timed for the server's observer (two on the blocking transport).
 */
public final class AccessRecorder {
    private static final String NONE = "-";

    private final AccessLines lines;
    private final RequestIds ids;
    /** Where handlers run unless {@link #runsOn} says otherwise: the loop, or the blocking thread. */
    private final int defaultExecution;
    /** The client's sane {@code X-Request-Id}, or null when the id is made. */
    private String givenId;
    /** The made id, for the response's header and the line: reused, so a made id allocates nothing. */
    private final RequestIds.Made madeId;
    private String method;
    private String target;
    private int execution;
    private long bytesIn;
    /** False for an answer without a request: its line has no duration. */
    private boolean parsed;
    private long startNanos;
    /** When the handler answered, as the exchange read the clock for the server's observer; 0 when it did not. */
    private long answeredNanos;
    private int status;
    private long outputMark;

    private AccessRecorder(AccessLog log, AccessLines lines, int defaultExecution) {
        this.lines = lines;
        this.ids = log.ids();
        this.madeId = ids.newMade();
        this.defaultExecution = defaultExecution;
    }

    /** For a connection whose loop encodes its lines into {@code lines}; null when the access log is off. */
    public static AccessRecorder onLoop(AccessLog log, AccessLines lines) {
        return log == null ? null : new AccessRecorder(log, lines, Execution.EVENT_LOOP.ordinal());
    }

    /** For a connection of the blocking transport; null when the access log is off. */
    public static AccessRecorder blocking(AccessLog log) {
        return log == null ? null : new AccessRecorder(log, log.blockingLines(), AccessLines.BLOCKING);
    }

    /** A request was parsed: its id is the client's {@code X-Request-Id} when sane, else a new one. */
    public void begin(Request request) {
        begin(request, lines.startNanos());
    }

    /** {@link #begin(Request)} for a request parsed at {@code parsedNanos}, before its turn came (pipelined behind others). */
    public void begin(Request request, long parsedNanos) {
        startNanos = parsedNanos;
        start(true, request.method(), request.target(), request.body().length, request.header(RequestIds.HEADER));
    }

    /**
     * An answer with {@code status} without a request (unreadable input, a timeout, a refused
     * connection) starts, at {@code outputMark}: it gets a new id, and its line says {@code -} for
     * method and target, and 0 for its duration.
     */
    public void beginUnparsed(int status, long outputMark) {
        start(false, NONE, NONE, 0, null);
        responding(status, outputMark);
    }

    /** Starts an exchange's line; its id is {@code given} when sane, else a new one. */
    private void start(boolean parsed, String method, String target, long bytesIn, String given) {
        this.parsed = parsed;
        answeredNanos = 0;
        this.method = method;
        this.target = target;
        this.bytesIn = bytesIn;
        execution = defaultExecution;
        if (given != null && RequestIds.isSane(given)) {
            givenId = given;
            return;
        }
        givenId = null;
        madeId.set(ids.next());
    }

    /** The id of the request begun last, echoed in its response's {@code X-Request-Id}; valid until the next begins. */
    public CharSequence requestId() {
        return givenId != null ? givenId : madeId;
    }

    /** {@code recorder}'s {@link #requestId}, or null when the access log is off (no recorder). */
    public static CharSequence requestIdOf(AccessRecorder recorder) {
        return recorder == null ? null : recorder.requestId();
    }

    /** The nio dispatcher chose where the handler runs (the default is the loop, where the router answers 404 and 405). */
    public void runsOn(Execution where) {
        execution = where.ordinal();
    }

    /**
     * The answer was made, or taken up by the connection's loop, at {@code nanoTime} (as timed for the
     * server's observer, {@code Exchange.answer} and {@code Exchange.answeredOnLoop}): a fixed response is then handed over within the same
     * call, so its line takes that time as its end instead of reading the clock again.
     */
    public void answeredAt(long nanoTime) {
        answeredNanos = nanoTime;
    }

    /** The response streams its body: its line ends when the last byte is handed over, whenever the handler answered. */
    public void streaming() {
        answeredNanos = 0;
    }

    /** The response with {@code status} starts; {@code outputMark} is the connection's count of output bytes now. */
    public void responding(int status, long outputMark) {
        this.status = status;
        this.outputMark = outputMark;
    }

    /** The response's last byte was handed to the connection, which has counted {@code outputMark} bytes: offers the line. */
    public void finish(long outputMark) {
        long end = answeredNanos != 0 ? answeredNanos : System.nanoTime();
        answeredNanos = 0;
        lines.add(end, givenId, madeId, method, target, status, bytesIn, outputMark - this.outputMark,
                parsed ? end - startNanos : 0, execution);
        givenId = null;
        method = null;
        target = null;
    }

    /** Hands the lines encoded so far to the log now, instead of at the end of the loop's turn. */
    public void handOver() {
        lines.handOver();
    }
}
