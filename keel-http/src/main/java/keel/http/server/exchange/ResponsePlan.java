package keel.http.server.exchange;

import keel.core.buffer.WriteQueue;
import keel.http.Request;
import keel.http.Response;
import keel.http.codec.Http1Writer;
import keel.http.codec.Http1Writer.BodyFraming;
import keel.http.execution.DiscardingSubscriber;

/**
 * How one response goes on the wire, decided once from its request for both transports: what is
 * sent, how its body is delimited, and whether the connection closes after it. The body arrives here
 * in its final content coding: {@link keel.http.execution.ResponseCompression ResponseCompression} encoded it (or not) as it left the handler,
 * on the handler's thread, so the plan only frames it.
 *
 * @param kind         what is sent: a fixed response, only the head of a streamed one, or a streamed body
 * @param framing      how the body after the head is delimited ({@code NONE} for a status without a body)
 * @param omitBody     a HEAD request: the head announces the body, no body follows
 * @param close        the connection closes after this response ({@code Connection: close})
 * @param http10Client the request was HTTP/1.0, so a connection kept open is announced with {@code Connection: keep-alive}
 *
 * <p>A plan is one of a few dozen values, made once: planning a response allocates nothing.
 */
public record ResponsePlan(Kind kind, BodyFraming framing, boolean omitBody, boolean close, boolean http10Client) {
    private static final int FRAMINGS = BodyFraming.values().length;
    /** Every plan, by {@link #index}. */
    private static final ResponsePlan[] PLANS = new ResponsePlan[Kind.values().length * FRAMINGS * 8];

    static {
        for (Kind kind : Kind.values()) {
            for (BodyFraming framing : BodyFraming.values()) {
                for (int flags = 0; flags < 8; flags++) {
                    PLANS[index(kind, framing, (flags & 4) != 0, (flags & 2) != 0, (flags & 1) != 0)] =
                            new ResponsePlan(kind, framing, (flags & 4) != 0, (flags & 2) != 0, (flags & 1) != 0);
                }
            }
        }
    }

    private static int index(Kind kind, BodyFraming framing, boolean omitBody, boolean close, boolean http10Client) {
        int flags = (omitBody ? 4 : 0) | (close ? 2 : 0) | (http10Client ? 1 : 0);
        return (kind.ordinal() * FRAMINGS + framing.ordinal()) * 8 + flags;
    }

    private static ResponsePlan plan(Kind kind, BodyFraming framing, boolean omitBody, boolean close, boolean http10Client) {
        return PLANS[index(kind, framing, omitBody, close, http10Client)];
    }

    /** What leaves for a response. */
    public enum Kind {
        /** The head and the body held in memory (no body for HEAD or a status without one). */
        FIXED,
        /** A streamed response whose body is never sent (HEAD, 204, 304): the head, and the publisher is cancelled. */
        HEAD_ONLY,
        /** A streamed response: the head, then the publisher's items in the plan's framing. */
        STREAMED
    }

    /**
     * The plan for {@code response} to {@code request}. The connection closes when the client or the
     * handler asks for it, when the server is stopping, or when the body ends only with the connection
     * (a streamed body to an HTTP/1.0 client, which cannot read chunks).
     */
    public static ResponsePlan of(Request request, Response response, boolean stopping) {
        boolean head = request.method().equals("HEAD");
        boolean http10Client = !request.isHttp11();
        boolean close = !request.keepAlive() || response.closesConnection() || stopping;
        if (!response.isStreamed()) {
            return plan(Kind.FIXED, fixedFraming(response), head, close, http10Client);
        }
        BodyFraming framing = Http1Writer.streamFraming(response.status(), request.isHttp11());
        close |= framing == BodyFraming.UNTIL_CLOSE;
        Kind kind = head || framing == BodyFraming.NONE ? Kind.HEAD_ONLY : Kind.STREAMED;
        return plan(kind, framing, head, close, http10Client);
    }

    /**
     * The plan for a fixed response that ends the connection whatever was asked (a request that could
     * not be read, a timeout, a refused connection): there may be no request to plan from.
     */
    public static ResponsePlan closing(Response response) {
        return plan(Kind.FIXED, fixedFraming(response), false, true, false);
    }

    private static BodyFraming fixedFraming(Response response) {
        return Http1Writer.hasNoBody(response.status()) ? BodyFraming.NONE : BodyFraming.FIXED;
    }

    /** True when the publisher's items follow the head ({@link Kind#STREAMED}). */
    public boolean streamsBody() {
        return kind == Kind.STREAMED;
    }

    /**
     * Queues what precedes any streamed item: a fixed response whole, otherwise the head. For
     * {@link Kind#HEAD_ONLY} the publisher is cancelled here, so it learns that nobody will read it.
     * {@code requestId} (or null) goes back as {@code X-Request-Id} (the access log's id, read as the
     * head is written); {@code nanoTime} ({@link System#nanoTime()} scale) is when it is made, for its {@code Date}.
     */
    public void write(WriteQueue out, Response response, CharSequence requestId, long nanoTime) {
        switch (kind) {
            case FIXED -> Http1Writer.writeFixed(out, response, omitBody, close, http10Client, requestId, nanoTime);
            case HEAD_ONLY -> {
                Http1Writer.writeHead(out, response, framing, -1, close, http10Client, requestId, nanoTime);
                DiscardingSubscriber.discard(response.stream());
            }
            case STREAMED -> Http1Writer.writeHead(out, response, framing, -1, close, http10Client, requestId, nanoTime);
        }
    }

    /** Queues one published item of a streamed body: a chunk, or the bytes as they are when the body runs until close. */
    public void writeItem(WriteQueue out, byte[] item) {
        if (framing == BodyFraming.CHUNKED) Http1Writer.writeChunk(out, item);
        else out.put(item);
    }

    /** Queues the end of a streamed body: the last chunk; nothing when the body ends with the connection. */
    public void writeEnd(WriteQueue out) {
        if (framing == BodyFraming.CHUNKED) Http1Writer.writeLastChunk(out);
    }
}
