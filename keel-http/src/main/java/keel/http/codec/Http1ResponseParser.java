package keel.http.codec;

import keel.http.Headers;

import java.nio.ByteBuffer;

import static java.nio.charset.StandardCharsets.ISO_8859_1;

/**
 * A resumable HTTP/1.1 response parser (RFC 9112) for a client, over a heap buffer. It does no I/O,
 * never blocks and does not allocate per byte: call {@link #parse} with whatever bytes arrived, and
 * again while it reports something other than {@link ResponseEvent.NeedMore}. One parser serves one
 * connection; {@link #expect} announces each response, in the order the requests were sent.
 *
 * <pre>
 *  IDLE ──expect()──► HEAD ──(1xx but 101: skipped, at most 16)──► HEAD
 *   ▲                  │ Head
 *   │                  ├──(HEAD request, 204, 304)──────────────────────► COMPLETE ──End──► IDLE
 *   │                  ├──(Content-Length)──► FIXED_BODY ──Body…(last)──► COMPLETE
 *   │                  ├──(chunked)─────────► CHUNKED_BODY ──Body…──End──► IDLE
 *   │                  ├──(neither)─────────► UNTIL_CLOSE_BODY ──Body…, endOfInput()──End──► IDLE
 *   │                  └──(101)─────────────► UPGRADED (final: the rest is not HTTP)
 *  any state ──(bad input, a limit, bytes nobody asked for)──► FAILED (final)
 * </pre>
 *
 * Thread contract: like the connection that owns it, a parser is confined to one thread.
 */
public final class Http1ResponseParser {
    /** Interim responses accepted in a row before the final one; a peer may not stall a client forever. */
    private static final int MAX_INTERIM_RESPONSES = 16;

    /**
     * @param maxHeadSize    status line plus header fields, in bytes; also bounds a chunked body's trailers
     * @param maxHeaderCount header fields per response
     */
    public record Limits(int maxHeadSize, int maxHeaderCount) {
        public Limits {
            if (maxHeadSize < 64) throw new IllegalArgumentException("maxHeadSize must be >= 64: " + maxHeadSize);
            if (maxHeaderCount < 1) throw new IllegalArgumentException("maxHeaderCount must be >= 1: " + maxHeaderCount);
        }
    }

    private enum State { IDLE, HEAD, FIXED_BODY, CHUNKED_BODY, UNTIL_CLOSE_BODY, COMPLETE, UPGRADED, FAILED }

    private final Limits limits;
    private final MessageHead head = new MessageHead();
    private final ChunkedDecoder chunks;
    private final Headers.Builder fieldScratch = new Headers.Builder();
    private State state = State.IDLE;
    private ResponseEvent.Failed failure;
    private boolean headRequest;
    /** A byte of the expected response (an interim one included) has been seen. */
    private boolean responseStarted;
    private int interimResponses;
    /** FIXED_BODY: the Content-Length, and the bytes of it still to come. */
    private long bodyLength;
    private long bodyRemaining;

    public Http1ResponseParser(Limits limits) {
        this.limits = limits;
        this.chunks = new ChunkedDecoder(limits.maxHeadSize());
    }

    /**
     * Prepares for the response to the next request; a HEAD request's response has no body
     * (RFC 9112 §6.3). Legal before the first response and after {@link ResponseEvent.End}; a failed
     * parser stays failed.
     *
     * @throws IllegalStateException while a response is being parsed, or after an upgrade
     */
    public void expect(boolean headRequest) {
        if (state == State.FAILED) return;
        if (state != State.IDLE) throw new IllegalStateException("expect(..) in state " + state + ": the previous response has not ended");
        this.headRequest = headRequest;
        responseStarted = false;
        interimResponses = 0;
        state = State.HEAD;
    }

    /**
     * Consumes bytes from {@code in} (a heap buffer in read mode) and reports what they completed;
     * call again while it returns something other than {@link ResponseEvent.NeedMore}. After a
     * {@link ResponseEvent.Failed} the parser stays failed.
     */
    public ResponseEvent parse(ByteBuffer in) {
        try {
            return switch (state) {
                case IDLE -> in.hasRemaining() ? fail("unexpected bytes with no response expected") : ResponseEvent.NEED_MORE;
                case HEAD -> parseHead(in);
                case FIXED_BODY -> readFixedBody(in);
                case CHUNKED_BODY -> readChunkedBody(in);
                case UNTIL_CLOSE_BODY -> in.hasRemaining() ? body(in, in.remaining()) : ResponseEvent.NEED_MORE;
                case COMPLETE -> end();
                case UPGRADED -> ResponseEvent.NEED_MORE;
                case FAILED -> failure;
            };
        } catch (BadMessage bad) {
            return fail(bad.getMessage());
        }
    }

    /**
     * The peer closed its side: ends a body that runs until the close ({@link ResponseEvent.End}), or
     * reports a premature close with what was missing ({@link ResponseEvent.Failed}). After an
     * upgrade it answers End: the HTTP part of the exchange was complete.
     */
    public ResponseEvent endOfInput() {
        return switch (state) {
            case IDLE -> fail("connection closed with no response expected");
            case HEAD -> fail(responseStarted ? "premature close: connection closed in the response head"
                    : "premature close: connection closed before any response byte");
            case FIXED_BODY -> fail("premature close: " + bodyRemaining + " of " + bodyLength + " body bytes missing");
            case CHUNKED_BODY -> fail("premature close: chunked body ended before its last chunk");
            case UNTIL_CLOSE_BODY, COMPLETE -> end();
            case UPGRADED -> ResponseEvent.END;
            case FAILED -> failure;
        };
    }

