package keel.http.server;

import keel.http.Request;

/**
 * Measures one connection's exchanges for the {@link AccessLog}, on both transports: one per
 * connection, confined to its thread (its event loop, or its blocking thread), reused request after
 * request. The connection tells it when a request was parsed ({@link #begin}), where its handler runs
 * ({@link #runsOn}), when its response starts and ends being handed over ({@link #responding},
 * {@link #finish}, with the connection's count of output bytes); {@code finish} offers the line.
 * A request costs one {@link AccessEntry} (plus an id when the client sent none) and two clock reads.
 */
final class AccessRecorder {
    private static final String NONE = "-";
    /** The execution words, made once: {@link Execution#word()} builds a new string each call. */
    private static final String[] EXECUTIONS = {
            Execution.EVENT_LOOP.word(), Execution.WORKER_POOL.word(), Execution.VIRTUAL_THREAD.word()};
    private static final String BLOCKING = "blocking";

    private final AccessLog log;
    private final RequestIds ids;
    private final String loop;
    /** The client's sane {@code X-Request-Id}, or null when the id is made. */
    private String givenId;
    private long madeId;
    /** The made id as text, for the response's header: reused, so a made id allocates nothing. */
    private final StringBuilder madeIdText = new StringBuilder(32);
    private String method;
    private String target;
    private String execution;
    private long bytesIn;
    /** False for an answer without a request: its line has no duration. */
    private boolean parsed;
    private long startNanos;
    private int status;
    private long outputMark;

    private AccessRecorder(AccessLog log, String loop) {
        this.log = log;
        this.ids = log.ids();
        this.loop = loop;
    }

    /** For a connection of event loop {@code loop}; null when the access log is off. */
    static AccessRecorder onLoop(AccessLog log, String loop) {
        return log == null ? null : new AccessRecorder(log, loop);
    }

    /** For a connection of the blocking transport; null when the access log is off. */
    static AccessRecorder blocking(AccessLog log) {
        return log == null ? null : new AccessRecorder(log, null);
    }

    /** A request was parsed: its id is the client's {@code X-Request-Id} when sane, else a new one. */
    void begin(Request request) {
        parsed = true;
        startNanos = System.nanoTime();
        method = request.method();
        target = request.target();
        bytesIn = request.body().length;
        execution = loop == null ? BLOCKING : EXECUTIONS[Execution.EVENT_LOOP.ordinal()];
        identify(request.header(RequestIds.HEADER));
    }

    /**
     * An answer with {@code status} without a request (unreadable input, a timeout, a refused
     * connection) starts, at {@code outputMark}: it gets a new id, and its line says {@code -} for
     * method and target, and 0 for its duration.
     */
    void beginUnparsed(int status, long outputMark) {
        parsed = false;
        method = NONE;
        target = NONE;
        bytesIn = 0;
        execution = loop == null ? BLOCKING : EXECUTIONS[Execution.EVENT_LOOP.ordinal()];
        identify(null);
        responding(status, outputMark);
    }

    private void identify(String given) {
        if (given != null && RequestIds.isSane(given)) {
            givenId = given;
            return;
        }
        givenId = null;
        madeId = ids.next();
        madeIdText.setLength(0);
        ids.appendMade(madeIdText, madeId);
    }

    /** The id of the request begun last, echoed in its response's {@code X-Request-Id}; valid until the next begins. */
    CharSequence requestId() {
        return givenId != null ? givenId : madeIdText;
    }

    /** The nio dispatcher chose where the handler runs (the default is the loop, where the router answers 404 and 405). */
    void runsOn(Execution where) {
        execution = EXECUTIONS[where.ordinal()];
    }

    /** The response with {@code status} starts; {@code outputMark} is the connection's count of output bytes now. */
    void responding(int status, long outputMark) {
        this.status = status;
        this.outputMark = outputMark;
    }

    /** The response's last byte was handed to the connection, which has counted {@code outputMark} bytes: offers the line. */
    void finish(long outputMark) {
        long end = System.nanoTime();
        log.offer(new AccessEntry(end, givenId, madeId, method, target, status, bytesIn,
                outputMark - this.outputMark, parsed ? end - startNanos : 0, execution, loop));
        givenId = null;
        method = null;
        target = null;
    }
}