    /** True while no byte of the expected response has been consumed (a failure now happened before any response byte). */
    public boolean isBeforeResponse() {
        return !responseStarted;
    }

    /** True after a 101 head: the connection now speaks another protocol; the rest of the buffer is not HTTP. */
    public boolean isUpgraded() {
        return state == State.UPGRADED;
    }

    // ---- head ---------------------------------------------------------------------------------

    private ResponseEvent parseHead(ByteBuffer in) {
        byte[] a = in.array();
        int base = in.arrayOffset();
        while (true) {
            int start = base + in.position();
            int limit = base + in.limit();
            if (start < limit) responseStarted = true;
            int end = head.find(a, start, limit);
            if (end < 0 ? limit - start > limits.maxHeadSize() : end - start > limits.maxHeadSize()) {
                throw new BadMessage("response head larger than " + limits.maxHeadSize() + " bytes");
            }
            if (end < 0) return ResponseEvent.NEED_MORE;
            in.position(end - base);
            ResponseEvent.Head response = readHead(a, start, end);
            if (response != null) return response;
            if (++interimResponses > MAX_INTERIM_RESPONSES) {
                throw new BadMessage("more than " + MAX_INTERIM_RESPONSES + " interim (1xx) responses");
            }
        }
    }

    /** The head of a final response, or null for an interim one (RFC 9110 §15.2: skipped). */
    private ResponseEvent.Head readHead(byte[] a, int start, int end) {
        int lineEnd = MessageHead.lineEnd(a, start, end);
        int lineContentEnd = MessageHead.contentEnd(a, start, lineEnd);
        // status-line = HTTP-version SP status-code SP [ reason-phrase ]; "HTTP/1.1 200" is tolerated.
        if (lineContentEnd - start < 12 || a[start + 8] != ' ' || (lineContentEnd > start + 12 && a[start + 12] != ' ')) {
            throw new BadMessage("malformed status line");
        }
        boolean http11 = Tokens.isHttp11(a, start, start + 8);
        int status = status(a, start + 9);
        String reason = reason(a, Math.min(start + 13, lineContentEnd), lineContentEnd);
        Headers headers = MessageHead.readFields(a, lineEnd + 1, end, limits.maxHeaderCount(), fieldScratch.clear(), null);
        if (status < 200 && status != 101) return null;
        return startBody(status, reason, headers, http11);
    }

    private static int status(byte[] a, int start) {
        if (!Tokens.isDigit(a[start]) || !Tokens.isDigit(a[start + 1]) || !Tokens.isDigit(a[start + 2])) {
            throw new BadMessage("malformed status code");
        }
        int status = (a[start] - '0') * 100 + (a[start + 1] - '0') * 10 + (a[start + 2] - '0');
        // RFC 9110 §15: values outside 100..599 are invalid.
        if (status < 100 || status > 599) throw new BadMessage("invalid status code " + status);
        return status;
    }

    /** RFC 9112 §4: {@code reason-phrase = 1*( HTAB / SP / VCHAR / obs-text )}. */
    private static String reason(byte[] a, int start, int end) {
        for (int i = start; i < end; i++) {
            byte b = a[i];
            if ((b >= 0 && b < ' ' && b != '\t') || b == 0x7f) throw new BadMessage("invalid character in reason phrase");
        }
        return new String(a, start, end - start, ISO_8859_1);
    }

    // ---- body (RFC 9112 §6.3) -----------------------------------------------------------------

    private ResponseEvent.Head startBody(int status, String reason, Headers headers, boolean http11) {
        Framing framing = Framing.ofResponse(status, headRequest, headers, http11);
        long length = framing.contentLength();
        if (status == 101) {
            state = State.UPGRADED;
        } else if (framing.chunked()) {
            chunks.reset();
            state = State.CHUNKED_BODY;
        } else if (length < 0) {
            state = State.UNTIL_CLOSE_BODY;
        } else {
            bodyLength = length;
            bodyRemaining = length;
            state = length == 0 ? State.COMPLETE : State.FIXED_BODY;
        }
        return new ResponseEvent.Head(status, reason, headers, length, framing.keepAlive());
    }

    private ResponseEvent readFixedBody(ByteBuffer in) {
        int n = (int) Math.min(in.remaining(), bodyRemaining);
        if (n == 0) return ResponseEvent.NEED_MORE;
        bodyRemaining -= n;
        if (bodyRemaining == 0) state = State.COMPLETE;
        return body(in, n);
    }

    private ResponseEvent readChunkedBody(ByteBuffer in) {
        int ready = chunks.next(in);
        if (ready == ChunkedDecoder.END) return end();
        if (ready == 0) return ResponseEvent.NEED_MORE;
        chunks.consumed(ready);
        return body(in, ready);
    }

    /** The next {@code n} bytes of {@code in}, copied into an array of exactly that size. */
    private static ResponseEvent.Body body(ByteBuffer in, int n) {
        byte[] bytes = new byte[n];
        in.get(bytes);
        return new ResponseEvent.Body(bytes);
    }

    private ResponseEvent end() {
        state = State.IDLE;
        return ResponseEvent.END;
    }

    private ResponseEvent.Failed fail(String reason) {
        state = State.FAILED;
        failure = new ResponseEvent.Failed(reason);
        return failure;
    }
}
